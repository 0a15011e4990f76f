package hw

import (
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"speedmatrix/engine"
)

// NVML's topology calls, looked up before they are called (a missing
// symbol kills the process, see clockEventQuery).
const (
	symCommonAncestor = "nvmlDeviceGetTopologyCommonAncestor"
	symP2PStatus      = "nvmlDeviceGetP2PStatus"
)

// topology reads which GPUs the session has and how each pair is
// connected: NVLink when NVML says the pair can use it for peer-to-peer,
// else the PCIe path from their closest common ancestor; and whether one
// may read the other's memory directly. A query that fails leaves its
// field empty and adds a note.
func (s *session) topology(gpus []GPU) *engine.Topology {
	t := &engine.Topology{GPUs: []engine.TopologyGPU{}}
	for i, g := range gpus {
		tg := engine.TopologyGPU{Index: i, Name: g.Name}
		if d := s.devices[i]; d != nil {
			if pci, ret := d.GetPciInfo(); ret == nvml.SUCCESS {
				tg.PCIBusID = cString(pci.BusId[:])
			}
		}
		t.GPUs = append(t.GPUs, tg)
	}
	ext := s.lib.Extensions()
	canPath, canP2P := ext.LookupSymbol(symCommonAncestor) == nil, ext.LookupSymbol(symP2PStatus) == nil
	if len(gpus) > 1 && (!canPath || !canP2P) {
		t.Notes = append(t.Notes, "this NVIDIA driver has no topology or peer-to-peer query")
	}
	for i := range s.devices {
		for j := i + 1; j < len(s.devices); j++ {
			a, b := s.devices[i], s.devices[j]
			if a == nil || b == nil {
				continue
			}
			link := engine.GPULink{GPUs: [2]int{i, j}}
			if canP2P {
				if st, ret := a.GetP2PStatus(b, nvml.P2P_CAPS_INDEX_NVLINK); ret == nvml.SUCCESS && st == nvml.P2P_STATUS_OK {
					link.Path = "NV"
				}
				if st, ret := a.GetP2PStatus(b, nvml.P2P_CAPS_INDEX_READ); ret == nvml.SUCCESS {
					link.P2P = p2pWords(st)
				} else {
					t.Notes = append(t.Notes, linkNote(i, j, "peer-to-peer status", ret))
				}
			}
			if canPath && link.Path == "" {
				if level, ret := a.GetTopologyCommonAncestor(b); ret == nvml.SUCCESS {
					link.Path = pathName(level)
				} else {
					t.Notes = append(t.Notes, linkNote(i, j, "common ancestor", ret))
				}
			}
			t.Links = append(t.Links, link)
		}
	}
	return t
}

// pathName is a common ancestor in `nvidia-smi topo -m` words.
func pathName(level nvml.GpuTopologyLevel) string {
	switch level {
	case nvml.TOPOLOGY_INTERNAL:
		return "X"
	case nvml.TOPOLOGY_SINGLE:
		return "PIX"
	case nvml.TOPOLOGY_MULTIPLE:
		return "PXB"
	case nvml.TOPOLOGY_HOSTBRIDGE:
		return "PHB"
	case nvml.TOPOLOGY_NODE:
		return "NODE"
	}
	return "SYS"
}

// p2pWords says what NVML's peer-to-peer status means.
func p2pWords(st nvml.GpuP2PStatus) string {
	switch st {
	case nvml.P2P_STATUS_OK:
		return "ok"
	case nvml.P2P_STATUS_CHIPSET_NOT_SUPPORTED:
		return "not supported by the chipset"
	case nvml.P2P_STATUS_GPU_NOT_SUPPORTED:
		return "not supported by the GPU"
	case nvml.P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED:
		return "not supported by the I/O hub topology"
	case nvml.P2P_STATUS_DISABLED_BY_REGKEY:
		return "disabled by a driver registry key"
	case nvml.P2P_STATUS_NOT_SUPPORTED:
		return "not supported"
	}
	return "unknown"
}

func linkNote(i, j int, what string, ret nvml.Return) string {
	return fmt.Sprintf("GPU %d–%d %s: %s", i, j, what, retString(ret))
}

// cString is a NUL-terminated C string (of C chars, signed or not).
func cString[C int8 | uint8](b []C) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}
