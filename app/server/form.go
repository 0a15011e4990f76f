package server

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

	Server                            *appwidget.DropDown // vLLM or SGLang (see serverChoices)
	runner                            *appwidget.DropDown
	Executable, dockerImage, hfCache  *widget.Entry
	Model                             *widget.SelectEntry
	ServedName, revision              *widget.Entry
	Tp, pp, MaxModelLen, GpuUtil      *widget.Entry
	quantization, Dtype, kvCacheDType *widget.Entry
	MaxNumSeqs, KvCacheGiB            *widget.Entry
	prefixCaching                     *appwidget.DropDown
	attention                         *widget.Entry
	AsyncScheduling, trustRemoteCode  *widget.Check
	EnforceEager                      *widget.Check
	reasoningParser, toolCallParser   *widget.Entry
	Host, Port, ApiKey, apiKeyFile    *widget.Entry
	ExtraArgs, env                    *widget.Entry
	StartupTimeoutMin, stopGraceS     *widget.Entry
	logDir                            *widget.Entry
	Parallel                          *parallelFields
	Cpu                               *cpuFields
	filling                           bool
	Accordion                         *widget.Accordion
	entries                           []*widget.Entry
	problemsFor                       map[string]string
}

// NewLaunchForm is the Launch form, empty; onChange is called after every
// edit.
func NewLaunchForm(onChange func()) *launchForm {
	f := &launchForm{onChange: onChange}
	entry := func(placeholder string) *widget.Entry {
		e := widget.NewEntry()
		e.SetPlaceHolder(placeholder)
		e.OnChanged = func(string) { f.changed() }
		f.entries = append(f.entries, e)
		return e
	}
	f.runner = appwidget.NewDropDown([]string{string(launch.RunnerExec), string(launch.RunnerDocker)}, func(string) { f.changed() })
	f.Executable = entry("")
	f.dockerImage = entry("")
	f.Server = appwidget.NewDropDown(serverChoices(), nil)
	f.Server.SetSelected(launch.ServerTitle(servers.VLLM))
	f.onServer()
	f.Server.OnChanged = func(string) { f.onServer(); f.changed() }
	f.hfCache = entry(hfcache.Home())
	f.Model = widget.NewSelectEntry(nil)
	f.Model.SetPlaceHolder("Hugging Face id (e.g. Qwen/Qwen3-0.6B) or a local path")
	f.Model.OnChanged = func(string) { f.changed() }
	f.ServedName, f.revision = entry("the model id"), entry("main")
	f.Tp, f.pp = entry("1"), entry("1")
	f.Parallel = newParallelFields(entry, f.changed)
	f.MaxModelLen, f.GpuUtil = entry("from the model's config"), entry("0.90")
	f.quantization, f.Dtype, f.kvCacheDType = entry("none (e.g. fp8)"), entry("auto"), entry("auto (e.g. fp8)")
	f.MaxNumSeqs = entry("vLLM default (e.g. 256)")
	f.KvCacheGiB = entry("from memory utilization (e.g. 16)")
	f.Cpu = newCPUFields(entry, f.changed)
	f.EnforceEager = widget.NewCheck("enforce eager (starts faster, serves slower)", func(bool) { f.changed() })
	f.prefixCaching = appwidget.NewDropDown([]string{prefixDefault, prefixOn, prefixOff}, func(string) { f.changed() })
	f.attention = entry("vLLM's choice (e.g. FLASH_ATTN)")
	f.AsyncScheduling = widget.NewCheck("async scheduling", func(bool) { f.changed() })
	f.trustRemoteCode = widget.NewCheck("trust remote code", func(bool) { f.changed() })
	f.reasoningParser, f.toolCallParser = entry("none (e.g. qwen3)"), entry("none (adds --enable-auto-tool-choice)")
	f.Host, f.Port = entry(launch.DefaultHost), entry(strconv.Itoa(launch.DefaultPort))
	f.ApiKey = widget.NewPasswordEntry()
	f.ApiKey.SetPlaceHolder("generated at start when empty")
	f.ApiKey.OnChanged = func(string) { f.changed() }
	f.apiKeyFile = entry("or a file whose first line is the key")
	f.ExtraArgs = entry("appended verbatim, e.g. --enforce-eager")
	f.env = widget.NewMultiLineEntry()
	f.env.SetPlaceHolder("KEY=VALUE, one per line")
	f.env.SetMinRowsVisible(2)
	f.env.OnChanged = func(string) { f.changed() }
	f.StartupTimeoutMin, f.stopGraceS = entry("20"), entry("15")
	f.logDir = entry("system temp folder")
	f.onServer()
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
	f.Accordion = widget.NewAccordion(
		widget.NewAccordionItem("Model", form(
			item("Engine", f.Server),
			item("Model", f.Model), item("Served model name", f.ServedName), item("Revision", f.revision),
			item("", f.trustRemoteCode))),
		widget.NewAccordionItem(CpuSection, form(
			item("Device", f.Cpu.Device), item("KV cache space (GiB)", f.Cpu.KvSpace),
			item("OpenMP thread binding", f.Cpu.Bind), item("Reserved cores", f.Cpu.reserv))),
		widget.NewAccordionItem("GPU memory and parallelism", form(
			item("Tensor parallel", f.Tp), item("Pipeline parallel", f.pp),
			item("Data parallel", f.Parallel.Dp), item("", f.Parallel.Ep), item("GPUs (none ticked: all)", f.Parallel.gpuField()),
			item("Executor", f.Parallel.Executor), item("Ray address", f.Parallel.RayAddress),
			item("GPU metrics", f.Parallel.GpuMetrics.Field),
			item("Max model length", f.MaxModelLen), item("GPU memory utilization", f.GpuUtil),
			item("KV cache memory (GiB)", f.KvCacheGiB),
			item("Max sequences", f.MaxNumSeqs), item("Quantization", f.quantization),
			item("Data type", f.Dtype), item("KV cache data type", f.kvCacheDType))),
		widget.NewAccordionItem("Features", form(
			item("Prefix caching", f.prefixCaching), item("Attention backend", f.attention),
			item("Reasoning parser", f.reasoningParser), item("Tool-call parser", f.toolCallParser),
			item("", f.AsyncScheduling), item("", f.EnforceEager))),
		widget.NewAccordionItem("Network", form(
			item("Host", f.Host), item("Port", f.Port), item("API key", f.ApiKey), item("API key file", f.apiKeyFile))),
		widget.NewAccordionItem("How to run", form(
			item("Runner", f.runner), item("Executable", f.Executable), item("Docker image", f.dockerImage),
			item("HF cache (Docker)", f.hfCache), item("Extra arguments", f.ExtraArgs), item("Environment", f.env),
			item("Start-up timeout (min)", f.StartupTimeoutMin), item("Stop grace (s)", f.stopGraceS),
			item("Log folder", f.logDir))),
	)
	f.Accordion.MultiOpen = true
	f.openSection("Model")
	f.openSection("GPU memory and parallelism")
	return f.Accordion
}

// openSection opens the form's section with this title.
func (f *launchForm) openSection(title string) {
	for i, item := range f.Accordion.Items {
		if item.Title == title {
			f.Accordion.Open(i)
		}
	}
}

// Fill shows cfg in the form.
func (f *launchForm) Fill(cfg launch.ServerConfig) {
	f.filling = true
	defer func() { f.filling = false }()
	num := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	f.Server.SetSelected(launch.ServerTitle(cmp.Or(cfg.Server, servers.VLLM)))
	runner := cfg.Runner
	if runner == "" {
		runner = launch.RunnerExec
	}
	f.runner.SetSelected(string(runner))
	f.Executable.SetText(cfg.Executable)
	f.dockerImage.SetText(cfg.DockerImage)
	f.hfCache.SetText(cfg.HFCache)
	f.Model.SetText(cfg.Model)
	f.ServedName.SetText(cfg.ServedModelName)
	f.revision.SetText(cfg.Revision)
	f.Tp.SetText(num(cfg.TensorParallelSize))
	f.pp.SetText(num(cfg.PipelineParallelSize))
	f.Parallel.Fill(cfg)
	f.MaxModelLen.SetText(num(cfg.MaxModelLen))
	f.GpuUtil.SetText("")
	if cfg.GPUMemoryUtilization > 0 {
		f.GpuUtil.SetText(strconv.FormatFloat(cfg.GPUMemoryUtilization, 'f', -1, 64))
	}
	f.quantization.SetText(cfg.Quantization)
	f.Dtype.SetText(cfg.DType)
	f.kvCacheDType.SetText(cfg.KVCacheDType)
	f.MaxNumSeqs.SetText(num(cfg.MaxNumSeqs))
	f.KvCacheGiB.SetText(kvGiBText(cfg.KVCacheMemoryBytes))
	f.Cpu.Fill(cfg)
	f.EnforceEager.SetChecked(cfg.EnforceEager)
	switch {
	case cfg.EnablePrefixCaching == nil:
		f.prefixCaching.SetSelected(prefixDefault)
	case *cfg.EnablePrefixCaching:
		f.prefixCaching.SetSelected(prefixOn)
	default:
		f.prefixCaching.SetSelected(prefixOff)
	}
	f.attention.SetText(cfg.AttentionBackend)
	f.AsyncScheduling.SetChecked(cfg.AsyncScheduling)
	f.trustRemoteCode.SetChecked(cfg.TrustRemoteCode)
	f.reasoningParser.SetText(cfg.ReasoningParser)
	f.toolCallParser.SetText(cfg.ToolCallParser)
	f.Host.SetText(cfg.Host)
	f.Port.SetText(num(cfg.Port))
	f.ApiKey.SetText(cfg.APIKey)
	f.apiKeyFile.SetText(cfg.APIKeyFile)
	f.ExtraArgs.SetText(strings.Join(cfg.ExtraArgs, " "))
	f.env.SetText(formatEnv(cfg.Env))
	f.StartupTimeoutMin.SetText(durationText(cfg.StartupTimeout, time.Minute))
	f.stopGraceS.SetText(durationText(cfg.StopGrace, time.Second))
	f.logDir.SetText(cfg.LogDir)
}

// Config reads the form. Fields that don't parse are left at zero (vLLM's
// default) and listed by problems. withKey false leaves the API key out.
func (f *launchForm) Config(withKey bool) launch.ServerConfig {
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
		Server: f.serverName(),
		Runner: launch.Runner(f.runner.Selected), Executable: strings.TrimSpace(f.Executable.Text),
		DockerImage: strings.TrimSpace(f.dockerImage.Text), HFCache: strings.TrimSpace(f.hfCache.Text),
		Model: strings.TrimSpace(f.Model.Text), ServedModelName: strings.TrimSpace(f.ServedName.Text),
		Revision:           strings.TrimSpace(f.revision.Text),
		TensorParallelSize: atoi("tensor parallel", f.Tp), PipelineParallelSize: atoi("pipeline parallel", f.pp),
		MaxModelLen: atoi("max model length", f.MaxModelLen), MaxNumSeqs: atoi("max sequences", f.MaxNumSeqs),
		Quantization: strings.TrimSpace(f.quantization.Text), DType: strings.TrimSpace(f.Dtype.Text),
		KVCacheDType: strings.TrimSpace(f.kvCacheDType.Text), AttentionBackend: strings.TrimSpace(f.attention.Text),
		AsyncScheduling: f.AsyncScheduling.Checked, TrustRemoteCode: f.trustRemoteCode.Checked, EnforceEager: f.EnforceEager.Checked,
		ReasoningParser: strings.TrimSpace(f.reasoningParser.Text), ToolCallParser: strings.TrimSpace(f.toolCallParser.Text),
		Host: strings.TrimSpace(f.Host.Text), Port: atoi("port", f.Port), APIKeyFile: strings.TrimSpace(f.apiKeyFile.Text),
		ExtraArgs: strings.Fields(f.ExtraArgs.Text), LogDir: strings.TrimSpace(f.logDir.Text),
	}
	f.Parallel.Read(&cfg, atoi("data parallel", f.Parallel.Dp))
	f.Cpu.Read(&cfg, atoi)
	var kvProblem string
	if cfg.KVCacheMemoryBytes, kvProblem = kvBytes(f.KvCacheGiB.Text); kvProblem != "" {
		f.problemsFor["kv cache memory"] = kvProblem
	}
	if err := f.Parallel.GpuMetrics.check(); err != nil {
		f.problemsFor["gpu metrics"] = "GPU metrics: " + secret.URL(exporterURL(err)) + " is not an exporter address like http://node2:9400/metrics"
	}
	if e, _ := servers.Lookup(cfg.Server); !e.Supports("kv_cache_memory_bytes") { // disabled on the form (see onServer)
		delete(f.problemsFor, "kv cache memory")
	}
	if withKey {
		cfg.APIKey = f.ApiKey.Text
	}
	if s := strings.TrimSpace(f.GpuUtil.Text); s != "" {
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
	cfg.StartupTimeout = time.Duration(atoi("start-up timeout", f.StartupTimeoutMin)) * time.Minute
	cfg.StopGrace = time.Duration(atoi("stop grace", f.stopGraceS)) * time.Second
	return cfg.OnlySupported() // the fields onServer disabled
}

// serverChoices are the Engine select's choices: vLLM, SGLang.
func serverChoices() []string {
	titles := make([]string, len(launch.Servers))
	for i, name := range launch.Servers {
		titles[i] = launch.ServerTitle(name)
	}
	return titles
}

// serverName is the server.toml name of the engine selected.
func (f *launchForm) serverName() string {
	for _, name := range launch.Servers {
		if launch.ServerTitle(name) == f.Server.Selected {
			return name
		}
	}
	return servers.VLLM
}

// onServer shows the selected engine's program and image as placeholders,
// and disables the settings the engine has no flags for (its
// servers.Entry's Unsupported keys: for SGLang, vLLM's executor, Ray,
// async scheduling, eager mode, KV cache memory and CPU build); config then
// leaves them out.
func (f *launchForm) onServer() {
	d := launch.ServerConfig{Server: f.serverName(), Runner: launch.RunnerDocker}.WithDefaults()
	f.Executable.SetPlaceHolder(d.Executable + " (on PATH) or /path/to/venv/bin/" + d.Executable)
	f.dockerImage.SetPlaceHolder(d.DockerImage)
	if f.logDir == nil {
		return // still being built
	}
	e, _ := servers.Lookup(d.Server)
	for key, w := range f.keyed() {
		if e.Supports(key) {
			w.Enable()
		} else {
			w.Disable()
		}
	}
}

// keyed are the form's fields by the server.toml key each sets.
func (f *launchForm) keyed() map[string]fyne.Disableable {
	return map[string]fyne.Disableable{
		"runner": f.runner, "executable": f.Executable, "docker_image": f.dockerImage, "hf_cache": f.hfCache,
		"model": f.Model, "served_model_name": f.ServedName, "revision": f.revision, "trust_remote_code": f.trustRemoteCode,
		"tensor_parallel_size": f.Tp, "pipeline_parallel_size": f.pp, "data_parallel_size": f.Parallel.Dp,
		"enable_expert_parallel": f.Parallel.Ep, "gpus": f.Parallel.Gpus,
		"distributed_executor_backend": f.Parallel.Executor, "ray_address": f.Parallel.RayAddress,
		"max_model_len": f.MaxModelLen, "gpu_memory_utilization": f.GpuUtil, "kv_cache_memory_bytes": f.KvCacheGiB,
		"max_num_seqs": f.MaxNumSeqs, "quantization": f.quantization, "dtype": f.Dtype, "kv_cache_dtype": f.kvCacheDType,
		"enable_prefix_caching": f.prefixCaching, "attention_backend": f.attention,
		"reasoning_parser": f.reasoningParser, "tool_call_parser": f.toolCallParser,
		"async_scheduling": f.AsyncScheduling, "enforce_eager": f.EnforceEager,
		"host": f.Host, "port": f.Port, "api_key": f.ApiKey, "api_key_file": f.apiKeyFile,
		"extra_args": f.ExtraArgs, "env": f.env, "startup_timeout": f.StartupTimeoutMin, "stop_grace": f.stopGraceS,
		"log_dir": f.logDir, "device": f.Cpu.Device, "cpu_kvcache_space_gib": f.Cpu.KvSpace,
		"cpu_omp_threads_bind": f.Cpu.Bind, "cpu_num_reserved_cpus": f.Cpu.reserv,
	}
}

// Problems lists the fields config could not read, sorted.
func (f *launchForm) Problems() []string {
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
