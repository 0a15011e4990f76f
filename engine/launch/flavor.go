package launch

import (
	"fmt"
	"reflect"
	"regexp"
	"speedmatrix/engine/servers"
	"strings"
)

// Servers are the engines Launch can start, in the order a front end
// offers them: servers.Registry's entries that Launches.
var Servers = servers.Launchable()

// flavor is what differs between the engines Launch starts: how the command
// is built, where the API key goes, what the log says and what its failures
// mean. Everything else (the guard, the log, secrets, readiness, Stop, the
// docker runner) is the same machinery for every engine; a new engine is a
// new flavor in a file of its own.
type flavor struct {
	name        string // "sglang" as the report's Engine section names it (title: "SGLang")
	repository  string
	executable  string // the default program of an exec runner
	venvProgram string // that program in a venv's bin/
	install     string // the command that installs the engine
	image       string // the default docker image
	// keyEnv is the variable that carries the API key to the server, so
	// that it is never on a command line.
	keyEnv string
	// args is the engine's arguments for cfg: the address it binds and,
	// when key is not empty, --api-key key (what Display shows).
	args func(cfg ServerConfig, listenHost, key string) []string
	// entry is what comes before args: on the command that runs (run) and
	// on the one Display shows.
	entry func(run bool) []string
	// inImage is the command after a docker image, from entry and args.
	inImage func(run bool, args []string) []string
	// facts takes in one log line (ANSI codes removed).
	facts func(f *LogFacts, line string)
	// logPrefix matches the prefix of the engine's log lines (time, level,
	// process): a line with one, or naming the engine, is the engine's.
	logPrefix *regexp.Regexp
	// diagnoses are the engine's own start-up failures, checked before
	// sharedDiagnoses.
	diagnoses []diagnosis
	// readyLine: the log line that sets LogFacts.Started also means ready.
	readyLine bool
	// versionPaths are asked, in order, for the version the log did not name.
	versionPaths []string
	// problems are the settings this engine cannot honour beyond the keys
	// its servers.Entry does not support (unsupportedProblems).
	problems func(cfg ServerConfig) []error
}

// flavors are the flavors by engine name: each flavor's file registers its
// own, for the servers.Registry entry that Launches (a test checks that
// the two agree).
var flavors = map[string]*flavor{}

// register makes fl the flavor of its engine.
func register(fl *flavor) { flavors[fl.name] = fl }

func init() { register(&vllmFlavor) }

// vllmFlavor is `vllm serve`.
var vllmFlavor = flavor{
	name: servers.VLLM, repository: "github.com/vllm-project/vllm",
	executable: DefaultExecutable, venvProgram: servers.VLLM, install: "pip install vllm", image: defaultDockerImage,
	keyEnv: apiKeyEnv, args: serveArgs,
	entry: func(bool) []string { return nil },
	// The image's entrypoint is `vllm serve`.
	inImage: func(_ bool, args []string) []string { return args[1:] },
	facts:   addVLLMFacts, logPrefix: logPrefixRE,
	diagnoses: vllmDiagnoses, versionPaths: []string{"/version"},
	problems: func(ServerConfig) []error { return nil },
}

// title is the engine's name as messages write it: its servers.Entry's
// Title, which the flavor does not keep a copy of.
func (fl *flavor) title() string { return ServerTitle(fl.name) }

// ServerTitle is the engine cfg names as messages write it: "vLLM", "SGLang".
func (cfg ServerConfig) ServerTitle() string { return cfg.flavor().title() }

// InstallCommand is how the engine cfg names is installed: "pip install vllm".
func (cfg ServerConfig) InstallCommand() string { return cfg.flavor().install }

// ServerTitle is the engine of that server.toml name as messages write it
// ("vLLM" for "vllm"); the name itself when Launch does not know it.
func ServerTitle(name string) string {
	if e, ok := servers.Lookup(name); ok && e.Launches {
		return e.Title
	}
	return name
}

// looksLike reports whether line is one fl's engine prints.
func (fl *flavor) looksLike(line string) bool {
	return strings.Contains(strings.ToLower(line), fl.name) || strings.TrimSpace(fl.logPrefix.FindString(line)) != ""
}

// flavor is the engine cfg names; vLLM when it names none (Validate
// rejects an unknown name).
func (cfg ServerConfig) flavor() *flavor {
	if f, ok := flavors[cfg.Server]; ok {
		return f
	}
	return &vllmFlavor
}

// unsupportedProblems are the keys cfg sets that its engine has no flag
// for (servers.Entry.Unsupported), in the entry's order. Device "gpu" is
// what every engine assumes, so only device = "cpu" counts as set.
func (cfg ServerConfig) unsupportedProblems() []error {
	e, _ := servers.Lookup(cfg.flavor().name)
	var errs []error
	for _, key := range e.Unsupported {
		switch {
		case key == "device" && cfg.Device == DeviceCPU:
			errs = append(errs, fmt.Errorf("device = \"cpu\" is for vLLM's CPU build; Speed Matrix launches %s on GPUs only: remove device, or use engine = \"vllm\"", e.Title))
		case key != "device" && cfg.sets(key):
			errs = append(errs, fmt.Errorf("%s is a vLLM setting that %s has no flag for: remove it, or use engine = \"vllm\"", key, e.Title))
		}
	}
	return errs
}

// sets reports whether cfg gives the server.toml key a value.
func (cfg ServerConfig) sets(key string) bool {
	f, ok := configField(reflect.ValueOf(&cfg).Elem(), key)
	return ok && !f.IsZero()
}

// OnlySupported is cfg without the keys its engine has no flag for, as the
// Launch form leaves out the fields it disables for that engine.
func (cfg ServerConfig) OnlySupported() ServerConfig {
	e, _ := servers.Lookup(cfg.flavor().name)
	v := reflect.ValueOf(&cfg).Elem()
	for _, key := range e.Unsupported {
		if f, ok := configField(v, key); ok {
			f.SetZero()
		}
	}
	return cfg
}

// configField is the field of ServerConfig v whose server.toml key is key.
func configField(v reflect.Value, key string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		if strings.Split(t.Field(i).Tag.Get("toml"), ",")[0] == key {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// serverProblem is the error of an unknown engine name, nil for a known one.
func serverProblem(name string) error {
	if _, ok := flavors[name]; ok || name == "" {
		return nil
	}
	return fmt.Errorf("engine %q is unknown: use \"%s\"", name, strings.Join(Servers, `" or "`))
}
