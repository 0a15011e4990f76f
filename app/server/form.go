package shell

import (
	"cmp"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine/hfcache"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/secret"
	"speedmatrix/engine/servers"
)

// Choices of the prefix-caching select.
const (
	prefixDefault = "vLLM default"
	prefixOn      = "on"
	prefixOff     = "off"
)

// launchForm is the Launch form: it edits every field of a
// launch.ServerConfig, for vLLM and SGLang alike.
type launchForm struct {
	onChange func()

	engine                            *appwidget.DropDown // vLLM or SGLang (see engineChoices)
	runner                            *appwidget.DropDown
	executable, dockerImage, hfCache  *widget.Entry
	model                             *widget.SelectEntry
	servedName, revision              *widget.Entry
	tp, pp, maxModelLen, gpuUtil      *widget.Entry
	quantization, dtype, kvCacheDType *widget.Entry
	maxNumSeqs, kvCacheGiB            *widget.Entry
	prefixCaching                     *appwidget.DropDown
	attention                         *widget.Entry
	asyncScheduling, trustRemoteCode  *widget.Check
	enforceEager                      *widget.Check
	reasoningParser, toolCallParser   *widget.Entry
	host, port, apiKey, apiKeyFile    *widget.Entry
	extraArgs, env                    *widget.Entry
	startupTimeoutMin, stopGraceS     *widget.Entry
	logDir                            *widget.Entry
	parallel                          *parallelFields
	cpu                               *cpuFields
	filling                           bool
	accordion                         *widget.Accordion
	entries                           []*widget.Entry
	problemsFor                       map[string]string
}

func newLaunchForm(onChange func()) *launchForm {
	f := &launchForm{onChange: onChange}
	entry := func(placeholder string) *widget.Entry {
		e := widget.NewEntry()
		e.SetPlaceHolder(placeholder)
		e.OnChanged = func(string) { f.changed() }
		f.entries = append(f.entries, e)
		return e
	}
	f.runner = appwidget.NewDropDown([]string{string(launch.RunnerExec), string(launch.RunnerDocker)}, func(string) { f.changed() })
	f.executable = entry("")
	f.dockerImage = entry("")
	f.engine = appwidget.NewDropDown(engineChoices(), nil)
	f.engine.SetSelected(launch.EngineTitle(servers.VLLM))
	f.onEngine()
	f.engine.OnChanged = func(string) { f.onEngine(); f.changed() }
	f.hfCache = entry(hfcache.Home())
	f.model = widget.NewSelectEntry(nil)
	f.model.SetPlaceHolder("Hugging Face id (e.g. Qwen/Qwen3-0.6B) or a local path")
	f.model.OnChanged = func(string) { f.changed() }
	f.servedName, f.revision = entry("the model id"), entry("main")
	f.tp, f.pp = entry("1"), entry("1")
	f.parallel = newParallelFields(entry, f.changed)
	f.maxModelLen, f.gpuUtil = entry("from the model's config"), entry("0.90")
	f.quantization, f.dtype, f.kvCacheDType = entry("none (e.g. fp8)"), entry("auto"), entry("auto (e.g. fp8)")
	f.maxNumSeqs = entry("vLLM default (e.g. 256)")
	f.kvCacheGiB = entry("from memory utilization (e.g. 16)")
	f.cpu = newCPUFields(entry, f.changed)
	f.enforceEager = widget.NewCheck("enforce eager (starts faster, serves slower)", func(bool) { f.changed() })
	f.prefixCaching = appwidget.NewDropDown([]string{prefixDefault, prefixOn, prefixOff}, func(string) { f.changed() })
	f.attention = entry("vLLM's choice (e.g. FLASH_ATTN)")
	f.asyncScheduling = widget.NewCheck("async scheduling", func(bool) { f.changed() })
	f.trustRemoteCode = widget.NewCheck("trust remote code", func(bool) { f.changed() })
	f.reasoningParser, f.toolCallParser = entry("none (e.g. qwen3)"), entry("none (adds --enable-auto-tool-choice)")
	f.host, f.port = entry(launch.DefaultHost), entry(strconv.Itoa(launch.DefaultPort))
	f.apiKey = widget.NewPasswordEntry()
	f.apiKey.SetPlaceHolder("generated at start when empty")
	f.apiKey.OnChanged = func(string) { f.changed() }
	f.apiKeyFile = entry("or a file whose first line is the key")
	f.extraArgs = entry("appended verbatim, e.g. --enforce-eager")
	f.env = widget.NewMultiLineEntry()
	f.env.SetPlaceHolder("KEY=VALUE, one per line")
	f.env.SetMinRowsVisible(2)
	f.env.OnChanged = func(string) { f.changed() }
	f.startupTimeoutMin, f.stopGraceS = entry("20"), entry("15")
	f.logDir = entry("system temp folder")
	f.onEngine()
	return f
}

// changed reports an edit unless the form is being filled in.
func (f *launchForm) changed() {
	if !f.filling && f.onChange != nil {
		f.onChange()
	}
}

// Object lays the fields out in sections whose labels share one column.
func (f *launchForm) Object() fyne.CanvasObject {
	col := &appwidget.FormColumn{}
	form := func(rows ...appwidget.FormRow) fyne.CanvasObject { return col.Form(rows...) }
	item := func(label string, field fyne.CanvasObject) appwidget.FormRow {
		return appwidget.FormRow{Label: label, Field: field}
	}
	f.accordion = widget.NewAccordion(
		widget.NewAccordionItem("Model", form(
			item("Engine", f.engine),
			item("Model", f.model), item("Served model name", f.servedName), item("Revision", f.revision),
			item("", f.trustRemoteCode))),
		widget.NewAccordionItem(cpuSection, form(
			item("Device", f.cpu.device), item("KV cache space (GiB)", f.cpu.kvSpace),
			item("OpenMP thread binding", f.cpu.bind), item("Reserved cores", f.cpu.reserv))),
		widget.NewAccordionItem("GPU memory and parallelism", form(
			item("Tensor parallel", f.tp), item("Pipeline parallel", f.pp),
			item("Data parallel", f.parallel.dp), item("", f.parallel.ep), item("GPUs (none ticked: all)", f.parallel.gpuField()),
			item("Executor", f.parallel.executor), item("Ray address", f.parallel.rayAddress),
			item("GPU metrics", f.parallel.gpuMetrics.field),
			item("Max model length", f.maxModelLen), item("GPU memory utilization", f.gpuUtil),
			item("KV cache memory (GiB)", f.kvCacheGiB),
			item("Max sequences", f.maxNumSeqs), item("Quantization", f.quantization),
			item("Data type", f.dtype), item("KV cache data type", f.kvCacheDType))),
		widget.NewAccordionItem("Features", form(
			item("Prefix caching", f.prefixCaching), item("Attention backend", f.attention),
			item("Reasoning parser", f.reasoningParser), item("Tool-call parser", f.toolCallParser),
			item("", f.asyncScheduling), item("", f.enforceEager))),
		widget.NewAccordionItem("Network", form(
			item("Host", f.host), item("Port", f.port), item("API key", f.apiKey), item("API key file", f.apiKeyFile))),
		widget.NewAccordionItem("How to run", form(
			item("Runner", f.runner), item("Executable", f.executable), item("Docker image", f.dockerImage),
			item("HF cache (Docker)", f.hfCache), item("Extra arguments", f.extraArgs), item("Environment", f.env),
			item("Start-up timeout (min)", f.startupTimeoutMin), item("Stop grace (s)", f.stopGraceS),
			item("Log folder", f.logDir))),
	)
	f.accordion.MultiOpen = true
	f.openSection("Model")
	f.openSection("GPU memory and parallelism")
	return f.accordion
}

// openSection opens the form's section with this title.
func (f *launchForm) openSection(title string) {
	for i, item := range f.accordion.Items {
		if item.Title == title {
			f.accordion.Open(i)
		}
	}
}

// fill shows cfg in the form.
func (f *launchForm) fill(cfg launch.ServerConfig) {
	f.filling = true
	defer func() { f.filling = false }()
	num := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	f.engine.SetSelected(launch.EngineTitle(cmp.Or(cfg.Engine, servers.VLLM)))
	runner := cfg.Runner
	if runner == "" {
		runner = launch.RunnerExec
	}
	f.runner.SetSelected(string(runner))
	f.executable.SetText(cfg.Executable)
	f.dockerImage.SetText(cfg.DockerImage)
	f.hfCache.SetText(cfg.HFCache)
	f.model.SetText(cfg.Model)
	f.servedName.SetText(cfg.ServedModelName)
	f.revision.SetText(cfg.Revision)
	f.tp.SetText(num(cfg.TensorParallelSize))
	f.pp.SetText(num(cfg.PipelineParallelSize))
	f.parallel.fill(cfg)
	f.maxModelLen.SetText(num(cfg.MaxModelLen))
	f.gpuUtil.SetText("")
	if cfg.GPUMemoryUtilization > 0 {
		f.gpuUtil.SetText(strconv.FormatFloat(cfg.GPUMemoryUtilization, 'f', -1, 64))
	}
	f.quantization.SetText(cfg.Quantization)
	f.dtype.SetText(cfg.DType)
	f.kvCacheDType.SetText(cfg.KVCacheDType)
	f.maxNumSeqs.SetText(num(cfg.MaxNumSeqs))
	f.kvCacheGiB.SetText(kvGiBText(cfg.KVCacheMemoryBytes))
	f.cpu.fill(cfg)
	f.enforceEager.SetChecked(cfg.EnforceEager)
	switch {
	case cfg.EnablePrefixCaching == nil:
		f.prefixCaching.SetSelected(prefixDefault)
	case *cfg.EnablePrefixCaching:
		f.prefixCaching.SetSelected(prefixOn)
	default:
		f.prefixCaching.SetSelected(prefixOff)
	}
	f.attention.SetText(cfg.AttentionBackend)
	f.asyncScheduling.SetChecked(cfg.AsyncScheduling)
	f.trustRemoteCode.SetChecked(cfg.TrustRemoteCode)
	f.reasoningParser.SetText(cfg.ReasoningParser)
	f.toolCallParser.SetText(cfg.ToolCallParser)
	f.host.SetText(cfg.Host)
	f.port.SetText(num(cfg.Port))
	f.apiKey.SetText(cfg.APIKey)
	f.apiKeyFile.SetText(cfg.APIKeyFile)
	f.extraArgs.SetText(strings.Join(cfg.ExtraArgs, " "))
	f.env.SetText(formatEnv(cfg.Env))
	f.startupTimeoutMin.SetText(durationText(cfg.StartupTimeout, time.Minute))
	f.stopGraceS.SetText(durationText(cfg.StopGrace, time.Second))
	f.logDir.SetText(cfg.LogDir)
}

// config reads the form. Fields that don't parse are left at zero (vLLM's
// default) and listed by problems. withKey false leaves the API key out.
func (f *launchForm) config(withKey bool) launch.ServerConfig {
	f.problemsFor = map[string]string{}
	atoi := func(name string, e *widget.Entry) int {
		s := strings.TrimSpace(e.Text)
		if s == "" {
			return 0
		}
		n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
		if err != nil {
			f.problemsFor[name] = fmt.Sprintf("%s: %q is not a whole number", name, s)
		}
		return n
	}
	cfg := launch.ServerConfig{
		Engine: f.engineName(),
		Runner: launch.Runner(f.runner.Selected), Executable: strings.TrimSpace(f.executable.Text),
		DockerImage: strings.TrimSpace(f.dockerImage.Text), HFCache: strings.TrimSpace(f.hfCache.Text),
		Model: strings.TrimSpace(f.model.Text), ServedModelName: strings.TrimSpace(f.servedName.Text),
		Revision:           strings.TrimSpace(f.revision.Text),
		TensorParallelSize: atoi("tensor parallel", f.tp), PipelineParallelSize: atoi("pipeline parallel", f.pp),
		MaxModelLen: atoi("max model length", f.maxModelLen), MaxNumSeqs: atoi("max sequences", f.maxNumSeqs),
		Quantization: strings.TrimSpace(f.quantization.Text), DType: strings.TrimSpace(f.dtype.Text),
		KVCacheDType: strings.TrimSpace(f.kvCacheDType.Text), AttentionBackend: strings.TrimSpace(f.attention.Text),
		AsyncScheduling: f.asyncScheduling.Checked, TrustRemoteCode: f.trustRemoteCode.Checked, EnforceEager: f.enforceEager.Checked,
		ReasoningParser: strings.TrimSpace(f.reasoningParser.Text), ToolCallParser: strings.TrimSpace(f.toolCallParser.Text),
		Host: strings.TrimSpace(f.host.Text), Port: atoi("port", f.port), APIKeyFile: strings.TrimSpace(f.apiKeyFile.Text),
		ExtraArgs: strings.Fields(f.extraArgs.Text), LogDir: strings.TrimSpace(f.logDir.Text),
	}
	f.parallel.Read(&cfg, atoi("data parallel", f.parallel.dp))
	f.cpu.Read(&cfg, atoi)
	var kvProblem string
	if cfg.KVCacheMemoryBytes, kvProblem = kvBytes(f.kvCacheGiB.Text); kvProblem != "" {
		f.problemsFor["kv cache memory"] = kvProblem
	}
	if err := f.parallel.gpuMetrics.check(); err != nil {
		f.problemsFor["gpu metrics"] = "GPU metrics: " + secret.URL(exporterURL(err)) + " is not an exporter address like http://node2:9400/metrics"
	}
	if cfg.Engine == servers.SGLang { // disabled on the form (see onEngine)
		cfg.AsyncScheduling, cfg.DistributedExecutorBackend, cfg.RayAddress = false, "", ""
		cfg.EnforceEager, cfg.KVCacheMemoryBytes, cfg.Device = false, 0, ""
		cfg.CPUKVCacheSpaceGiB, cfg.CPUOMPThreadsBind, cfg.CPUNumReservedCPUs = 0, "", nil
		delete(f.problemsFor, "kv cache memory")
	}
	if withKey {
		cfg.APIKey = f.apiKey.Text
	}
	if s := strings.TrimSpace(f.gpuUtil.Text); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			f.problemsFor["gpu"] = fmt.Sprintf("GPU memory utilization: %q is not a fraction like 0.9", s)
		}
		cfg.GPUMemoryUtilization = v
	}
	switch f.prefixCaching.Selected {
	case prefixOn, prefixOff:
		on := f.prefixCaching.Selected == prefixOn
		cfg.EnablePrefixCaching = &on
	}
	cfg.Env = parseEnv(f.env.Text)
	cfg.StartupTimeout = time.Duration(atoi("start-up timeout", f.startupTimeoutMin)) * time.Minute
	cfg.StopGrace = time.Duration(atoi("stop grace", f.stopGraceS)) * time.Second
	return cfg
}

// engineChoices are the Engine select's choices: vLLM, SGLang.
func engineChoices() []string {
	titles := make([]string, len(launch.Engines))
	for i, name := range launch.Engines {
		titles[i] = launch.EngineTitle(name)
	}
	return titles
}

// engineName is the server.toml name of the engine selected.
func (f *launchForm) engineName() string {
	for _, name := range launch.Engines {
		if launch.EngineTitle(name) == f.engine.Selected {
			return name
		}
	}
	return servers.VLLM
}

// onEngine shows the selected engine's program and image as placeholders,
// and disables vLLM's own settings (executor, Ray, async scheduling, eager
// mode, KV cache memory, the CPU build's) for SGLang, which has no flags
// for them; config then leaves them out.
func (f *launchForm) onEngine() {
	d := launch.ServerConfig{Engine: f.engineName(), Runner: launch.RunnerDocker}.WithDefaults()
	f.executable.SetPlaceHolder(d.Executable + " (on PATH) or /path/to/venv/bin/" + d.Executable)
	f.dockerImage.SetPlaceHolder(d.DockerImage)
	if f.parallel == nil || f.asyncScheduling == nil || f.cpu == nil {
		return // still being built
	}
	for _, w := range []fyne.Disableable{f.parallel.executor, f.parallel.rayAddress, f.asyncScheduling,
		f.enforceEager, f.kvCacheGiB, f.cpu.device, f.cpu.kvSpace, f.cpu.bind, f.cpu.reserv} {
		if d.Engine == servers.SGLang {
			w.Disable()
		} else {
			w.Enable()
		}
	}
}

// problems lists the fields config could not read, sorted.
func (f *launchForm) problems() []string {
	var out []string
	for _, p := range f.problemsFor {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func durationText(d, unit time.Duration) string {
	if d == 0 {
		return ""
	}
	return strconv.Itoa(int(d / unit))
}

func formatEnv(env map[string]string) string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = k + "=" + env[k]
	}
	return strings.Join(lines, "\n")
}

func parseEnv(text string) map[string]string {
	var env map[string]string
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || k == "" {
			continue
		}
		if env == nil {
			env = map[string]string{}
		}
		env[k] = v
	}
	return env
}
