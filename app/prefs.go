package app

import (
	"encoding/json"

	"fyne.io/fyne/v2"
)

// Preference keys. Values are JSON so that a struct travels as one string.
const (
	PrefTarget = "target" // targetSettings
	PrefPlan   = "plan"   // planSettings
	PrefServer = "server" // launch.ServerConfig without its API key
	PrefExport = "export" // earlier versions' last export folder (a plain string)
	PrefApp    = "app"    // appSettings: the Settings screen
)

// TargetSettings is the Server screen's choice, remembered between launches.
// The endpoint's API key is not kept: preferences are a plain file.
type TargetSettings struct {
	Kind    string `json:"kind"` // targetVLLM, targetEndpoint or targetSim
	URL     string `json:"url,omitempty"`
	Model   string `json:"model,omitempty"`
	Profile string `json:"profile,omitempty"`
	// SimMode is what the simulator speaks as: sim.ModeVLLM or
	// sim.ModeSGLang ("": vLLM).
	SimMode string `json:"sim_engine,omitempty"`
	// GPUMetrics are the endpoint's DCGM exporter URLs, comma-separated.
	GPUMetrics string `json:"gpu_metrics,omitempty"`
}

// Prefs reads and writes the app's preferences.
type Prefs struct {
	P fyne.Preferences
}

// NewPrefs reads and writes the preferences p.
func NewPrefs(p fyne.Preferences) *Prefs { return &Prefs{P: p} }

// Load decodes the value under key into v; it reports whether there was one.
func (s *Prefs) Load(key string, v any) bool {
	raw := s.P.String(key)
	if raw == "" {
		return false
	}
	return json.Unmarshal([]byte(raw), v) == nil
}

// Save stores v under key.
func (s *Prefs) Save(key string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fyne.LogError("save preference "+key, err)
		return
	}
	s.P.SetString(key, string(b))
}

// SaveAll stores the values whose JSON changed, as one write of the
// preferences file where Fyne allows it: after a burst of SetString calls
// Fyne rewrites the file from a goroutine 100 ms later, and an app that
// exits meanwhile leaves it empty.
func (s *Prefs) SaveAll(values map[string]any) {
	changed := map[string]string{}
	for key, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			fyne.LogError("save preference "+key, err)
			continue
		}
		if s.P.String(key) != string(b) {
			changed[key] = string(b)
		}
	}
	if len(changed) == 0 {
		return
	}
	if w, ok := s.P.(interface{ WriteValues(func(map[string]any)) }); ok {
		w.WriteValues(func(m map[string]any) {
			for key, v := range changed {
				m[key] = v
			}
		})
		return
	}
	for key, v := range changed {
		s.P.SetString(key, v)
	}
}
