package app

import (
	"errors"
	"path/filepath"

	"speedmatrix/engine/vllm"
)

// launchNotice is a server that did not start as the banner shows it: for
// a setting that cannot work on this machine (a vllm.SetupError), what is
// wrong and the field of the Server screen that fixes it; otherwise that it
// did not start and that its log says why. err is the detail.
func launchNotice(err error) notice {
	n := notice{Message: "The vLLM server did not start.",
		Action: "Its last lines are in Server log; fix the form and press Start server again.", Detail: err.Error()}
	var se *vllm.SetupError
	if !errors.As(err, &se) {
		return n
	}
	if words, ok := setupWords[se.Kind]; ok {
		n.Message, n.Action = words(se.Subject)
	}
	return n
}

// setupWords says, for each kind of setup problem and the path, image or
// port it is about, what is wrong and what to change, in the app's words.
var setupWords = map[vllm.SetupKind]func(subject string) (message, action string){
	vllm.SetupNoExecutable: func(exe string) (string, string) {
		return "vLLM cannot be run from " + exe + ".",
			"Set Executable under How to run to the bin/vllm of the environment where vLLM is installed, or install it (pip install vllm)."
	},
	vllm.SetupNotVLLM: func(exe string) (string, string) {
		return exe + " is not vLLM: it stopped before it was ready without printing anything vLLM prints.",
			"Set Executable under How to run to the bin/vllm of an environment where vLLM is installed."
	},
	vllm.SetupVenvNoVLLM: func(venv string) (string, string) {
		return "The environment " + venv + " has no vLLM.",
			"Install it there (" + filepath.Join(venv, "bin", "pip") + " install vllm), or set Executable under How to run to another environment's bin/vllm."
	},
	vllm.SetupNoDocker: func(string) (string, string) {
		return "Docker is not installed.", "Install Docker with the NVIDIA Container Toolkit, or choose exec as Runner under How to run."
	},
	vllm.SetupDockerDown: func(string) (string, string) {
		return "Docker is not running, or does not let you in.",
			"Start Docker (sudo systemctl start docker) or add yourself to the docker group; or choose exec as Runner under How to run."
	},
	vllm.SetupNoImage: func(image string) (string, string) {
		return "The Docker image " + image + " is not on this machine.",
			"Pull it first (docker pull " + image + "), or set Docker image under How to run to one you have."
	},
	vllm.SetupPortInUse: func(port string) (string, string) {
		return "Port " + port + " is already in use, perhaps by another vLLM server.",
			"Stop that server, or set Port under Network to another one."
	},
	vllm.SetupNoRay: func(exe string) (string, string) {
		return "Ray cannot be run from " + exe + ", and the Executor is Ray cluster.",
			"Install Ray where vLLM is (pip install 'ray[default]'), or choose another Executor under GPU memory and parallelism."
	},
	vllm.SetupRayDown: func(address string) (string, string) {
		if address == "" {
			address = "this node's"
		}
		return "The Ray cluster (" + address + ") does not answer ray status.",
			"Start Ray on every node (ray start, the head first), or set Ray address under GPU memory and parallelism."
	},
	vllm.SetupRayNoGPUs: func(need string) (string, string) {
		return "The Ray cluster has fewer free GPUs than the " + need + " that tensor × pipeline × data parallel need.",
			"Add GPU nodes to the cluster, or lower Tensor parallel, Pipeline parallel or Data parallel under GPU memory and parallelism."
	},
	vllm.SetupKeyFile: func(path string) (string, string) {
		return "The API key file " + path + " cannot be read, or is empty.",
			"Make it a file you can read with the key on its first line, or type the key in API key under Network."
	},
}
