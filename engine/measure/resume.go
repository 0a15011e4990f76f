package measure

import (
	"fmt"
	"speedmatrix/engine"
	"strings"
)

// serverIdentity is what makes a server the same one for a resumed run.
type serverIdentity struct {
	Model         string
	MaxModelLen   int
	KVCacheTokens int
	Version       string
}

// identityOf reads the identity a saved report recorded.
func identityOf(rep engine.Report) serverIdentity {
	return serverIdentity{Model: rep.Run.ServedModel, MaxModelLen: rep.Server.MaxModelLen,
		KVCacheTokens: rep.Server.KVCacheTokens, Version: rep.Server.Version}
}

// changes lists how now differs from was; an unknown value on either side
// isn't a difference.
func (was serverIdentity) changes(now serverIdentity) []string {
	var out []string
	if was.Model != "" && now.Model != "" && was.Model != now.Model {
		out = append(out, fmt.Sprintf("model %q → %q", was.Model, now.Model))
	}
	if was.MaxModelLen > 0 && now.MaxModelLen > 0 && was.MaxModelLen != now.MaxModelLen {
		out = append(out, fmt.Sprintf("max_model_len %d → %d", was.MaxModelLen, now.MaxModelLen))
	}
	if was.KVCacheTokens > 0 && now.KVCacheTokens > 0 && was.KVCacheTokens != now.KVCacheTokens {
		out = append(out, fmt.Sprintf("KV cache %d → %d tokens", was.KVCacheTokens, now.KVCacheTokens))
	}
	if was.Version != "" && now.Version != "" && was.Version != now.Version {
		out = append(out, fmt.Sprintf("engine version %s → %s", was.Version, now.Version))
	}
	return out
}

// ServerChangedError: a resumed run reaches a server that is not the one
// the run began with, so its cells would not be comparable.
type ServerChangedError struct {
	Changes []string // "max_model_len 4096 → 8192"
}

func (e *ServerChangedError) Error() string {
	return "the server is not the one the run began with (" + strings.Join(e.Changes, "; ") + ")"
}

// checkResume refuses to finish an earlier run on another server, unless
// forced.
func (r *runner) checkResume(now serverIdentity) error {
	res := r.target.Resume
	if res == nil || res.Force {
		return nil
	}
	if ch := identityOf(res.Report).changes(now); len(ch) > 0 {
		return &ServerChangedError{Changes: ch}
	}
	return nil
}

// keptResults are the earlier run's cells that stay as they are: every
// final one, except Failed cells unless Resume.KeepFailed.
func (r *runner) keptResults() map[string]engine.Result {
	kept := map[string]engine.Result{}
	if r.target.Resume == nil {
		return kept
	}
	for _, p := range r.target.Resume.Report.Results {
		if !p.Status.Final() || p.Status == engine.StatusFailed && !r.target.Resume.KeepFailed {
			continue
		}
		kept[p.Key()] = p
	}
	return kept
}

// ResumeHeader is the header of a resumed run: the earlier run's sections
// and start time, refreshed by what the target now knows (the launch
// command and the server's process, the hardware when it was detected, the
// diagnostics).
func ResumeHeader(prev, now engine.Report) engine.Report {
	h := prev
	h.Results = nil
	if now.LaunchCommand != "" {
		h.LaunchCommand = now.LaunchCommand
	}
	if now.Process != nil {
		h.Process = now.Process
	}
	if now.Diagnostics != nil {
		h.Diagnostics = now.Diagnostics
	}
	if len(now.Hardware.GPUs) > 0 || now.Hardware.OnCPU() || h.Hardware.Type == "" {
		h.Hardware = now.Hardware
	}
	if now.Roofline.Available() || h.Roofline == nil {
		h.Roofline = now.Roofline
	}
	return h
}
