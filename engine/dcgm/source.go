package dcgm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/telemetry"
)

// defaultTimeout bounds one scrape of one exporter.
const defaultTimeout = 2 * time.Second

// maxPageBytes bounds an exporter page: 8 GPUs with every field are ~200 KB.
const maxPageBytes = 8 << 20

// Options configure open; zero values are the defaults.
type Options struct {
	Client  *http.Client     // default: http.DefaultClient
	Timeout time.Duration    // per scrape; default defaultTimeout
	Now     func() time.Time // when an exporter went quiet; default time.Now
}

// URLError is an exporter that open could not read: its URL and why.
type URLError struct {
	URL string
	Err error
}

func (e *URLError) Error() string { return e.URL + ": " + e.Err.Error() }
func (e *URLError) Unwrap() error { return e.Err }

// source scrapes every exporter once per Read, concurrently, and numbers
// the GPUs of all of them in one sequence (node by node, in the order of the
// URLs), so that the run's telemetry, J/token and throttle verdict cover
// every GPU seen. It implements telemetry.Source. An exporter that stops
// answering leaves its GPUs out of the samples until it answers again;
// notes says when.
type source struct {
	opt    Options
	ends   []*endpoint
	ctx    context.Context
	cancel context.CancelFunc

	mu    sync.Mutex
	index map[string]int // host/UUID → GPU index in the samples
	gpus  []engine.GPUInfo
}

var _ telemetry.Source = (*source)(nil)

// endpoint is one exporter and the times it went quiet.
type endpoint struct {
	url, host string // host: the URL's, for GPUs without a Hostname label
	outages   []outage
}

// outage is a time an exporter did not answer: from the first scrape that
// failed to the first that answered again (zero while it still fails).
type outage struct {
	lost, back time.Time
	why        string
}

// down is the outage in progress, or nil.
func (e *endpoint) down() *outage {
	if n := len(e.outages); n > 0 && e.outages[n-1].back.IsZero() {
		return &e.outages[n-1]
	}
	return nil
}

// ErrNotURL is why an exporter address that is not an http(s) URL fails.
var ErrNotURL = errors.New("not an http(s) URL (e.g. http://node2:9400/metrics)")

// CheckURL is a *URLError wrapping ErrNotURL when raw is not an http(s)
// URL with a host, nil when it is; it asks nothing of the exporter.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &URLError{URL: raw, Err: ErrNotURL}
	}
	return nil
}

// open checks that every URL is an http(s) URL that answers with DCGM
// exporter metrics, and takes the GPUs it lists as the run's hardware. It
// fails with a *URLError on the first that doesn't.
func open(ctx context.Context, urls []string, opt Options) (*source, error) {
	if len(urls) == 0 {
		return nil, errors.New("no exporter URL")
	}
	if opt.Client == nil {
		opt.Client = http.DefaultClient
	}
	if opt.Timeout <= 0 {
		opt.Timeout = defaultTimeout
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	s := &source{opt: opt, index: map[string]int{}}
	for _, raw := range urls {
		if err := CheckURL(raw); err != nil {
			return nil, err
		}
		u, _ := url.Parse(raw)
		s.ends = append(s.ends, &endpoint{url: raw, host: u.Hostname()})
	}
	for _, e := range s.ends {
		rs, err := s.scrape(ctx, e.url)
		if err != nil {
			return nil, &URLError{URL: e.url, Err: err}
		}
		s.add(e, rs)
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s, nil
}

// GPUs are the GPUs seen so far, in index order, for the Hardware section.
func (s *source) GPUs() []engine.GPUInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]engine.GPUInfo(nil), s.gpus...)
}

// Read scrapes every exporter and returns one sample of all their GPUs.
// The CPU is not this machine's concern here: CPUUtilPct is NaN.
func (s *source) Read() telemetry.Sample {
	pages := make([][]reading, len(s.ends))
	errs := make([]error, len(s.ends))
	var wg sync.WaitGroup
	for i, e := range s.ends {
		wg.Go(func() { pages[i], errs[i] = s.scrape(s.ctx, e.url) })
	}
	wg.Wait()
	smp := telemetry.Sample{CPUUtilPct: math.NaN()}
	now := s.opt.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, e := range s.ends {
		if errs[i] != nil {
			if e.down() == nil {
				e.outages = append(e.outages, outage{lost: now, why: errs[i].Error()})
			}
			continue
		}
		if o := e.down(); o != nil {
			o.back = now
		}
		for _, r := range pages[i] {
			smp.GPUs = append(smp.GPUs, s.sampleOf(e, r))
		}
	}
	return smp
}

// Close stops a scrape in flight.
func (s *source) Close() error {
	s.cancel()
	return nil
}

// notes say, one sentence per time an exporter went quiet during the run,
// when it stopped and whether it came back.
func (s *source) notes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.ends {
		for _, o := range e.outages {
			n := fmt.Sprintf("GPU telemetry from the DCGM exporter %s stopped at %s (%s): the cells after that leave its GPUs out",
				e.url, stamp(o.lost), o.why)
			if !o.back.IsZero() {
				n += ", until it answered again at " + stamp(o.back)
			}
			out = append(out, n+".")
		}
	}
	return out
}

// gap names the exporters that did not answer at some time in [from, to],
// "" when all did.
func (s *source) gap(from, to time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var quiet []string
	for _, e := range s.ends {
		for _, o := range e.outages {
			if !o.lost.After(to) && (o.back.IsZero() || o.back.After(from)) {
				quiet = append(quiet, e.url)
				break
			}
		}
	}
	if len(quiet) == 0 {
		return ""
	}
	return "the DCGM exporter " + strings.Join(quiet, ", ") + " did not answer"
}

func stamp(t time.Time) string { return t.UTC().Format("15:04:05 UTC") }

// add numbers the GPUs of one page that are new; s.mu is held or not yet shared.
func (s *source) add(e *endpoint, rs []reading) {
	for _, r := range rs {
		s.indexOf(e, r)
	}
}

// indexOf is r's index in the samples, given one the first time it is seen.
func (s *source) indexOf(e *endpoint, r reading) int {
	host := r.Host
	if host == "" {
		host = e.host
	}
	key := host + "/" + r.UUID + "/" + fmt.Sprint(r.GPU)
	if i, ok := s.index[key]; ok {
		return i
	}
	i := len(s.gpus)
	s.index[key] = i
	s.gpus = append(s.gpus, engine.GPUInfo{Index: i, Host: host, Name: r.Model, UUID: r.UUID,
		VRAMBytes: uint64(r.vramMiB()) << 20, DriverVersion: r.Driver})
	return i
}

func (s *source) sampleOf(e *endpoint, r reading) engine.GPUSample {
	g := engine.GPUSample{Index: s.indexOf(e, r), UUID: r.UUID, UtilizationPct: r.UtilizationPct, MemoryUsedMiB: r.FBUsedMiB,
		PowerW: r.PowerW, TemperatureC: r.TemperatureC, SMClockMHz: r.SMClockMHz, MemClockMHz: r.MemClockMHz,
		PCIeRxMBs: r.PCIeRxMBs, PCIeTxMBs: r.PCIeTxMBs,
		ClockEventReasons: r.ClockEventReasons, ClockEventsRead: r.ClockEventsRead}
	if !math.IsNaN(r.EnergyMJ) {
		g.EnergyMJ, g.EnergySource = r.EnergyMJ, engine.EnergyFromDCGM
	}
	return g
}

// scrape reads and parses one exporter page. Its errors are short, one
// line, without the URL (the caller has it).
func (s *source) scrape(ctx context.Context, u string) ([]reading, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opt.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.opt.Client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("no answer within %v", s.opt.Timeout)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("no answer: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("answered HTTP %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxPageBytes))
	if err != nil {
		return nil, fmt.Errorf("answer cut short: %w", err)
	}
	rs, err := parse(string(body))
	if err != nil {
		return nil, fmt.Errorf("%w: is it a DCGM exporter's /metrics?", err)
	}
	return rs, nil
}
