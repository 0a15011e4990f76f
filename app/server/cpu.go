package server

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"fyne.io/fyne/v2/widget"

	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine/launch"
)

// Choices of the Device select.
const (
	DeviceDetect = "Detect"
	deviceGPU    = "GPU"
	DeviceCPU    = "CPU (vLLM's CPU build)"
)

// CpuSection is the title of the Launch form's section of CPU settings.
const CpuSection = "CPU (vLLM's CPU build)"

// gib is a GiB in bytes.
const gib = 1 << 30

// cpuFields are the Launch form's fields for vLLM's CPU build: where the
// server runs, and the build's KV cache space, thread binding and
// reserved cores (server.toml's device and cpu_* keys).
type cpuFields struct {
	Device                *appwidget.DropDown
	KvSpace, Bind, reserv *widget.Entry
}

func newCPUFields(entry func(string) *widget.Entry, changed func()) *cpuFields {
	c := &cpuFields{}
	c.Device = appwidget.NewDropDown([]string{DeviceDetect, deviceGPU, DeviceCPU}, nil)
	c.Device.SetSelected(DeviceDetect)
	c.Device.OnChanged = func(string) { changed() }
	c.KvSpace = entry("vLLM's choice (e.g. 40)")
	c.Bind = entry("auto (e.g. 0-31, or nobind)")
	c.reserv = entry("one per rank")
	return c
}

// Fill shows cfg's CPU settings in the fields.
func (c *cpuFields) Fill(cfg launch.ServerConfig) {
	switch cfg.Device {
	case launch.DeviceGPU:
		c.Device.SetSelected(deviceGPU)
	case launch.DeviceCPU:
		c.Device.SetSelected(DeviceCPU)
	default:
		c.Device.SetSelected(DeviceDetect)
	}
	c.KvSpace.SetText("")
	if cfg.CPUKVCacheSpaceGiB != 0 {
		c.KvSpace.SetText(strconv.Itoa(cfg.CPUKVCacheSpaceGiB))
	}
	c.Bind.SetText(cfg.CPUOMPThreadsBind)
	c.reserv.SetText("")
	if n := cfg.CPUNumReservedCPUs; n != nil {
		c.reserv.SetText(strconv.Itoa(*n))
	}
}

// Read sets cfg's CPU settings from the fields; atoi reads a whole number,
// noting a field that isn't one.
func (c *cpuFields) Read(cfg *launch.ServerConfig, atoi func(name string, e *widget.Entry) int) {
	switch c.Device.Selected {
	case deviceGPU:
		cfg.Device = launch.DeviceGPU
	case DeviceCPU:
		cfg.Device = launch.DeviceCPU
	}
	cfg.CPUKVCacheSpaceGiB = atoi("KV cache space (GiB)", c.KvSpace)
	cfg.CPUOMPThreadsBind = strings.TrimSpace(c.Bind.Text)
	if strings.TrimSpace(c.reserv.Text) != "" {
		n := atoi("reserved cores", c.reserv)
		cfg.CPUNumReservedCPUs = &n
	}
}

// kvGiBText writes kv_cache_memory_bytes in the GiB the form shows: "16",
// "7.450580596923828".
func kvGiBText(bytes int64) string {
	if bytes == 0 {
		return ""
	}
	return strconv.FormatFloat(float64(bytes)/gib, 'f', -1, 64)
}

// kvBytes reads the KV cache memory field (GiB) as bytes, or says why it
// can't.
func kvBytes(text string) (int64, string) {
	s := strings.TrimSpace(text)
	if s == "" {
		return 0, ""
	}
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil || math.IsNaN(v) || v <= 0:
		return 0, fmt.Sprintf("KV cache memory (GiB): %q is not a size like 16", s)
	case v < 1.0/1024:
		return 0, fmt.Sprintf("KV cache memory (GiB): %s GiB is less than a MiB: the field is in GiB, e.g. 16", s)
	case v > 1<<20:
		return 0, fmt.Sprintf("KV cache memory (GiB): %s GiB is more than any machine's memory: the field is in GiB, e.g. 16", s)
	}
	return int64(math.Round(v * gib)), ""
}

// formWords rewrites a server.toml problem (launch.ServerConfig.Validate's
// words) in the Launch form's: its fields' names instead of the keys.
var formWords = strings.NewReplacer(
	`set device = "cpu" or remove`, "set Device to CPU or clear",
	`device is "gpu"`, "Device is GPU",
	`remove gpus (cpu_omp_threads_bind picks the cores)`, "untick the GPUs (OpenMP thread binding picks the cores)",
	"gpus picks GPUs", "Ticked GPUs pick GPUs",
	"kv_cache_memory_bytes", "KV cache memory",
	"cpu_kvcache_space_gib", "KV cache space",
	"cpu_omp_threads_bind", "OpenMP thread binding",
	"cpu_num_reserved_cpus", "Reserved cores",
	"tensor_parallel_size × pipeline_parallel_size × data_parallel_size", "Tensor parallel × Pipeline parallel × Data parallel",
	"gpu_memory_utilization", "GPU memory utilization",
	"env ", "Environment ",
)
