package shell

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	"speedmatrix/engine"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/report"
	"speedmatrix/engine/secret"
)

// endpointPanel edits an existing server's address.
func (s *serverTab) endpointPanel() fyne.CanvasObject {
	s.url = widget.NewEntry()
	s.url.SetPlaceHolder("http://127.0.0.1:8000")
	s.apiKey = widget.NewPasswordEntry()
	s.apiKey.SetPlaceHolder("none")
	s.model = widget.NewSelectEntry(nil)
	s.exporters = newExporters()
	s.started = newStartedCard()
	// Another address is another server: what was detected no longer holds.
	s.url.OnChanged = func(string) { s.endpointCap = app.Capacity{}; s.started.Hide(); s.publish() }
	s.model.SetPlaceHolder("the first model the server lists")
	s.endpointStatus = widget.NewLabel("Any OpenAI-compatible server; vLLM gives the most detail (KV cache, version).")
	s.endpointStatus.Wrapping = fyne.TextWrapWord
	detect := widget.NewButtonWithIcon("Detect models", theme.SearchIcon(), s.onDetect)
	form := widget.NewForm(
		widget.NewFormItem("URL", s.url),
		widget.NewFormItem("API key", s.apiKey),
		widget.NewFormItem("Model", container.NewBorder(nil, nil, nil, detect, s.model)),
		s.exporters.formItem(),
	)
	return container.NewVBox(form, s.endpointStatus, s.started.Object())
}

// onDetect asks the endpoint for its models (GET /v1/models) and, for a
// server on this machine, reads how it was started.
func (s *serverTab) onDetect() {
	base, key := strings.TrimSpace(s.url.Text), s.apiKey.Text
	if err := checkURL(base); err != nil {
		s.banner.Show(app.Notice{Message: "That URL is not a server address.", Action: "Write it as a URL like http://127.0.0.1:8000.", Detail: err.Error()})
		return
	}
	if err := s.exporters.check(); err != nil {
		n, _ := exporterNotice(err, nil)
		s.banner.Show(n)
		return
	}
	s.banner.Hide()
	s.endpointStatus.SetText("Asking " + secret.URL(base) + "/v1/models …")
	done := make(chan struct{})
	s.detected = done
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		models, err := s.u.Deps.Endpoints.Models(ctx, base, key)
		proc := s.u.Deps.Capture.Capture(ctx, base)
		s.u.Do(func() {
			s.showModels(models, err)
			s.started.Show(proc, s.u.Deps.Now(), userHome())
			close(done)
		})
	}()
}

func (s *serverTab) showModels(models []openai.Model, err error) {
	if err != nil {
		s.endpointStatus.SetText("")
		s.banner.Show(noticeOf(err, "The server's models could not be listed.", nil))
		return
	}
	if len(models) == 0 {
		s.endpointStatus.SetText("")
		s.banner.Show(app.Notice{Message: "The server lists no model.", Action: "Wait until it has finished loading, then press Detect models again."})
		return
	}
	ids := make([]string, len(models))
	for i, m := range models {
		ids[i] = m.ID
	}
	s.model.SetOptions(ids)
	s.model.SetText(ids[0])
	s.endpointCap.MaxModelLen = models[0].MaxModelLen
	msg := fmt.Sprintf("Found %s: %s.", engine.Count(len(ids), "model", "models"), strings.Join(ids, ", "))
	if n := s.endpointCap.MaxModelLen; n > 0 {
		msg += fmt.Sprintf(" Max model length %s tokens.", report.Int(n))
	}
	s.endpointStatus.SetText(msg)
	s.publish()
}

// checkURL says what is wrong with an endpoint URL.
func checkURL(base string) error {
	u, err := url.Parse(base)
	if base == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not a server URL: write it like http://127.0.0.1:8000", secret.URL(base))
	}
	return nil
}

// learnFromRun keeps what a run of the chosen endpoint found of its
// server's limits (its KV cache, sequences and model length, which Detect
// cannot list), so that the Matrix screen greys the cells over them.
func (s *serverTab) learnFromRun() {
	found := s.u.State.Run.Found
	if s.kind == nil || s.kind.Selected != app.TargetEndpoint || found.Endpoint == "" || found.Endpoint != secret.URL(strings.TrimSpace(s.url.Text)) {
		return
	}
	c := s.endpointCap
	c.KVCacheTokens, c.MaxNumSeqs = cmp.Or(found.Limits.KVCacheTokens, c.KVCacheTokens), cmp.Or(found.Limits.MaxNumSeqs, c.MaxNumSeqs)
	c.MaxModelLen = cmp.Or(found.Limits.MaxModelLen, c.MaxModelLen)
	if c != s.endpointCap {
		s.endpointCap = c
		s.publish()
	}
}
