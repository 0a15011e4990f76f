package capture

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/secret"
	"speedmatrix/engine/servers"
)

// errNoDocker is why a container's details are missing without the CLI.
var errNoDocker = errors.New("docker is not installed")

// containerIDPattern finds a Docker container's id in /proc/PID/cgroup:
// ".../docker/ID" (cgroupfs) or ".../docker-ID.scope" (systemd).
var containerIDPattern = regexp.MustCompile(`(?:/docker/|docker-)([0-9a-f]{64})`)

// containerID is the id of the Docker container whose cgroup the text of
// /proc/PID/cgroup names, or "".
func containerID(cgroup string) string {
	if m := containerIDPattern.FindStringSubmatch(cgroup); m != nil {
		return m[1]
	}
	return ""
}

// inspected is the part of `docker inspect` that Read records.
type inspected struct {
	ID    string   `json:"Id"`
	Name  string   `json:"Name"` // "/vllm"
	Path  string   `json:"Path"` // the entrypoint's program
	Args  []string `json:"Args"` // the rest of the entrypoint, then the command
	State struct {
		Pid       int       `json:"Pid"`
		StartedAt time.Time `json:"StartedAt"`
	} `json:"State"`
	Config struct {
		User  string   `json:"User"`
		Env   []string `json:"Env"`
		Image string   `json:"Image"` // as given to docker run: "vllm/vllm-openai:v0.32.0"
	} `json:"Config"`
	NetworkSettings struct {
		Ports map[string][]struct {
			HostIP   string `json:"HostIp"`
			HostPort string `json:"HostPort"`
		} `json:"Ports"`
	} `json:"NetworkSettings"`
}

// parseInspect reads the output of `docker inspect`.
func parseInspect(b []byte) ([]inspected, error) {
	var out []inspected
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("read docker inspect: %w", err)
	}
	return out, nil
}

// publishes reports whether c publishes a TCP port on hostPort.
func (c inspected) publishes(hostPort int) bool {
	want := strconv.Itoa(hostPort)
	for port, binds := range c.NetworkSettings.Ports {
		if !strings.HasSuffix(port, "/tcp") {
			continue
		}
		for _, b := range binds {
			if b.HostPort == want {
				return true
			}
		}
	}
	return false
}

// inspect asks docker about the container with id.
func inspect(ctx context.Context, h host, id string) (inspected, error) {
	b, err := h.docker(ctx, "inspect", id)
	if err != nil {
		return inspected{}, err
	}
	cs, err := parseInspect(b)
	if err != nil || len(cs) == 0 {
		return inspected{}, cmp.Or(err, fmt.Errorf("docker inspect %s: no such container", id))
	}
	return cs[0], nil
}

// publishing finds the running container that publishes hostPort.
func publishing(ctx context.Context, h host, hostPort int) (inspected, bool, error) {
	ids, err := h.docker(ctx, "ps", "--quiet", "--no-trunc")
	if err != nil {
		return inspected{}, false, err
	}
	list := strings.Fields(string(ids))
	if len(list) == 0 {
		return inspected{}, false, nil
	}
	b, err := h.docker(ctx, append([]string{"inspect"}, list...)...)
	if err != nil {
		return inspected{}, false, err
	}
	cs, err := parseInspect(b)
	if err != nil {
		return inspected{}, false, err
	}
	for _, c := range cs {
		if c.publishes(hostPort) {
			return c, true, nil
		}
	}
	return inspected{}, false, nil
}

// container is c as the report names it.
func (c inspected) container() *engine.Container {
	id := c.ID
	if len(id) > 12 {
		id = id[:12]
	}
	return &engine.Container{ID: id, Name: strings.TrimPrefix(c.Name, "/"), Image: c.Config.Image}
}

// fromContainer records what docker knows of the server's container: its
// command and environment as the container was created, and when it started.
func fromContainer(p *engine.ServerProcess, c inspected) {
	p.Container = c.container()
	if p.PID == 0 {
		p.PID = c.State.Pid
	}
	if p.User == "" {
		p.User = c.Config.User
		if p.User == "" {
			p.User = "root" // docker's default
		}
	}
	if len(p.Command) == 0 && c.Path != "" {
		p.Command, p.From = redactArgv(append([]string{c.Path}, c.Args...)), "docker inspect"
		p.Env = secret.Env(c.Config.Env, servers.IsRelevantEnv)
		p.NotCaptured = ""
	}
	if p.ServerVersion == "" {
		p.ServerVersion = imageVersion(c.Config.Image)
	}
	if !c.State.StartedAt.IsZero() {
		p.StartedAt = c.State.StartedAt
	}
}
