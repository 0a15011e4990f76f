package engine

import "testing"

func TestHardwareAddNote(t *testing.T) {
	tests := []struct{ note, sentence, want string }{
		{"", "GPUs from DCGM exporters.", "GPUs from DCGM exporters."},
		{"NVIDIA driver not found: libnvidia-ml.so.1", "GPUs from DCGM exporters.", "NVIDIA driver not found: libnvidia-ml.so.1. GPUs from DCGM exporters."},
		{"remote server x: its CPU and OS not detected. ", "B.", "remote server x: its CPU and OS not detected. B."},
		{"A.", "", "A."},
	}
	for _, tt := range tests {
		h := HardwareInfo{Note: tt.note}
		if h.AddNote(tt.sentence); h.Note != tt.want {
			t.Errorf("AddNote(%q) to %q = %q, want %q", tt.sentence, tt.note, h.Note, tt.want)
		}
	}
}
