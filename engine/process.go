package engine

import "time"

// ServerProcess is how the measured server was started, as read from its
// process on this machine: what an endpoint run records about a server the
// user started by hand. Secrets in it are already shown as <redacted>.
type ServerProcess struct {
	PID  int    `json:"pid,omitempty"`
	UID  int    `json:"uid"`
	User string `json:"user,omitempty"` // the login name of UID, when known
	// Command is the process's argv, every secret flag's value redacted.
	Command []string `json:"command,omitempty"`
	// From says where Command was read: "/proc/PID" or "docker inspect".
	From string `json:"from,omitempty"`
	// Env holds the variables that change how a server runs (see
	// servers.IsRelevantEnv), secret values redacted.
	Env       map[string]string `json:"env,omitempty"`
	StartedAt time.Time         `json:"started_at,omitzero"`
	// ServerVersion is the vLLM version the command runs, when it names
	// one: the venv's vllm package, or the image's tag.
	ServerVersion string `json:"engine_version,omitempty"`
	// Dir is the process's working directory, against which the relative
	// paths of its command (venv/bin/vllm, models/x) resolve; "" when not read.
	Dir string `json:"dir,omitempty"`
	// CPUBuild names the vLLM CPU build the command runs ("vLLM CPU build
	// 0.32.0"); "" for any other server.
	CPUBuild string `json:"cpu_build,omitempty"`
	// Container is set when the server runs in a Docker container.
	Container *Container `json:"container,omitempty"`
	// NotCaptured says why the command line could not be read: "the server
	// runs as another user (uid 1001)". Empty when it was read.
	NotCaptured string `json:"not_captured,omitempty"`
	// Notes say what else could not be read, one line each.
	Notes []string `json:"notes,omitempty"`
}

// Container is the Docker container a server runs in.
type Container struct {
	ID    string `json:"id"` // the short (12-character) id
	Name  string `json:"name,omitempty"`
	Image string `json:"image,omitempty"`
}
