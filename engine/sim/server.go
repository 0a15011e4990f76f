package sim

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"sync"
	"time"

	"speedmatrix/engine"
)

// Server is a simulated vLLM server. It implements http.Handler; its
// scheduler runs on its own goroutine from New until Close.
type Server struct {
	opts   Options
	prof   Profile
	scale  float64
	tok    *tokenizer
	lm     *pseudoModel // what the model predicts: text and logprobs
	start  time.Time
	mux    *http.ServeMux
	inbox  chan message
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	faults faultState
	intake chan struct{} // slots for reading and tokenising prompts (see tokenized)

	mu      sync.Mutex // guards what /metrics reads
	metrics metricsState
	sglang  sglangState // SGLang mode's open requests and abort counts
	core    *core       // owned by the scheduler goroutine
}

// intakeSlots is how many requests' prompts are read and tokenised at once:
// about the cores a desktop gives the simulator, so that tokenising is not
// slower than with one goroutine a request.
const intakeSlots = 4

// New validates opts.Profile and starts a server with its scheduler.
func New(opts Options) (*Server, error) {
	if err := opts.Profile.Validate(); err != nil {
		return nil, fmt.Errorf("new simulator: %w", err)
	}
	if err := opts.Faults.Validate(); err != nil {
		return nil, fmt.Errorf("new simulator: %w", err)
	}
	if err := opts.validateMode(); err != nil {
		return nil, fmt.Errorf("new simulator: %w", err)
	}
	if err := opts.Numerics.Validate(); err != nil {
		return nil, fmt.Errorf("new simulator: %w", err)
	}
	if err := opts.validateLogprobs(); err != nil {
		return nil, fmt.Errorf("new simulator: %w", err)
	}
	if opts.TimeScale < 0 {
		return nil, fmt.Errorf("new simulator: time scale %g is negative; use 0 or 1 for real time", opts.TimeScale)
	}
	s := &Server{
		opts:   opts,
		prof:   opts.Profile,
		scale:  opts.TimeScale,
		tok:    sharedTokenizer(),
		start:  time.Now(),
		inbox:  make(chan message, 4096),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		intake: make(chan struct{}, intakeSlots),
	}
	if s.scale == 0 {
		s.scale = 1
	}
	s.lm = newPseudoModel(s.tok, cmp.Or(s.prof.Model, s.prof.ServedModel), opts.Numerics)
	s.faults.rng = rand.New(rand.NewPCG(uint64(opts.Seed), 0xfa17))
	s.core = newCore(s.prof)
	s.core.noise = newNoiseState(s.prof.Noise, uint64(opts.Seed))
	s.metrics = newMetricsState()
	s.sglang = newSGLangState()
	s.core.onFirst = func(_ *seq, ttftS float64) { s.metrics.ttft.observe(ttftS, 1) }
	s.core.onITL = func(itlS float64, n int) { s.metrics.itl.observe(itlS, n) }
	s.core.genAtFinish = opts.Faults.GenTokensAtFinish
	s.core.addOtherLoad(opts.Faults.OtherLoad, 0)
	s.publishGauges()
	s.routes()
	go s.schedule()
	return s, nil
}

var (
	tokOnce   sync.Once
	tokShared *tokenizer
)

// sharedTokenizer builds the vocabulary once per process.
func sharedTokenizer() *tokenizer {
	tokOnce.Do(func() { tokShared = newTokenizer() })
	return tokShared
}

// Close stops the scheduler and ends every open stream. It is safe to call
// more than once.
func (s *Server) Close() {
	s.once.Do(func() { close(s.stop) })
	<-s.done
}

// KVCacheTokens is the size of the simulated KV cache in tokens.
func (s *Server) KVCacheTokens() int { return s.prof.KVCacheTokens }

// Profile is the profile the server simulates.
func (s *Server) Profile() Profile { return s.prof }

// ServeHTTP serves vLLM's HTTP API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// modelNowS is the model time now: real time since New times the scale.
func (s *Server) modelNowS() float64 { return time.Since(s.start).Seconds() * s.scale }

// realUntil is how long in real time until model time t.
func (s *Server) realUntil(tS float64) time.Duration {
	return engine.DurationOf((tS - s.modelNowS()) / s.scale)
}

// schedule is the scheduler goroutine: it runs steps back to back in model
// time, sleeping in real time until each step's end, so a server that falls
// behind catches up instead of drifting.
func (s *Server) schedule() {
	defer close(s.done)
	defer s.failAll()
	timer := time.NewTimer(time.Hour)
	nowS := 0.0
	for {
		for drained := false; !drained; {
			select {
			case m := <-s.inbox:
				s.receive(m)
			case <-s.stop:
				return
			default:
				drained = true
			}
		}
		if !s.core.busy() {
			// The next step starts when the next request leaves the front
			// end, however late this goroutine wakes for it.
			ready, ok := s.core.nextReadyS()
			if !ok || ready > s.modelNowS() {
				if !s.idle(timer, ready, ok) {
					return
				}
				continue
			}
			nowS = max(nowS, ready)
		}
		// A server that fell far behind (a starved CPU, a stopped
		// process) drops the lag rather than bursting it out: the burst
		// would land in some client's measurement window.
		nowS = max(nowS, s.modelNowS()-maxLag.Seconds()*s.scale)
		s.mu.Lock()
		dur := s.core.plan(nowS)
		s.publishGauges()
		s.mu.Unlock()
		if !s.core.planned() {
			// Nothing can run until a request leaves or arrives.
			if !s.idle(timer, 0, false) {
				return
			}
			continue
		}
		s.mu.Lock()
		s.metrics.load.begin(nowS, dur, s.core.busyPower())
		s.mu.Unlock()
		if !s.sleepUntil(timer, nowS+dur, s.core.firstTokenStep()) {
			return
		}
		nowS += dur
		s.mu.Lock()
		s.metrics.load.end()
		s.core.apply(nowS)
		s.publishGauges()
		s.mu.Unlock()
	}
}

// idle waits for a message or for model time ready (when ok).
func (s *Server) idle(timer *time.Timer, readyS float64, ok bool) bool {
	wait := time.Hour
	if ok {
		wait = s.realUntil(readyS)
	}
	timer.Reset(wait)
	select {
	case m := <-s.inbox:
		s.receive(m)
	case <-timer.C:
	case <-s.stop:
		return false
	}
	timer.Stop()
	return true
}

// maxLag is how far (in real time) the model may run behind the clock
// before the scheduler skips ahead.
const maxLag = 10 * time.Millisecond

// timerSlack is how late a timer may fire (about a millisecond on Linux).
const timerSlack = 1500 * time.Microsecond

// sleepUntil sleeps until model time tS; false if the server is closing.
// A late wake-up only delays the tokens of this step: the next step starts
// at tS in model time, so the rate holds. When precise (the step ends with
// a first token, whose latency a client measures), it sleeps short of tS
// and yields until then instead.
func (s *Server) sleepUntil(timer *time.Timer, tS float64, precise bool) bool {
	d := s.realUntil(tS)
	if precise {
		d -= timerSlack
	}
	if d > 20*time.Microsecond {
		timer.Reset(d)
		select {
		case <-timer.C:
		case <-s.stop:
			timer.Stop()
			return false
		}
	}
	for precise && s.realUntil(tS) > 0 {
		runtime.Gosched()
	}
	select {
	case <-s.stop:
		return false
	default:
		return true
	}
}

// failAll ends every stream still in the scheduler when it stops.
func (s *Server) failAll() {
	c := s.core
	for _, list := range [][]*seq{c.frontend, c.waiting, c.running} {
		for _, q := range list {
			q.out.fail()
		}
	}
	for {
		select {
		case m := <-s.inbox:
			m.q.out.fail()
		default:
			return
		}
	}
}

// publishGauges copies the scheduler's state for /metrics; s.mu is held.
func (s *Server) publishGauges() {
	s.metrics.running = len(s.core.running)
	s.metrics.waiting = len(s.core.waiting) + len(s.core.frontend)
	s.metrics.kvUsage = s.core.kv.usage()
	s.metrics.rate.add(s.modelNowS(), s.core.stats.stepTokens)
}
