package server

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
func (s *Tab) endpointPanel() fyne.CanvasObject {
	s.Url = widget.NewEntry()
	s.Url.SetPlaceHolder("http://127.0.0.1:8000")
	s.ApiKey = widget.NewPasswordEntry()
	s.ApiKey.SetPlaceHolder("none")
	s.Model = widget.NewSelectEntry(nil)
	s.Exporters = newExporters()
	s.Started = newStartedCard()
	// Another address is another server: what was detected no longer holds.
	s.Url.OnChanged = func(string) { s.endpointCap = app.Capacity{}; s.Started.Hide(); s.publish() }
	s.Model.SetPlaceHolder("the first model the server lists")
	s.EndpointStatus = widget.NewLabel("Any OpenAI-compatible server; vLLM gives the most detail (KV cache, version).")
	s.EndpointStatus.Wrapping = fyne.TextWrapWord
	detect := widget.NewButtonWithIcon("Detect models", theme.SearchIcon(), s.OnDetect)
	form := widget.NewForm(
		widget.NewFormItem("URL", s.Url),
		widget.NewFormItem("API key", s.ApiKey),
		widget.NewFormItem("Model", container.NewBorder(nil, nil, nil, detect, s.Model)),
		s.Exporters.formItem(),
	)
	return container.NewVBox(form, s.EndpointStatus, s.Started.Object())
}

// OnDetect asks the endpoint for its models (GET /v1/models) and, for a
// server on this machine, reads how it was started.
func (s *Tab) OnDetect() {
	base, key := strings.TrimSpace(s.Url.Text), s.ApiKey.Text
	if err := checkURL(base); err != nil {
		s.Banner.Show(app.Notice{Message: "That URL is not a server address.", Action: "Write it as a URL like http://127.0.0.1:8000.", Detail: err.Error()})
		return
	}
	if err := s.Exporters.check(); err != nil {
		n, _ := app.ExporterNotice(err, nil)
		s.Banner.Show(n)
		return
	}
	s.Banner.Hide()
	s.EndpointStatus.SetText("Asking " + secret.URL(base) + "/v1/models …")
	done := make(chan struct{})
	s.Detected = done
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		models, err := s.u.Deps.Endpoints.Models(ctx, base, key)
		proc := s.u.Deps.Capture.Capture(ctx, base)
		s.u.Do(func() {
			s.showModels(models, err)
			s.Started.Show(proc, s.u.Deps.Now(), app.UserHome())
			close(done)
		})
	}()
}

func (s *Tab) showModels(models []openai.Model, err error) {
	if err != nil {
		s.EndpointStatus.SetText("")
		s.Banner.Show(app.NoticeOf(err, "The server's models could not be listed.", nil))
		return
	}
	if len(models) == 0 {
		s.EndpointStatus.SetText("")
		s.Banner.Show(app.Notice{Message: "The server lists no model.", Action: "Wait until it has finished loading, then press Detect models again."})
		return
	}
	ids := make([]string, len(models))
	for i, m := range models {
		ids[i] = m.ID
	}
	s.Model.SetOptions(ids)
	s.Model.SetText(ids[0])
	s.endpointCap.MaxModelLen = models[0].MaxModelLen
	msg := fmt.Sprintf("Found %s: %s.", engine.Count(len(ids), "model", "models"), strings.Join(ids, ", "))
	if n := s.endpointCap.MaxModelLen; n > 0 {
		msg += fmt.Sprintf(" Max model length %s tokens.", report.Int(n))
	}
	s.EndpointStatus.SetText(msg)
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
func (s *Tab) learnFromRun() {
	found := s.u.State.Run.Found
	if s.Kind == nil || s.Kind.Selected != app.TargetEndpoint || found.Endpoint == "" || found.Endpoint != secret.URL(strings.TrimSpace(s.Url.Text)) {
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
