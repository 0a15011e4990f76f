package engine

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// EnergyMethod says how a window's energy was measured.
type EnergyMethod string

// The two ways a window's energy is measured: by the GPU's own total-energy
// counter (NVML's nvmlDeviceGetTotalEnergyConsumption, DCGM's
// DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION), or, where no serving GPU has a
// counter that can be trusted over the window, by averaging the power
// samples over it (power integrated over time).
const (
	EnergyCounter    EnergyMethod = "counter"
	EnergyIntegrated EnergyMethod = "integrated"
)

// Counter sources: what a GPUSample's EnergySource names.
const (
	EnergyFromNVML      = "NVML total energy counter"
	EnergyFromDCGM      = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
	EnergyFromSimulator = "simulated energy counter"
)

// Bounds of what a GPU reports or a file holds about energy. A counter
// reading beyond MaxEnergyMJ (a 10 kW GPU running for 30 years), a power
// beyond MaxGPUPowerW or a counter that implies it, is no reading.
const (
	MaxGPUPowerW = 10_000
	MaxEnergyMJ  = 1e16
)

// BoundEnergy makes a GPUSample's power and energy counter readings NaN
// (and the counter unread) where no GPU gives them: a negative, infinite
// or absurd figure from NVML, a DCGM exporter or a simulator. Every
// Sampler passes its samples through it, whatever the source.
func (s *GPUSample) BoundEnergy() {
	if !(s.PowerW >= 0 && s.PowerW <= MaxGPUPowerW) {
		s.PowerW = math.NaN()
	}
	if s.EnergySource != "" && !(s.EnergyMJ >= 0 && s.EnergyMJ <= MaxEnergyMJ) {
		s.EnergySource, s.EnergyMJ = "", math.NaN()
	}
}

// CellEnergy is what a cell's serving GPUs spent over its window, per
// token, and how it was measured.
type CellEnergy struct {
	Method EnergyMethod `json:"method"`
	// Source names the counter ("NVML total energy counter") or "power
	// samples" for EnergyIntegrated.
	Source string `json:"source"`
	// Note says why the counter was not used, where a GPU has one:
	// "GPU 1's energy counter went backwards (reset or wrapped)".
	Note string `json:"note,omitempty"`
	// Simulated is set for figures from the simulator's model of its GPUs.
	Simulated bool `json:"simulated,omitempty"`
	// PowerW is the serving GPUs' average power over the window, summed;
	// IdleW their idle power (Run.IdlePower), 0 when not measured.
	PowerW float64 `json:"power_w"`
	IdleW  float64 `json:"idle_w,omitempty"`
	// TokensPerJoule is output tokens per joule (decode) or prompt tokens
	// per joule (prefill); JoulesPerToken its inverse, and
	// JoulesPerTokenAboveIdle counts only the power above idle.
	TokensPerJoule          float64 `json:"tokens_per_joule"`
	JoulesPerToken          float64 `json:"joules_per_token"`
	JoulesPerTokenAboveIdle float64 `json:"joules_per_token_above_idle,omitempty"`
	// PrefillJoulesPer1K is a prefill cell's energy per 1,000 prompt tokens.
	PrefillJoulesPer1K float64 `json:"prefill_joules_per_1k,omitempty"`
}

// CellEnergyOf is the energy of a Valid cell whose window ran at tokPerSec
// (output tok/s for decode, prompt tok/s for prefill), from its telemetry
// t over the GPUs of serving (every sampled GPU when empty) and the run's
// idle power; nil without a power figure.
func CellEnergyOf(t *Telemetry, serving []GPUKey, idle *IdlePower, phase Phase, tokPerSec float64) *CellEnergy {
	if t == nil || tokPerSec <= 0 {
		return nil
	}
	e := windowPower(t, serving)
	if e == nil {
		return nil
	}
	e.TokensPerJoule = tokPerSec / e.PowerW
	e.JoulesPerToken = e.PowerW / tokPerSec
	if idle != nil {
		e.IdleW = idle.WattsOf(serving)
		if above := e.PowerW - e.IdleW; e.IdleW > 0 && above > 0 {
			e.JoulesPerTokenAboveIdle = above / tokPerSec
		}
	}
	if phase == PhasePrefill {
		e.PrefillJoulesPer1K = 1000 * e.JoulesPerToken
	}
	return e
}

// windowPower is the serving GPUs' average power over t's window: by their
// counters when every one of them has a trusted one, else their power
// samples, saying why; nil when there is no power at all.
func windowPower(t *Telemetry, serving []GPUKey) *CellEnergy {
	e := &CellEnergy{Method: EnergyCounter, Simulated: t.Simulated}
	counted, withCounter := 0, 0
	var distrusted, missing string // the first GPU whose counter was not trusted, and the first without one
	for _, g := range t.GPUs {
		if len(serving) > 0 && !containsKey(serving, g.Key()) {
			continue
		}
		counted++
		switch {
		case g.CounterW > 0:
			withCounter++
			e.PowerW += g.CounterW
			e.Source = g.CounterSource
		case g.CounterNote != "":
			distrusted = cmp.Or(distrusted, g.Key().String()+"'s "+g.CounterNote)
		default:
			missing = cmp.Or(missing, g.Key().String()+" has no energy counter")
		}
	}
	if counted > 0 && withCounter == counted {
		return e
	}
	w := t.PowerW(serving)
	if !(w > 0) {
		return nil
	}
	e.Method, e.Source, e.PowerW = EnergyIntegrated, EnergyPowerSamples, w
	switch {
	case distrusted != "":
		e.Note = distrusted
	case withCounter > 0:
		e.Note = missing
	default:
		e.Note = "no energy counter"
	}
	return e
}

// EnergyPowerSamples is CellEnergy.Source when the power samples were averaged.
const EnergyPowerSamples = "power samples"

func containsKey(keys []GPUKey, k GPUKey) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

// MethodText words how a cell's energy was measured, as every surface
// says it: "NVML total energy counter", "power samples averaged (GPU 1's
// energy counter went backwards: reset or wrapped)", "simulated energy
// counter" for the simulator's.
func (e *CellEnergy) MethodText() string {
	text := e.Source
	if e.Method == EnergyIntegrated {
		text = "power samples averaged over the window"
		if e.Note != "" {
			text += " (" + e.Note + ")"
		}
	}
	if e.Simulated && !strings.HasPrefix(text, "simulated") {
		text = "simulated " + text
	}
	return text
}

// Problem says what no run writes in a loaded cell's energy: an unknown
// method, a negative, infinite or absurd figure; "" when it is plausible.
func (e *CellEnergy) Problem() string {
	if e == nil {
		return ""
	}
	if e.Method != EnergyCounter && e.Method != EnergyIntegrated {
		return fmt.Sprintf("an energy method %q, neither %q nor %q", BoundName(string(e.Method)), EnergyCounter, EnergyIntegrated)
	}
	for _, f := range []struct {
		name   string
		v, max float64
	}{
		{"power", e.PowerW, MaxGPUPowerW * MaxGPUs}, {"idle power", e.IdleW, MaxGPUPowerW * MaxGPUs},
		{"tokens per joule", e.TokensPerJoule, 1e9}, {"J/token", e.JoulesPerToken, 1e9},
		{"J/token above idle", e.JoulesPerTokenAboveIdle, 1e9}, {"prefill J per 1K tokens", e.PrefillJoulesPer1K, 1e12},
	} {
		if !(f.v >= 0 && f.v <= f.max) {
			return fmt.Sprintf("a %s of %v, outside 0–%v", f.name, f.v, f.max)
		}
	}
	return ""
}

// MaxGPUs is the most GPUs a loaded report's power may sum.
const MaxGPUs = 4096

// IdlePower is the serving GPUs' power before the run, with the server
// loaded and idle: the floor "above idle" figures subtract.
type IdlePower struct {
	// WindowS is how long the quiet window lasted.
	WindowS float64 `json:"window_s"`
	// GPUs are each GPU's average power over it.
	GPUs []GPUIdle `json:"gpus"`
	// Method and Source say how it was measured, as CellEnergy's do.
	Method    EnergyMethod `json:"method"`
	Source    string       `json:"source"`
	Simulated bool         `json:"simulated,omitempty"`
}

// GPUIdle is one GPU's idle power.
type GPUIdle struct {
	Index int     `json:"index"`
	Host  string  `json:"host,omitempty"`
	W     float64 `json:"w"`
}

// IdlePowerOf is the idle power of every GPU in t (a quiet window of
// windowS seconds), by counter where the GPU has one; nil without power.
func IdlePowerOf(t *Telemetry, windowS float64) *IdlePower {
	if t == nil {
		return nil
	}
	p := &IdlePower{WindowS: windowS, Simulated: t.Simulated, Method: EnergyCounter}
	for _, g := range t.GPUs {
		w := g.CounterW
		if w > 0 {
			p.Source = g.CounterSource
		} else {
			w, p.Method = g.PowerW.Avg, EnergyIntegrated
		}
		if w > 0 {
			p.GPUs = append(p.GPUs, GPUIdle{Index: g.Index, Host: g.Host, W: w})
		}
	}
	if len(p.GPUs) == 0 {
		return nil
	}
	if p.Method == EnergyIntegrated {
		p.Source = EnergyPowerSamples
	}
	return p
}

// WattsOf is the idle power of serving summed (every GPU when empty).
func (p *IdlePower) WattsOf(serving []GPUKey) float64 {
	sum := 0.0
	for _, g := range p.GPUs {
		if len(serving) == 0 || containsKey(serving, GPUKey{Host: g.Host, Index: g.Index}) {
			sum += g.W
		}
	}
	return sum
}

// Problem says what no run writes in a loaded idle power; "" when plausible.
func (p *IdlePower) Problem() string {
	if p == nil {
		return ""
	}
	if len(p.GPUs) > MaxGPUs {
		return fmt.Sprintf("idle power of %d GPUs, more than %d", len(p.GPUs), MaxGPUs)
	}
	if !(p.WindowS >= 0 && p.WindowS <= 3600) {
		return fmt.Sprintf("an idle window of %v s, outside 0–3600", p.WindowS)
	}
	for _, g := range p.GPUs {
		if !(g.W >= 0 && g.W <= MaxGPUPowerW) {
			return fmt.Sprintf("an idle power of %v W, outside 0–%v", g.W, MaxGPUPowerW)
		}
	}
	return ""
}

// Text words the idle power: "61 W (2 GPUs, NVML total energy counter,
// measured over 5 s before the run with the server loaded and idle)".
func (p *IdlePower) Text() string {
	src := p.Source
	if p.Simulated && !strings.HasPrefix(src, "simulated") {
		src = "simulated: " + src
	}
	return fmt.Sprintf("%.0f W (%s, %s, measured over %s s before the run with the server loaded and idle)",
		p.WattsOf(nil), Count(len(p.GPUs), "GPU", "GPUs"), src, strconv.FormatFloat(p.WindowS, 'g', 2, 64))
}
