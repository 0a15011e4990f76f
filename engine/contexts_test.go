package engine

import (
	"reflect"
	"testing"
)

func TestParseContexts(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"8K, 16K", []int{8192, 16384}, false},
		{"8K,16k,32000", []int{8192, 16384, 32000}, false},
		{"32768 8k;8K", []int{8192, 32768}, false},
		{"", nil, false},
		{"none", nil, false},
		{"8X", nil, true},
		{"-1", nil, true},
		{"8K,,16K", []int{8192, 16384}, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseContexts(tc.in)
			if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseContexts(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
			}
			if back, err := ParseContexts(FormatContexts(got)); err != nil || !reflect.DeepEqual(back, got) {
				t.Errorf("round trip: %v → %q → %v, %v", got, FormatContexts(got), back, err)
			}
		})
	}
	if got := FormatContexts([]int{1000, 8192}); got != "1000, 8K" {
		t.Errorf("FormatContexts = %q, want 1000, 8K", got)
	}
}

func TestParseCounts(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"1,2,4", []int{1, 2, 4}, false},
		{"4 2; 2, 1", []int{1, 2, 4}, false},
		{"", nil, false},
		{"0", nil, true},
		{"two", nil, true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseCounts(tc.in)
			if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseCounts(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
			}
			if back, err := ParseCounts(FormatCounts(got)); err != nil || !reflect.DeepEqual(back, got) {
				t.Errorf("round trip: %v → %q → %v, %v", got, FormatCounts(got), back, err)
			}
		})
	}
}
