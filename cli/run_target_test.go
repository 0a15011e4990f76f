package cli

import (
	"context"
	"io"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/simtarget"
	"speedmatrix/hw"
)

// TestRemoteEndpointHardware: an endpoint on another machine gets no
// hardware of this one (the title would name this machine's CPU as the
// server's): its Hardware section is a remote server's, unknown here, and a
// simulator found there is described by its profile's rig.
func TestRemoteEndpointHardware(t *testing.T) {
	c := cliFor(t)
	hwCanned(t, hwCanned3090, nil)
	c.Capture = func(context.Context, string) engine.ServerProcess {
		return engine.ServerProcess{NotCaptured: "the server is not on this machine (192.0.2.10:8000)"}
	}
	tg, stop, err := c.endpointTarget(t.Context(), "http://192.0.2.10:8000", "", "", gpuMetrics{})
	if err != nil {
		t.Fatal(err)
	}
	stop()
	h := tg.Header.Hardware
	if h.Whose != engine.HardwareOfRemote || h.CPU != "" || len(h.GPUs) != 0 || tg.Telemetry != nil || tg.SimulatorFor == nil {
		t.Errorf("Hardware %+v, telemetry %v, simulator recognised %v: want a remote server's, with nothing of this machine", h, tg.Telemetry, tg.SimulatorFor != nil)
	}
}

// TestResumeAServedSimulatorAtItsEndpoint: a run of `speedmatrix sim`
// reached over HTTP has the simulator's rig as its Hardware, as an
// in-process simulator run does; --resume tells them apart by the process
// the endpoint run recorded, and measures the endpoint again.
func TestResumeAServedSimulatorAtItsEndpoint(t *testing.T) {
	c := cliFor(t)
	hwCanned(t, hw.Hardware{}, hw.ErrNoNVML)
	c.Capture = func(context.Context, string) engine.ServerProcess {
		return engine.ServerProcess{NotCaptured: "the server is not on this machine (192.0.2.10:8000)"}
	}
	prev := engine.Report{Hardware: engine.HardwareInfo{Type: simtarget.HardwareType, Whose: engine.HardwareOfSimulator},
		Server: engine.ServerInfo{Simulated: true, SimProfile: "tiny"}, Run: engine.RunInfo{Endpoint: "http://192.0.2.10:8000"},
		Process: &engine.ServerProcess{NotCaptured: "the server is not on this machine (192.0.2.10:8000)"}}
	tg, stop, err := c.target(t.Context(), targetFlags{}, &prev, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if tg.BaseURL != "http://192.0.2.10:8000" {
		t.Errorf("resumed against %s, want the endpoint the run measured", tg.BaseURL)
	}
}
