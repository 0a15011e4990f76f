package launch

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"speedmatrix/engine/servers"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// SetupKind names what keeps a server from being launched on this machine,
// so that each front end can say in its own words where to fix it.
type SetupKind string

// The kinds of SetupError.
const (
	SetupNoExecutable SetupKind = "no-executable"     // the executable does not exist or cannot run
	SetupNotVLLM      SetupKind = "not-vllm"          // the executable ran, and it is not the engine (vLLM, SGLang)
	SetupVenvNoVLLM   SetupKind = "venv-without-vllm" // a venv without the engine's program in it
	SetupNoDocker     SetupKind = "no-docker"         // docker is not installed
	SetupDockerDown   SetupKind = "docker-not-running"
	SetupNoImage      SetupKind = "image-missing"
	SetupPortInUse    SetupKind = "port-in-use"
	SetupKeyFile      SetupKind = "key-file" // api_key_file cannot be read or is empty
)

// SetupError is a launch refused before (or, for SetupNotVLLM, just after)
// anything ran: what is wrong (Fact) and what to change, in server.toml's
// words (Fix). Subject is the executable, venv, image, port or file;
// Engine the engine in messages ("vLLM", "SGLang"; empty for vLLM) and
// Program its program in a venv's bin/ ("vllm", "python3").
type SetupError struct {
	Kind    SetupKind
	Subject string
	Fact    string
	Fix     string
	Err     error // the cause, if any
	Server  string
	Program string
}

// Error is one line: "start vllm: fact: fix".
func (e *SetupError) Error() string {
	return "start " + strings.ToLower(cmp.Or(e.Server, servers.VLLM)) + ": " + e.Fact + ": " + e.Fix
}

// Unwrap gives the cause.
func (e *SetupError) Unwrap() error { return e.Err }

// preflight checks what cfg's server needs of this machine before anything
// is started: a vLLM executable, or a running Docker that has the image,
// and a free port. Each failure is a *SetupError.
func preflight(ctx context.Context, cfg ServerConfig) error {
	var err error
	if cfg.Runner == RunnerDocker {
		err = checkDocker(ctx, cfg.DockerImage)
	} else {
		err = checkExecutable(cfg.flavor(), cfg.Executable)
	}
	if err == nil {
		err = checkPortFree(cfg.flavor().title(), cfg.Host, cfg.Port)
	}
	var se *SetupError
	if errors.As(err, &se) {
		se.Server, se.Program = cfg.flavor().title(), cfg.flavor().venvProgram
	}
	return err
}

// readKeyFile is the first line of an api_key_file.
func readKeyFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		var reason error = err
		if pe, ok := err.(*fs.PathError); ok {
			reason = pe.Err
		}
		return "", &SetupError{Kind: SetupKeyFile, Subject: path, Err: err,
			Fact: fmt.Sprintf("cannot read api_key_file %s (%v)", path, reason),
			Fix:  "make it a file you can read (chmod 600 " + path + "), or set api_key instead"}
	}
	line, _, _ := strings.Cut(string(b), "\n")
	if key := strings.TrimSpace(line); key != "" {
		return key, nil
	}
	return "", &SetupError{Kind: SetupKeyFile, Subject: path,
		Fact: "api_key_file " + path + " is empty", Fix: "write the key on its first line, or set api_key instead"}
}

// checkExecutable finds the program of an exec runner (vllm, SGLang's
// python3), and tells a venv without it from a path that leads nowhere.
func checkExecutable(fl *flavor, exe string) error {
	bad := func(kind SetupKind, subject, fact, fix string, err error) error {
		return &SetupError{Kind: kind, Subject: subject, Fact: fact, Fix: fix, Err: err}
	}
	fix := "set executable to the bin/" + fl.venvProgram + " of a venv where " + fl.title() + " is installed"
	if !strings.ContainsRune(exe, filepath.Separator) {
		if _, err := exec.LookPath(exe); err != nil {
			return bad(SetupNoExecutable, exe, exe+" is not on the PATH", "install "+fl.title()+" ("+fl.install+"), or "+fix, err)
		}
		return nil
	}
	st, err := os.Stat(exe)
	switch {
	case err == nil && st.IsDir():
		inside := filepath.Join(exe, "bin", fl.venvProgram)
		if isFile(inside) {
			return bad(SetupNoExecutable, exe, exe+" is a venv, not a program", "set executable to "+inside, nil)
		}
		if isVenv(exe) {
			return venvWithout(fl, exe, inside)
		}
		return bad(SetupNoExecutable, exe, exe+" is a folder, not a program", fix, nil)
	case err == nil && st.Mode()&0o111 == 0:
		return bad(SetupNoExecutable, exe, exe+" is not executable", "make it executable (chmod +x "+exe+"), or "+fix, nil)
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		if bin := filepath.Dir(exe); filepath.Base(bin) == "bin" && isVenv(filepath.Dir(bin)) {
			return venvWithout(fl, filepath.Dir(bin), exe)
		}
		return bad(SetupNoExecutable, exe, exe+" does not exist", fix, err)
	}
	return bad(SetupNoExecutable, exe, fmt.Sprintf("cannot use %s (%v)", exe, err), fix, err)
}

// venvWithout is the error of a venv without fl's program.
func venvWithout(fl *flavor, venv, exe string) error {
	return &SetupError{Kind: SetupVenvNoVLLM, Subject: venv,
		Fact: fmt.Sprintf("the venv %s has no %s (%s does not exist)", venv, fl.venvProgram, exe),
		Fix: fmt.Sprintf("install %s in it (%s), or set executable to the %s of another venv",
			fl.title(), filepath.Join(venv, "bin", fl.install), fl.venvProgram)}
}

// isVenv reports whether dir looks like a Python virtual environment.
func isVenv(dir string) bool {
	return isFile(filepath.Join(dir, "pyvenv.cfg")) || isFile(filepath.Join(dir, "bin", "python")) ||
		isFile(filepath.Join(dir, "bin", "activate"))
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

// notServer is the error of an executable that exited before it was ready
// without printing anything fl's engine prints.
func notServer(fl *flavor, exe string, exited error) error {
	return &SetupError{Kind: SetupNotVLLM, Subject: exe, Err: exited, Server: fl.title(), Program: fl.venvProgram,
		Fact: exe + " is not " + fl.title() + " (it exited before it was ready and printed nothing " + fl.title() + " prints)",
		Fix:  "set executable to the bin/" + fl.venvProgram + " of a venv where " + fl.title() + " is installed"}
}

// dockerTimeout bounds each question to docker.
const dockerTimeout = 30 * time.Second

// checkDocker finds docker, a daemon that answers, and the image.
func checkDocker(ctx context.Context, image string) error {
	if _, err := exec.LookPath("docker"); err != nil {
		return &SetupError{Kind: SetupNoDocker, Subject: "docker", Err: err, Fact: "docker is not installed (not on the PATH)",
			Fix: "install Docker with the NVIDIA Container Toolkit, or use runner = \"exec\""}
	}
	if out, err := docker(ctx, "info", "--format", "{{.ServerVersion}}"); err != nil {
		fix := "start it (sudo systemctl start docker), or use runner = \"exec\""
		if strings.Contains(out, "permission denied") {
			fix = "add yourself to the docker group (sudo usermod -aG docker $USER, then log in again), or use runner = \"exec\""
		}
		return &SetupError{Kind: SetupDockerDown, Subject: "docker", Err: err,
			Fact: "Docker is not running or does not answer (docker info: " + out + ")", Fix: fix}
	}
	if out, err := docker(ctx, "image", "inspect", "--format", "{{.Id}}", image); err != nil {
		return &SetupError{Kind: SetupNoImage, Subject: image, Err: err,
			Fact: "the image " + image + " is not on this machine (" + out + ")",
			Fix:  "pull it first: docker pull " + image + " (or set docker_image to an image you have)"}
	}
	return nil
}

// docker runs a docker command and returns the first line it printed.
func docker(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, dockerTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput()
	line, _, _ := strings.Cut(string(bytes.TrimSpace(out)), "\n")
	if line == "" && err != nil {
		line = err.Error()
	}
	return line, err
}

// checkPortFree fails when host:port cannot be listened on (by another
// server of engine, likely).
func checkPortFree(engine, host string, port int) error {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln.Close()
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return &SetupError{Kind: SetupPortInUse, Subject: strconv.Itoa(port), Err: err,
			Fact: fmt.Sprintf("port %d on %s is already in use (another %s server?)", port, host, engine),
			Fix:  fmt.Sprintf("stop that server or choose another port (port = %d)", port+1)}
	}
	return fmt.Errorf("start %s: cannot listen on %s: %w: set host to 127.0.0.1 or an address of this machine", strings.ToLower(engine), addr, err)
}
