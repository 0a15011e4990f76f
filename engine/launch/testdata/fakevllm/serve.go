package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"speedmatrix/engine/sim"
)

// newServer builds the simulator for the command line it was given:
// FAKEVLLM_PROFILE (default tiny) with the model, served name, max model
// length, quantization and version of the command; FAKEVLLM_STARTUP_DELAY
// keeps /health at 503 for a while. It returns the handler, the KV cache
// size and the max model length.
func newServer(a args, version string) (http.Handler, int, int) {
	name := os.Getenv("FAKEVLLM_PROFILE")
	if name == "" {
		name = "tiny"
	}
	p, err := sim.LookupProfile(name)
	if err != nil {
		fail(err)
	}
	p.Model, p.ServedModel, p.Version = a.model, a.served, version
	if a.maxLen > 0 {
		p.MaxModelLen = a.maxLen
	}
	if a.quant != "" {
		p.Quantization = a.quant
	}
	delay, _ := time.ParseDuration(os.Getenv("FAKEVLLM_STARTUP_DELAY"))
	srv, err := sim.New(sim.Options{Profile: p, APIKey: a.apiKey, Faults: sim.Faults{StartupDelay: delay}})
	if err != nil {
		fail(err)
	}
	return srv, srv.KVCacheTokens(), p.MaxModelLen
}

func fail(err error) {
	fmt.Println("fakevllm:", err)
	os.Exit(2)
}

// serve listens on --host/--port and serves h; die adds /fake/die. It
// logs the lines vLLM logs once it listens, or SGLang's for a.sglang.
func serve(a args, h http.Handler, die bool) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(a.host, strconv.Itoa(a.port)))
	if err != nil {
		return err
	}
	if os.Getenv("FAKEVLLM_DAEMON") == "1" {
		startDaemon(ln.(*net.TCPListener))
	}
	mux := http.NewServeMux()
	mux.Handle("/", h)
	if a.sglang {
		sglangRoutes(mux, a)
		return http.Serve(ln, mux)
	}
	if die {
		mux.HandleFunc("/fake/die", func(w http.ResponseWriter, r *http.Request) {
			logf("EngineCore_DP0", "ERROR", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.")
			os.Exit(1)
		})
	}
	logf("APIServer", "INFO", "Starting vLLM API server 0 on http://%s", ln.Addr())
	logf("APIServer", "INFO", "Application startup complete.")
	return http.Serve(ln, mux)
}

// startDaemon starts, through a middle process that exits at once, a
// daemon in its own session that holds the listening socket: it is the
// server's grandchild, outside its process group, reparented when the
// middle process exits.
func startDaemon(ln *net.TCPListener) {
	f, err := ln.File()
	if err != nil {
		fail(err)
	}
	defer f.Close()
	cmd := exec.Command(os.Args[0], "--daemonize")
	cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = os.Stdout, os.Stderr, []*os.File{f}
	if err := cmd.Run(); err != nil {
		fail(err)
	}
}

// daemonize is the middle process: it starts the daemon and exits.
func daemonize() {
	cmd := exec.Command(os.Args[0], "--daemon")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{os.NewFile(3, "listener")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	fmt.Printf("fakevllm: daemon pid=%d\n", cmd.Process.Pid)
}

// daemon holds the listening socket (fd 3) until it is killed.
func daemon() {
	signal.Ignore(syscall.SIGHUP)
	if os.Getenv("FAKEVLLM_MODE") == "stubborn" {
		signal.Ignore(syscall.SIGINT, syscall.SIGTERM)
	}
	held := os.NewFile(3, "listener")
	defer held.Close()
	select {}
}
