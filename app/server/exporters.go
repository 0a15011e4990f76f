package server

import (
	"context"
	"errors"
	"strings"
	"time"

	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine/dcgm"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/secret"
)

// exporters are the DCGM exporters of the endpoint section's GPU metrics
// field while a run reads them: the GPUs and telemetry of a server on other
// machines (or of this one through its exporter), as the cli's
// --gpu-metrics reads them.
type exporters struct {
	Field *widget.Entry
	tel   *dcgm.Telemetry // nil until a run attaches them
	stop  func()
}

func newExporters() *exporters {
	e := &exporters{Field: widget.NewEntry()}
	e.Field.SetPlaceHolder("none: http://node1:9400/metrics, http://node2:9400/metrics")
	return e
}

// formItem is the field as the endpoint form shows it.
func (e *exporters) formItem() *widget.FormItem {
	item := widget.NewFormItem("GPU metrics", e.Field)
	item.HintText = "DCGM exporter URLs, comma-separated: the GPUs and telemetry of the server's machines"
	return item
}

// urls are the field's URLs.
func (e *exporters) urls() []string { return dcgm.SplitURLs(e.Field.Text) }

// check is the first URL of the field that is not an exporter address.
func (e *exporters) check() error {
	for _, u := range e.urls() {
		if err := dcgm.CheckURL(u); err != nil {
			return err
		}
	}
	return nil
}

// attach reads t's GPUs from the exporters and samples them for the run,
// ending the sampling of the run before; with no URL it changes nothing.
// An exporter that doesn't answer with DCGM metrics is a *dcgm.URLError.
func (e *exporters) attach(t *measure.Subject, interval time.Duration) error {
	e.end()
	urls := e.urls()
	if len(urls) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	tel, err := dcgm.Attach(ctx, urls, &t.Header, interval, dcgm.Options{})
	if err != nil {
		cancel()
		return err
	}
	e.tel, e.stop = tel, func() { tel.Stop(); cancel() }
	// The exporters number the GPUs their own way: J/token sums all of them.
	t.Telemetry, t.ServingGPUs = tel, nil
	return nil
}

// end stops sampling the exporters.
func (e *exporters) end() {
	if e.stop != nil {
		e.stop()
		e.tel, e.stop = nil, nil
	}
}

// saved is the field as the settings keep it, without passwords.
func (e *exporters) saved() string {
	urls := e.urls()
	for i, u := range urls {
		urls[i] = secret.URL(u)
	}
	return strings.Join(urls, ", ")
}

// exporterURL is the URL err, from check or attach, is about ("" when it
// is about none).
func exporterURL(err error) string {
	var ue *dcgm.URLError
	if errors.As(err, &ue) {
		return ue.URL
	}
	return ""
}
