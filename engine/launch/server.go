package launch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"speedmatrix/engine/secret"
)

// ErrStopped is what Alive reports after Stop.
var ErrStopped = errors.New("the server was stopped")

// errLines is how many of the last log lines an error carries.
const errLines = 20

// Server is a running `vllm serve` (or SGLang) process.
type Server struct {
	cfg     ServerConfig // with defaults and the API key filled in
	display string
	exe     string    // the program run: the vllm executable, or docker
	cmd     *exec.Cmd // the server's process, or its guard's
	pgid    int       // the server's process group
	secrets []string  // hidden in every log line (see secretsOf)
	logPath string
	logFile *os.File
	logs    *logBuffer
	ray     *RayCluster // the cluster it runs on, as ray status saw it before the start
	// cpuBuild is the CPU build of vLLM the executable runs, when it is one.
	cpuBuild *CPUBuild
	// standIn is set when the executable is Speed Matrix's stand-in for
	// vllm serve (StandIn): the simulator serves, on no device of this machine.
	standIn bool

	mu         sync.Mutex
	facts      LogFacts
	apiVersion string // from GET /version once ready

	exited     chan struct{} // closed once the main process has been reaped
	exitErr    error         // cmd.Wait's result, set before exited closes
	readerDone chan struct{} // closed when the log pipe reached EOF

	ready     atomic.Bool // WaitReady saw it ready
	stopped   atomic.Bool // Stop was called
	stopOnce  sync.Once
	stopErr   error
	deathOnce sync.Once
	deathErr  *ServerError // set when Alive found the server dead by itself
	stopAfter func() bool  // undoes the context.AfterFunc of Launch
}

// Launch starts cfg's server and returns at once, so the caller can show its
// log (Subscribe) while it loads; call WaitReady next. It applies defaults,
// decides the device (ResolveDevice: a CPU build of vLLM runs on the CPU),
// takes the API key from api_key_file or generates one when cfg has none,
// and checks what the server needs (the executable, or Docker and the
// image; a free port) before launching anything: what is missing is a
// *SetupError. The server lives until Stop or until ctx ends.
//
// vLLM gets the key in its environment (VLLM_API_KEY), never on a command
// line, and every secret it prints is redacted before its log is shown,
// kept or saved. In a program that calls RunGuardIfAsked the server runs
// under a guard that ends its whole tree (and removes its container) if our
// process dies without a Stop, SIGKILL included; otherwise only its main
// process gets the kernel's parent-death signal.
func Launch(ctx context.Context, cfg ServerConfig) (*Server, error) {
	cfg, build, isCPU := ResolveDevice(cfg.WithDefaults())
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cfg.flavor().name, err)
	}
	if err := checkPlatform(); err != nil {
		return nil, err
	}
	cfg, err := withKey(cfg)
	if err != nil {
		return nil, err
	}
	if err := preflight(ctx, cfg); err != nil {
		return nil, err
	}
	var cluster *RayCluster
	if cfg.usesRay() {
		if cluster, err = checkRay(ctx, cfg); err != nil {
			return nil, err
		}
	}
	s := &Server{cfg: cfg, display: Display(cfg), logs: newLogBuffer(logLines),
		exited: make(chan struct{}), readerDone: make(chan struct{}), ray: cluster, standIn: StandIn(cfg)}
	if isCPU {
		s.cpuBuild = &build
	}
	if err := s.start(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.stopAfter = context.AfterFunc(ctx, func() { _ = s.Stop() })
	s.mu.Unlock()
	return s, nil
}

// withKey is cfg with its API key: api_key, else the first line of
// api_key_file, else the engine's key variable (VLLM_API_KEY,
// SGLANG_API_KEY) of its env, else a new one.
func withKey(cfg ServerConfig) (ServerConfig, error) {
	var err error
	keyEnv := cfg.flavor().keyEnv
	switch {
	case cfg.APIKey != "":
	case cfg.APIKeyFile != "":
		cfg.APIKey, err = readKeyFile(cfg.APIKeyFile)
	case cfg.Env[keyEnv] != "":
		cfg.APIKey = cfg.Env[keyEnv]
	default:
		if cfg.APIKey, err = newAPIKey(); err != nil {
			err = fmt.Errorf("start %s: %w", cfg.flavor().name, err)
		}
	}
	return cfg, err
}

// start runs the command with its output going to the log file and ring.
func (s *Server) start() error {
	argv := Command(s.cfg)
	name := s.cfg.flavor().name
	exe, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("start %s: %w: %s", name, err, missingAdvice(s.cfg))
	}
	dir := s.cfg.LogDir
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("start %s: log dir: %w", name, err)
	}
	f, err := os.CreateTemp(dir, fmt.Sprintf("%s-%d-*.log", name, s.cfg.Port))
	if err != nil {
		return fmt.Errorf("start %s: log file: %w", name, err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		f.Close()
		return fmt.Errorf("start %s: %w", name, err)
	}
	env := environ(s.cfg, os.Environ())
	s.exe, s.secrets, s.logFile, s.logPath = exe, secretsOf(s.cfg, env), f, f.Name()
	s.record("$ " + s.display)
	container := ""
	if s.cfg.Runner == RunnerDocker {
		container = containerName(s.cfg)
	}
	argv[0] = exe
	p, err := startProcess(argv, env, pw, container)
	pw.Close()
	if err != nil {
		pr.Close()
		f.Close()
		return fmt.Errorf("start %s: %w: %s", name, err, missingAdvice(s.cfg))
	}
	s.cmd, s.pgid = p.cmd, p.pgid
	go s.readLog(pr)
	go func() {
		s.exitErr = p.cmd.Wait()
		p.release()
		close(s.exited)
	}()
	return nil
}

func missingAdvice(cfg ServerConfig) string {
	if cfg.Runner == RunnerDocker {
		return "install Docker with the NVIDIA Container Toolkit, or use runner = \"exec\""
	}
	fl := cfg.flavor()
	return fmt.Sprintf("install %s (%s) or set executable to a venv's bin/%s, or use runner = \"docker\"", fl.title(), fl.install, fl.venvProgram)
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

// logLine takes in a line of the server's output: its secrets redacted,
// it goes to the facts, the file and the ring.
func (s *Server) logLine(line string) {
	line = secret.Text(line, s.secrets...)
	s.mu.Lock()
	s.facts.add(s.cfg.flavor(), line)
	s.mu.Unlock()
	s.record(line)
}

// record writes a line to the file and the ring.
func (s *Server) record(line string) {
	s.mu.Lock()
	_, _ = s.logFile.WriteString(line + "\n")
	s.mu.Unlock()
	s.logs.add(line)
}

// config is the configuration the server runs with (defaults and the
// generated API key filled in).
func (s *Server) config() ServerConfig { return s.cfg }

// baseURL is where clients reach the server, e.g. http://127.0.0.1:8000.
func (s *Server) baseURL() string { return s.cfg.baseURL() }

// Display is the server's command line with secrets redacted.
func (s *Server) Display() string { return s.display }

// LogPath is the file holding the server's whole log.
func (s *Server) LogPath() string { return s.logPath }

// TemporaryLog reports whether the log is in the temporary folder (no
// log_dir), where Stop removes it once a server that was ready stops
// normally. A log that tells why a server failed (every ServerError names
// it) stays, and so does every log in a log_dir.
func (s *Server) TemporaryLog() bool { return s.cfg.LogDir == "" }

// Logs returns the last logLines lines of the server's log, oldest first.
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

// alive returns nil while the server runs; ErrStopped after Stop; and a
// *ServerError with the exit status, the reason and the last log lines when
// the server died by itself (what it left running is then ended too).
func (s *Server) alive() error {
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
	return &ServerError{Server: s.cfg.flavor().title(), Reason: reason, Fatal: s.Facts().Fatal, LastLines: s.logs.last(errLines), LogPath: s.logPath}
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
