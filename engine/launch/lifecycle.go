package launch

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
)

// readyPoll is how often WaitReady asks the server whether it is ready.
var readyPoll = 250 * time.Millisecond

// ServerError says why a server failed to start or died: the reason, the
// failure recognised in its log (if any) and its last log lines.
type ServerError struct {
	Server    string // "vLLM", "SGLang"
	Reason    string // e.g. "exited (exit status 1) before it was ready"
	Fatal     *Fatal
	LastLines []string
	LogPath   string
}

// Error is a summary line, then the last log lines, indented.
func (e *ServerError) Error() string {
	var b strings.Builder
	b.WriteString(cmp.Or(e.Server, "vLLM") + " server " + e.Reason)
	if e.Fatal != nil {
		b.WriteString(": " + e.Fatal.Error())
	} else {
		b.WriteString(": see its last log lines below")
	}
	if e.LogPath != "" {
		b.WriteString("; its whole log is kept in " + e.LogPath)
	}
	if len(e.LastLines) > 0 {
		b.WriteString("\nlast log lines:")
		for _, l := range e.LastLines {
			b.WriteString("\n  " + l)
		}
	}
	return b.String()
}

// Unwrap gives the recognised Fatal, so errors.As(err, &launch.Fatal{}) works.
func (e *ServerError) Unwrap() error {
	if e.Fatal == nil {
		return nil
	}
	return *e.Fatal
}

// WaitReady waits until /health answers 200 and /v1/models lists the served
// model name (or, for SGLang, until its log says "The server is fired up
// and ready to roll!"). It fails when the process exits first, when the start-up
// timeout passes or when ctx ends; then it stops the server, so nothing is
// left running.
func (s *Server) WaitReady(ctx context.Context) error {
	if err := s.waitReady(ctx); err != nil {
		_ = s.Stop()
		return err
	}
	s.ready.Store(true)
	s.fetchVersion(ctx)
	return nil
}

func (s *Server) waitReady(ctx context.Context) error {
	timeout := time.NewTimer(s.cfg.StartupTimeout)
	defer timeout.Stop()
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
	client := &http.Client{Timeout: 5 * time.Second}
	for {
		last := s.probe(ctx, client)
		if last == nil {
			return nil
		}
		select {
		case <-s.exited:
			if s.stopped.Load() {
				return fmt.Errorf("start %s: %w", s.cfg.flavor().name, ErrStopped)
			}
			// End what it left running (vLLM's engine core) before
			// reading its last words, so the log reaches its end.
			_ = s.shutdown()
			err := s.exitError("exited (%s) before it was ready")
			if s.cfg.Runner != RunnerDocker && !s.Facts().LooksLikeServer {
				return notServer(s.cfg.flavor(), s.cfg.Executable, err)
			}
			return err
		case <-ctx.Done():
			return fmt.Errorf("start %s: %w", s.cfg.flavor().name, ctx.Err())
		case <-timeout.C:
			return s.serverError(fmt.Sprintf("was not ready after %v (last check: %v): raise startup_timeout if the model is still downloading or loading",
				s.cfg.StartupTimeout, last))
		case <-tick.C:
		}
	}
}

// probe returns nil when the server is ready.
func (s *Server) probe(ctx context.Context, c *http.Client) error {
	if s.cfg.flavor().readyLine && s.Facts().Started {
		return nil
	}
	if err := s.get(ctx, c, "/health", nil); err != nil {
		return err
	}
	var models struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := s.get(ctx, c, "/v1/models", &models); err != nil {
		return err
	}
	for _, m := range models.Data {
		if m.ID == s.cfg.servedName() {
			return nil
		}
	}
	return fmt.Errorf("/v1/models does not list %q yet", s.cfg.servedName())
}

func (s *Server) get(ctx context.Context, c *http.Client, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.baseURL()+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.cfg.APIKey)
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s answered %s", path, resp.Status)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(out); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}

// fetchVersion asks the server (/version, SGLang's /get_server_info) when
// the log did not name the version.
func (s *Server) fetchVersion(ctx context.Context) {
	if s.Facts().Version != "" {
		return
	}
	for _, path := range s.cfg.flavor().versionPaths {
		var v struct {
			Version string `json:"version"`
		}
		if err := s.get(ctx, &http.Client{Timeout: 5 * time.Second}, path, &v); err == nil && v.Version != "" {
			s.mu.Lock()
			s.apiVersion = v.Version
			s.mu.Unlock()
			return
		}
	}
}

// Stop ends the server: SIGINT to its process group, then after StopGrace
// SIGTERM, then after StopGrace again SIGKILL. It returns once the group is
// gone (or reports the processes that survived). A server that was ready
// and ran until this Stop has stopped normally: its temporary log goes
// (TemporaryLog). It is safe to call more than once and from several
// goroutines.
func (s *Server) Stop() error {
	var byItself bool
	select {
	case <-s.exited:
		byItself = !s.stopped.Load()
	default:
	}
	s.stopped.Store(true)
	err := s.shutdown()
	if err == nil && !byItself && s.ready.Load() && s.TemporaryLog() {
		_ = os.Remove(s.logPath)
	}
	return err
}

// shutdown ends the process group once; Stop and the detection of a dead
// server share it.
func (s *Server) shutdown() error {
	s.stopOnce.Do(func() {
		s.mu.Lock()
		undo := s.stopAfter
		s.mu.Unlock()
		if undo != nil {
			undo()
		}
		s.stopErr = s.terminate()
	})
	return s.stopErr
}

func (s *Server) terminate() error {
	grace := s.cfg.StopGrace
	for _, step := range []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGINT, grace}, {syscall.SIGTERM, grace}, {syscall.SIGKILL, 10 * time.Second}} {
		if !groupAlive(s.pgid) {
			break
		}
		_ = signalGroup(s.pgid, step.sig)
		if waitGroupGone(s.pgid, step.wait) {
			break
		}
	}
	if s.cfg.Runner == RunnerDocker {
		removeContainer(containerName(s.cfg))
	}
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case <-s.exited:
	case <-t.C:
	}
	s.waitReader(2 * time.Second)
	if groupAlive(s.pgid) {
		return fmt.Errorf("stop %s: processes of group %d survived SIGKILL: check `ps -g %d` and nvidia-smi, and kill them", s.cfg.flavor().name, s.pgid, s.pgid)
	}
	return nil
}

// waitGroupGone polls until no live process is left in the group, or d passes.
func waitGroupGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// removeContainer makes sure a docker container is gone even when its
// client was killed (a killed `docker run` leaves the container running).
func removeContainer(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = exec.CommandContext(ctx, "docker", "rm", "-f", name).Run()
}

// engineInfo is the report's Engine section for this server: the engine
// ("vllm", "sglang"), version and commit from its log (or /version,
// SGLang's /get_server_info), quantization from the config or the log (the
// dtype when the model is not quantized), build (the venv or the image)
// and the KV cache size the engine reported.
func (s *Server) engineInfo() engine.ServerInfo {
	f := s.Facts()
	s.mu.Lock()
	version := f.Version
	if version == "" {
		version = s.apiVersion
	}
	s.mu.Unlock()
	commit := f.Commit
	if commit == "" {
		commit = commitFromVersion(version)
	}
	quant := s.cfg.Quantization
	if quant == "" {
		quant = f.Quantization
	}
	if quant == "" {
		dtype := s.cfg.DType
		if dtype == "" || dtype == "auto" {
			dtype = f.DType
		}
		quant = dtypeLabel(dtype)
	}
	maxLen := cmp.Or(s.cfg.MaxModelLen, f.ConcurrencyTokens)
	fl := s.cfg.flavor()
	// The stand-in is known to be the simulator before it answers; which
	// profile it serves, its /version says (measure reads it).
	return engine.ServerInfo{
		Name: fl.name, Version: version, Quantization: quant, Backend: s.backend(), Simulated: s.standIn,
		Repository: fl.repository, Build: buildInfo(s.cfg, s.exe), Commit: commit,
		KVCacheTokens: f.KVCacheTokens, MaxNumSeqs: cmp.Or(s.cfg.MaxNumSeqs, f.MaxRunningRequests), MaxModelLen: maxLen,
	}
}

// dtypeLabel writes a torch dtype the way the reference reports do ("BF16").
func dtypeLabel(dtype string) string {
	switch strings.ToLower(dtype) {
	case "":
		return ""
	case "bfloat16":
		return "BF16"
	case "float16", "half":
		return "FP16"
	case "float32", "float":
		return "FP32"
	}
	return strings.ToUpper(dtype)
}

// Subject is what measure.Run needs to measure this server: its address,
// key and served model, Alive (so a server that dies ends the run) and the
// report's Engine section, Run model and Launch command.
func (s *Server) Subject() measure.Subject {
	t := measure.Subject{Target: measure.Target{BaseURL: s.baseURL(), APIKey: s.cfg.APIKey, Model: s.cfg.servedName()}}
	t.Alive = s.alive
	t.ServingGPUs = s.cfg.servingGPUs()
	t.Header.Server = s.engineInfo()
	t.Header.LaunchCommand = s.display
	t.Header.Run.Model = s.cfg.Model
	t.Header.Run.ServedModel = s.cfg.servedName()
	t.Header.Run.Revision = s.cfg.Revision
	t.Header.Run.Endpoint = s.baseURL()
	t.Header.Hardware = s.Hardware(engine.HardwareInfo{})
	return t
}

// Hardware is the Hardware section of this server, from local, what was
// detected on this machine: on the CPU, that CPU and the build that served
// on it, and no GPU (engine.HardwareInfo.ServeOnCPU); on a Ray cluster,
// local with a note naming the cluster.
func (s *Server) Hardware(local engine.HardwareInfo) engine.HardwareInfo {
	h := local
	if s.OnCPU() {
		h.ServeOnCPU(s.cpuServer())
		return h
	}
	if s.ray != nil {
		h.AddNote("vLLM runs on the " + s.ray.describe() + ".")
	}
	return h
}

// OnCPU reports whether the server runs on the CPU: its device resolved
// to "cpu" at launch, or its log says vLLM picked its CPU platform; never
// for the stand-in, whose simulator serves on no device of this machine.
func (s *Server) OnCPU() bool {
	return !s.standIn && (s.cfg.Device == DeviceCPU || s.Facts().Platform == DeviceCPU)
}

// StandIn reports whether the server is Speed Matrix's stand-in for vllm
// serve (StandIn): everything measured against it is simulated.
func (s *Server) StandIn() bool { return s.standIn }

// backend is the Engine section's backend: "cpu" or "cuda"; none for the
// stand-in, which has none (as the in-process simulator's report has none).
func (s *Server) backend() string {
	switch {
	case s.standIn:
		return ""
	case s.OnCPU():
		return "cpu"
	}
	return "cuda"
}

// cpuServer names what serves on the CPU: "vLLM CPU build 0.32.0", else
// "vLLM 0.32.0 on the CPU" from the version the server reported.
func (s *Server) cpuServer() string {
	if s.cpuBuild != nil {
		return s.cpuBuild.String()
	}
	v := s.Facts().Version
	s.mu.Lock()
	v = cmp.Or(v, s.apiVersion)
	s.mu.Unlock()
	return strings.Join(strings.Fields(s.cfg.flavor().title()+" "+v), " ") + " on the CPU"
}

// rayCluster is the Ray cluster the server runs on, as `ray status` saw it
// before the start; nil unless distributed_executor_backend is "ray".
func (s *Server) rayCluster() *RayCluster { return s.ray }
