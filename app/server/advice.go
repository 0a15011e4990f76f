package server

import (
	"cmp"
	"errors"
	"path/filepath"

	"speedmatrix/app"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/servers"
)

// LaunchNotice is a server that did not start as the banner shows it: for
// a setting that cannot work on this machine (a launch.SetupError), what is
// wrong and the field of the Server screen that fixes it; otherwise that it
// did not start and that its log says why. err is the detail.
func LaunchNotice(err error) app.Notice {
	title := "vLLM"
	var sv *launch.ServerError
	if errors.As(err, &sv) && sv.Server != "" {
		title = sv.Server
	}
	n := app.Notice{Message: "The " + title + " server did not start.",
		Action: "Its last lines are in Server log; fix the form and press Start server again.", Detail: err.Error()}
	var fatal launch.Fatal
	if errors.As(err, &fatal) {
		if words, ok := fatalWords[fatal.Kind]; ok {
			n.Message, n.Action = words(title)
		}
		return n
	}
	var se *launch.SetupError
	if !errors.As(err, &se) {
		return n
	}
	e := serverWords{title: cmp.Or(se.Server, servers.VLLMTitle), program: cmp.Or(se.Program, servers.VLLM)}
	if words, ok := setupWords[se.Kind]; ok {
		n.Message, n.Action = words(se.Subject, e)
	}
	return n
}

// serverWords name the engine in the app's words: "SGLang", and its
// program in a venv's bin ("python3").
type serverWords struct{ title, program string }

// fatalWords say, for the start-up failures the app explains itself, what
// happened and which fields to change.
var fatalWords = map[launch.FatalKind]func(title string) (message, action string){
	launch.FatalOutOfMemory: func(title string) (string, string) {
		return "The " + title + " server ran out of GPU memory while starting.",
			"Lower GPU memory utilization or Max model length under GPU memory and parallelism, or free the GPU (nvidia-smi shows what holds it), then press Start server again."
	},
	launch.FatalNotInstalled: func(title string) (string, string) {
		return "The Python of Executable has no " + title + ".",
			"Install " + title + " in that environment, or set Executable under How to run to an environment where it is installed."
	},
}

// setupWords says, for each kind of setup problem and the path, image or
// port it is about, what is wrong and what to change, in the app's words.
var setupWords = map[launch.SetupKind]func(subject string, e serverWords) (message, action string){
	launch.SetupNoExecutable: func(exe string, e serverWords) (string, string) {
		return e.title + " cannot be run from " + exe + ".",
			"Set Executable under How to run to the bin/" + e.program + " of the environment where " + e.title + " is installed, or install it."
	},
	launch.SetupNotVLLM: func(exe string, e serverWords) (string, string) {
		return exe + " is not " + e.title + ": it stopped before it was ready without printing anything " + e.title + " prints.",
			"Set Executable under How to run to the bin/" + e.program + " of an environment where " + e.title + " is installed."
	},
	launch.SetupVenvNoVLLM: func(venv string, e serverWords) (string, string) {
		return "The environment " + venv + " has no " + e.title + ".",
			"Install it there (with " + filepath.Join(venv, "bin", "pip") + "), or set Executable under How to run to another environment's bin/" + e.program + "."
	},
	launch.SetupNoDocker: func(_ string, e serverWords) (string, string) {
		return "Docker is not installed.", "Install Docker with the NVIDIA Container Toolkit, or choose exec as Runner under How to run."
	},
	launch.SetupDockerDown: func(_ string, e serverWords) (string, string) {
		return "Docker is not running, or does not let you in.",
			"Start Docker (sudo systemctl start docker) or add yourself to the docker group; or choose exec as Runner under How to run."
	},
	launch.SetupNoImage: func(image string, e serverWords) (string, string) {
		return "The Docker image " + image + " is not on this machine.",
			"Pull it first (docker pull " + image + "), or set Docker image under How to run to one you have."
	},
	launch.SetupPortInUse: func(port string, e serverWords) (string, string) {
		return "Port " + port + " is already in use, perhaps by another " + e.title + " server.",
			"Stop that server, or set Port under Network to another one."
	},
	launch.SetupNoRay: func(exe string, e serverWords) (string, string) {
		return "Ray cannot be run from " + exe + ", and the Executor is Ray cluster.",
			"Install Ray where vLLM is (pip install 'ray[default]'), or choose another Executor under GPU memory and parallelism."
	},
	launch.SetupRayDown: func(address string, e serverWords) (string, string) {
		if address == "" {
			address = "this node's"
		}
		return "The Ray cluster (" + address + ") does not answer ray status.",
			"Start Ray on every node (ray start, the head first), or set Ray address under GPU memory and parallelism."
	},
	launch.SetupRayNoGPUs: func(need string, e serverWords) (string, string) {
		return "The Ray cluster has fewer free GPUs than the " + need + " that tensor × pipeline × data parallel need.",
			"Add GPU nodes to the cluster, or lower Tensor parallel, Pipeline parallel or Data parallel under GPU memory and parallelism."
	},
	launch.SetupKeyFile: func(path string, e serverWords) (string, string) {
		return "The API key file " + path + " cannot be read, or is empty.",
			"Make it a file you can read with the key on its first line, or type the key in API key under Network."
	},
}
