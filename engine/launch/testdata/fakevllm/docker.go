package main

import (
	"fmt"
	"os"
	"strings"
)

// fakeDocker is a Docker client for the tests. It appends each command line
// to the file FAKEDOCKER_LOG names. FAKEDOCKER_MODE "down" makes the daemon
// unreachable and "noimage" every image missing. "run" serves as fakevllm
// with the arguments after the image (the image's entrypoint is `vllm
// serve`), its -e variables set; "rm" does nothing.
func fakeDocker(args []string) int {
	if path := os.Getenv("FAKEDOCKER_LOG"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(f, "docker "+strings.Join(args, " "))
			f.Close()
		}
	}
	if len(args) == 0 {
		return 1
	}
	mode := os.Getenv("FAKEDOCKER_MODE")
	switch args[0] {
	case "info":
		if mode == "down" {
			fmt.Fprintln(os.Stderr, "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?")
			return 1
		}
		fmt.Println("28.2.2-fake")
	case "image":
		if mode == "noimage" {
			fmt.Fprintf(os.Stderr, "Error response from daemon: No such image: %s\n", args[len(args)-1])
			return 1
		}
		fmt.Println("sha256:fake")
	case "rm":
	case "run":
		dockerRun(args[1:])
	default:
		fmt.Fprintf(os.Stderr, "fake docker: unknown command %q\n", args[0])
		return 1
	}
	return 0
}

// dockerRun sets the -e variables (a bare -e NAME keeps ours, as docker
// passes the client's value) and serves the arguments after the image.
func dockerRun(args []string) {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-e" && i+1 < len(args):
			i++
			if k, v, ok := strings.Cut(args[i], "="); ok {
				os.Setenv(k, v)
			}
		case a == "--name" || a == "--gpus" || a == "-p" || a == "-v":
			i++
		case strings.HasPrefix(a, "-"):
		case i+1 < len(args) && args[i+1] == "python3":
			os.Exit(fakePython(args[i+2:])) // lmsysorg/sglang: the command is python3 …
		default:
			os.Args = append([]string{os.Args[0], "serve"}, args[i+1:]...)
			serveMain()
			return
		}
	}
	fmt.Fprintln(os.Stderr, "fake docker: run without an image")
	os.Exit(125)
}
