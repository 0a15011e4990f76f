package hw

import (
	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"speedmatrix/engine"
)

// symEnergy is NVML's total-energy counter (Volta and newer; older GPUs
// answer ERROR_NOT_SUPPORTED).
const symEnergy = "nvmlDeviceGetTotalEnergyConsumption"

// energyQuery reads a GPU's total-energy counter when the driver exports
// the call: NVML is loaded lazily, so a missing symbol would kill the
// process instead of returning an error (see clockEventQuery).
type energyQuery struct{ exported bool }

// energyQuery finds whether this session's driver exports the counter.
func (s *session) energyQuery() energyQuery {
	return energyQuery{exported: s.lib.Extensions().LookupSymbol(symEnergy) == nil}
}

// read fills g's counter (mJ since the driver loaded); it leaves
// EnergySource empty when the GPU or driver has none or the read fails.
func (q energyQuery) read(d nvml.Device, g *engine.GPUSample) {
	if !q.exported {
		return
	}
	if mJ, ret := d.GetTotalEnergyConsumption(); ret == nvml.SUCCESS {
		g.EnergyMJ, g.EnergySource = float64(mJ), engine.EnergyFromNVML
	}
}
