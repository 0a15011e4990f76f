package simtarget

import (
	"net/http"
	"strings"
	"testing"

	"speedmatrix/engine/servers"
	"speedmatrix/engine/sim"
)

func status(t *testing.T, url, key string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestStartServesAndLabelsSimulated(t *testing.T) {
	tg, stop, err := Start("tiny", Options{TimeScale: 50, Model: "my-model"})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if !strings.HasPrefix(tg.BaseURL, "http://127.0.0.1:") {
		t.Errorf("BaseURL = %q, want a loopback URL", tg.BaseURL)
	}
	if tg.Model != "my-model" {
		t.Errorf("Model = %q, want my-model", tg.Model)
	}
	h := tg.Header
	if !h.Server.Simulated || h.Server.SimProfile != "tiny" || h.Server.Name != "vllm" {
		t.Errorf("Engine = %+v, want simulated vllm profile tiny", h.Server)
	}
	if !strings.Contains(h.Hardware.Type, "simulated") || !strings.Contains(h.Hardware.Note, "simulated") {
		t.Errorf("Hardware = %+v, want it labelled simulated", h.Hardware)
	}
	if len(h.Hardware.GPUs) != 1 || h.Run.Model == "" {
		t.Errorf("header lacks the profile's GPU or model: %+v", h)
	}
	if got := status(t, tg.BaseURL+"/v1/models", ""); got != http.StatusOK {
		t.Errorf("GET /v1/models = %d, want 200", got)
	}
}

func TestStartAPIKey(t *testing.T) {
	tg, stop, err := Start("tiny", Options{APIKey: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if tg.APIKey != "s3cret" {
		t.Errorf("target APIKey = %q, want the key", tg.APIKey)
	}
	if got := status(t, tg.BaseURL+"/v1/models", ""); got != http.StatusUnauthorized {
		t.Errorf("without key: %d, want 401", got)
	}
	if got := status(t, tg.BaseURL+"/v1/models", "s3cret"); got != http.StatusOK {
		t.Errorf("with key: %d, want 200", got)
	}
}

func TestStopClosesServer(t *testing.T) {
	tg, stop, err := Start("tiny", Options{})
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if _, err := http.Get(tg.BaseURL + "/health"); err == nil {
		t.Error("server still answers after stop")
	}
}

func TestUnknownProfile(t *testing.T) {
	_, stop, err := Start("nope", Options{})
	if err == nil || stop != nil {
		t.Fatalf("Start(nope) = %v, stop set %v; want an error and no stop", err, stop != nil)
	}
	if !strings.Contains(err.Error(), "tiny") {
		t.Errorf("error %q should list the known profiles", err)
	}
}

func TestSimOptionsNoise(t *testing.T) {
	p, err := sim.LookupProfile("gemma-4-e2b-rtxpro6000")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts  Options
		noise bool
	}{
		{Options{Seed: 3}, true},
		{Options{Seed: 3, NoNoise: true}, false},
	} {
		o := simOptions(p, tc.opts)
		if o.Profile.Noise.On() != tc.noise || o.Seed != 3 {
			t.Errorf("%+v: noise %+v, seed %d; want noise on = %v, seed 3", tc.opts, o.Profile.Noise, o.Seed, tc.noise)
		}
	}
	if !p.Noise.On() {
		t.Errorf("the profile itself lost its noise")
	}
}

// TestEverySimModeStarts: the simulator speaks every mode servers.Registry
// names, as the CLI and the app offer them.
func TestEverySimModeStarts(t *testing.T) {
	for _, mode := range servers.SimModes() {
		_, stop, err := Start("tiny", Options{TimeScale: 50, Mode: mode})
		if err != nil {
			t.Errorf("Start in mode %q: %v", mode, err)
			continue
		}
		stop()
	}
}
