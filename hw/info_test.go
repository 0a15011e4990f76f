package hw

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// Hardware's JSON reads back as itself, and as the report's HardwareInfo.
func TestHardwareJSONRoundTrip(t *testing.T) {
	h, err := detect(newH200(t).Server, fakeHost)
	if err != nil {
		t.Fatal(err)
	}
	h.GPUs[2].Notes = []string{"power limit: ERROR_NOT_SUPPORTED"}
	data, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var back Hardware
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, h) {
		t.Errorf("round trip changed Hardware:\n got %+v\nwant %+v", back, h)
	}
	var info engine.HardwareInfo
	if err := json.Unmarshal(data, &info); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(info, h.Info()) {
		t.Errorf("Hardware JSON read as HardwareInfo:\n got %+v\nwant %+v", info, h.Info())
	}
	for _, key := range []string{`"peak_bandwidth_gb_s":4916.736`, `"pcie_cur_gen":1`, `"cpu_threads":24`, `"type":"Discrete GPU"`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}
