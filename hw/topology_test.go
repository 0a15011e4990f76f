package hw

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

func TestTopologyDGXH200(t *testing.T) {
	h, err := detect(newH200(t).Server, fakeHost)
	if err != nil {
		t.Fatal(err)
	}
	if h.NVIDIA.DriverVersion != "550.54.15" || h.NVIDIA.CUDAVersion != "12.4" || h.NVIDIA.Note != "" {
		t.Errorf("NVIDIA %+v", h.NVIDIA)
	}
	top := h.Topology
	if top == nil || len(top.GPUs) != 8 || len(top.Links) != 28 || len(top.Notes) != 0 {
		t.Fatalf("topology %+v", top)
	}
	for _, l := range top.Links {
		if l.Path != "NV" || l.P2P != "ok" || l.GPUs[0] >= l.GPUs[1] {
			t.Errorf("link %+v, want NVLink with P2P ok", l)
		}
	}
	if top.GPUs[7].Index != 7 || top.GPUs[7].Name != "NVIDIA H200 141GB HBM3e" {
		t.Errorf("GPU 7 = %+v", top.GPUs[7])
	}
}

// TestTopologyPCIe: two GPUs without NVLink behind one host bridge, with
// peer-to-peer refused by the chipset.
func TestTopologyPCIe(t *testing.T) {
	cs := newH200(t)
	cs.DeviceGetCountFunc = func() (int, nvml.Return) { return 2, nvml.SUCCESS }
	for _, d := range cs.Devices[:2] {
		md := d.(*server.Device)
		md.GetP2PStatusFunc = func(_ nvml.Device, idx nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) {
			if idx == nvml.P2P_CAPS_INDEX_NVLINK {
				return nvml.P2P_STATUS_NOT_SUPPORTED, nvml.SUCCESS
			}
			return nvml.P2P_STATUS_CHIPSET_NOT_SUPPORTED, nvml.SUCCESS
		}
		md.GetTopologyCommonAncestorFunc = func(nvml.Device) (nvml.GpuTopologyLevel, nvml.Return) {
			return nvml.TOPOLOGY_HOSTBRIDGE, nvml.SUCCESS
		}
	}
	h, err := detect(cs.Server, fakeHost)
	if err != nil {
		t.Fatal(err)
	}
	want := "{GPUs:[0 1] Path:PHB P2P:not supported by the chipset}"
	if top := h.Topology; len(top.Links) != 1 || fmt.Sprintf("%+v", top.Links[0]) != want {
		t.Errorf("links %+v, want %s", top.Links, want)
	}
}

// TestTopologyOldDriver: a driver without the topology calls gets a note,
// and the calls are never made (the mock would panic: they are unset).
func TestTopologyOldDriver(t *testing.T) {
	cs := newH200(t)
	cs.DeviceGetCountFunc = func() (int, nvml.Return) { return 2, nvml.SUCCESS }
	for _, d := range cs.Devices[:2] {
		md := d.(*server.Device)
		md.GetP2PStatusFunc, md.GetTopologyCommonAncestorFunc = nil, nil
	}
	cs.LookupSymbolFunc = func(sym string) error {
		if sym == symCommonAncestor || sym == symP2PStatus {
			return errors.New("undefined symbol: " + sym)
		}
		return nil
	}
	h, err := detect(cs.Server, fakeHost)
	if err != nil {
		t.Fatal(err)
	}
	top := h.Topology
	if len(top.GPUs) != 2 || len(top.Links) != 1 || top.Links[0].Path != "" || len(top.Notes) != 1 || !strings.Contains(top.Notes[0], "no topology") {
		t.Errorf("topology %+v", top)
	}
}

func TestDiagnosticsWithoutNVML(t *testing.T) {
	h, err := detect(failedInit(nvml.ERROR_LIBRARY_NOT_FOUND), fakeHost)
	if !errors.Is(err, ErrNoNVML) {
		t.Fatal(err)
	}
	d := h.Diagnostics([]string{"HF_TOKEN=hf_secret0123", "CUDA_VISIBLE_DEVICES=1", "HOME=/root", "VLLM_ATTENTION_BACKEND=FLASHINFER"})
	if d.NVIDIA.Note != "NVIDIA driver not found: libnvidia-ml.so.1" || d.NVIDIA.DriverVersion != "" || d.Topology != nil {
		t.Errorf("NVIDIA %+v, topology %+v", d.NVIDIA, d.Topology)
	}
	if d.OS != "Ubuntu 24.04.5 LTS" || len(d.Env) != 3 || d.Env["HF_TOKEN"] != "<redacted>" || d.Env["CUDA_VISIBLE_DEVICES"] != "1" {
		t.Errorf("diagnostics %+v", d)
	}
}
