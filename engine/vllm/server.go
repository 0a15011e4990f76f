package vllm

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// ErrStopped is what Alive reports after Stop.
var ErrStopped = errors.New("vLLM server was stopped")

// errLines is how many of the last log lines an error carries.
const errLines = 20

// Server is a running `vllm serve` process.
type Server struct {
	cfg     ServerConfig // with defaults and the API key filled in
	display string
	cmd     *exec.Cmd
	pgid    int
	logPath string
	logFile *os.File
	logs    *logBuffer

	mu         sync.Mutex
	facts      LogFacts
	apiVersion string // from GET /version once ready

	exited     chan struct{} // closed once the main process has been reaped
	exitErr    error         // cmd.Wait's result, set before exited closes
	readerDone chan struct{} // closed when the log pipe reached EOF

	stopped   atomic.Bool // Stop was called
	stopOnce  sync.Once
	stopErr   error
	deathOnce sync.Once
	deathErr  *ServerError // set when Alive found the server dead by itself
	stopAfter func() bool  // undoes the context.AfterFunc of Launch
}

// Start launches cfg's server and waits until it is ready (see Launch and
// WaitReady). On any error nothing is left running.
func Start(ctx context.Context, cfg ServerConfig) (*Server, error) {
	s, err := Launch(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := s.WaitReady(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Launch starts cfg's server and returns at once, so the caller can show its
// log (Subscribe) while it loads; call WaitReady next. It applies defaults,
// generates an API key when cfg has none, and reports a port already in use
// before launching anything. The server lives until Stop or until ctx ends.
//
// The kernel kills the server if our process dies (Linux Pdeathsig: it fires
// when the launching OS thread ends, so don't call Launch from a goroutine
// locked to a thread that exits). With runner "docker" that kills only the
// docker client; Stop also removes the container.
func Launch(ctx context.Context, cfg ServerConfig) (*Server, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("start vllm: %w", err)
	}
	if err := checkPlatform(); err != nil {
		return nil, err
	}
	if cfg.APIKey == "" {
		key, err := NewAPIKey()
		if err != nil {
			return nil, fmt.Errorf("start vllm: %w", err)
		}
		cfg.APIKey = key
	}
	if err := checkPortFree(cfg.Host, cfg.Port); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, display: Display(cfg), logs: newLogBuffer(LogLines),
		exited: make(chan struct{}), readerDone: make(chan struct{})}
	if err := s.start(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.stopAfter = context.AfterFunc(ctx, func() { _ = s.Stop() })
	s.mu.Unlock()
	return s, nil
}

// checkPortFree fails when host:port cannot be listened on.
func checkPortFree(host string, port int) error {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln.Close()
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("start vllm: port %d on %s is already in use (another vLLM server?): stop that server or choose another port, e.g. %d", port, host, port+1)
	}
	return fmt.Errorf("start vllm: cannot listen on %s: %w: set host to 127.0.0.1 or an address of this machine", addr, err)
}

// start runs the command with its output going to the log file and ring.
func (s *Server) start() error {
	argv := Command(s.cfg)
	cmd := exec.Command(argv[0], argv[1:]...)
	if cmd.Err != nil {
		return fmt.Errorf("start vllm: %w: %s", cmd.Err, missingAdvice(s.cfg))
	}
	dir := s.cfg.LogDir
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("start vllm: log dir: %w", err)
	}
	f, err := os.CreateTemp(dir, fmt.Sprintf("vllm-%d-*.log", s.cfg.Port))
	if err != nil {
		return fmt.Errorf("start vllm: log file: %w", err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		f.Close()
		return fmt.Errorf("start vllm: %w", err)
	}
	cmd.Env = Environ(s.cfg, os.Environ())
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = sysProcAttr()
	s.cmd, s.logFile, s.logPath = cmd, f, f.Name()
	s.logLine("$ " + s.display)
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		f.Close()
		return fmt.Errorf("start vllm: %w: %s", err, missingAdvice(s.cfg))
	}
	s.pgid = cmd.Process.Pid
	go s.readLog(pr)
	go func() {
		s.exitErr = cmd.Wait()
		close(s.exited)
	}()
	return nil
}

func missingAdvice(cfg ServerConfig) string {
	if cfg.Runner == RunnerDocker {
		return "install Docker with the NVIDIA Container Toolkit, or use runner = \"exec\""
	}
	return "install vLLM (pip install vllm) or set executable to a venv's bin/vllm, or use runner = \"docker\""
}

// readLog copies the server's output, line by line, to the file, the ring
// and the facts, until every process holding the pipe has exited.
func (s *Server) readLog(pr *os.File) {
	defer close(s.readerDone)
	defer func() {
		pr.Close()
		s.mu.Lock()
		s.logFile.Close()
		s.mu.Unlock()
	}()
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes+1)
	sc.Split(splitLines)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			s.logLine(line)
		}
	}
}

func (s *Server) logLine(line string) {
	s.mu.Lock()
	s.facts.Add(line)
	_, _ = s.logFile.WriteString(line + "\n")
	s.mu.Unlock()
	s.logs.add(line)
}

// Config is the configuration the server runs with (defaults and the
// generated API key filled in).
func (s *Server) Config() ServerConfig { return s.cfg }

// BaseURL is where clients reach the server, e.g. http://127.0.0.1:8000.
func (s *Server) BaseURL() string { return s.cfg.BaseURL() }

// Display is the server's command line with secrets redacted.
func (s *Server) Display() string { return s.display }

// LogPath is the file holding the server's whole log.
func (s *Server) LogPath() string { return s.logPath }

// Logs returns the last LogLines lines of the server's log, oldest first.
func (s *Server) Logs() []string { return s.logs.last(0) }

// Subscribe calls f with every new log line, from the goroutine that reads
// the log: f must return quickly (a UI hands the line to its own thread).
// The returned func stops the calls.
func (s *Server) Subscribe(f func(line string)) (cancel func()) { return s.logs.subscribe(f) }

// Facts returns what the log has told so far.
func (s *Server) Facts() LogFacts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.facts
}

// Alive returns nil while the server runs; ErrStopped after Stop; and a
// *ServerError with the exit status, the reason and the last log lines when
// the server died by itself (what it left running is then ended too).
func (s *Server) Alive() error {
	select {
	case <-s.exited:
	default:
		return nil
	}
	s.deathOnce.Do(func() {
		if !s.stopped.Load() {
			_ = s.shutdown()
			s.deathErr = s.exitError("exited (%s) while running")
		}
	})
	if s.deathErr != nil {
		return s.deathErr
	}
	return ErrStopped
}

// exitError describes the exited process; reason has one %s for its status.
func (s *Server) exitError(reason string) *ServerError {
	s.waitReader(2 * time.Second)
	status := "status unknown"
	if st := s.cmd.ProcessState; st != nil {
		status = st.String()
	}
	return s.serverError(fmt.Sprintf(reason, status))
}

func (s *Server) serverError(reason string) *ServerError {
	return &ServerError{Reason: reason, Fatal: s.Facts().Fatal, LastLines: s.logs.last(errLines), LogPath: s.logPath}
}

// waitReader waits, at most d, for the log reader to take in the last lines.
func (s *Server) waitReader(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.readerDone:
	case <-t.C:
	}
}

// buildInfo is the report's Build: the venv of the executable or the image.
func buildInfo(cfg ServerConfig, path string) string {
	if cfg.Runner == RunnerDocker {
		return cfg.DockerImage
	}
	if dir := filepath.Dir(path); filepath.Base(dir) == "bin" {
		return filepath.Dir(dir)
	}
	return path
}
