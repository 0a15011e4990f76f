package hw

import (
	"errors"
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// ErrNoNVML says that no GPU could be reached through NVML: the driver's
// library is missing, the kernel driver is not loaded, or there are no
// devices. Detect wraps it with the reason; the host part is still filled.
var ErrNoNVML = errors.New("no NVIDIA GPU available through NVML")

// noNVMLError is ErrNoNVML with the reason, which Detect also puts in
// Hardware.Note.
type noNVMLError struct{ reason string }

func (e *noNVMLError) Error() string { return ErrNoNVML.Error() + ": " + e.reason }

func (e *noNVMLError) Unwrap() error { return ErrNoNVML }

// library is the part of nvml.Interface that hw calls. Only openSession
// calls Init; every other method is reachable only through a session.
type library interface {
	Init() nvml.Return
	Shutdown() nvml.Return
	SystemGetDriverVersion() (string, nvml.Return)
	SystemGetCudaDriverVersion() (int, nvml.Return)
	DeviceGetCount() (int, nvml.Return)
	DeviceGetHandleByIndex(int) (nvml.Device, nvml.Return)
	// Extensions gives LookupSymbol, to learn whether the driver exports a
	// function before calling it.
	Extensions() nvml.ExtendedInterface
}

// session is an initialised NVML library. It is only ever made by
// openSession after Init returned SUCCESS, so holding one proves that the
// other NVML functions may be called.
type session struct {
	lib     library
	devices []nvml.Device
}

// openSession initialises NVML and enumerates the devices. On any failure it
// returns a *noNVMLError (wrapping ErrNoNVML) and no session; after a failed Init it
// calls nothing else in lib (not even Return.Error, which may call into C).
func openSession(lib library) (*session, error) {
	if lib == nil {
		return nil, &noNVMLError{"NVML not available in this build"}
	}
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return nil, &noNVMLError{initFailure(ret)}
	}
	s := &session{lib: lib}
	n, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		s.close()
		return nil, &noNVMLError{"count NVIDIA devices: " + retString(ret)}
	}
	if n == 0 {
		s.close()
		return nil, &noNVMLError{"NVIDIA driver loaded but no GPUs found"}
	}
	for i := 0; i < n; i++ {
		d, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			// Keep the index aligned with NVML's: a nil handle is reported
			// as a GPU with a note, not silently dropped.
			d = nil
		}
		s.devices = append(s.devices, d)
	}
	return s, nil
}

// close shuts NVML down; NVML counts Init calls, so each session closes its own.
func (s *session) close() {
	s.lib.Shutdown()
}

// initFailure says in words why nvml.Init failed. It only formats the code:
// when the library could not be loaded, nothing in it may be called.
func initFailure(ret nvml.Return) string {
	switch ret {
	case nvml.ERROR_LIBRARY_NOT_FOUND:
		return "NVIDIA driver not found: libnvidia-ml.so.1"
	case nvml.ERROR_DRIVER_NOT_LOADED:
		return "NVIDIA kernel driver not loaded (is the nvidia module installed and loaded?)"
	case nvml.ERROR_NO_PERMISSION:
		return "no permission to open the NVIDIA driver (check /dev/nvidia* permissions)"
	case nvml.ERROR_LIB_RM_VERSION_MISMATCH:
		return "NVIDIA driver and library versions differ (reboot after a driver update)"
	default:
		return fmt.Sprintf("NVML init failed (NVML error code %d)", int(ret))
	}
}

// retString names an NVML return code. Only call it inside a session: once
// the library is loaded, Return.Error asks the library for the text.
func retString(ret nvml.Return) string {
	return ret.Error()
}

// defaultLibrary is the system NVML (libnvidia-ml.so.1, loaded on Init).
func defaultLibrary() nvml.Interface {
	return nvml.New()
}
