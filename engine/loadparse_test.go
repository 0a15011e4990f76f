package engine

import (
	"reflect"
	"testing"
)

func TestParseRates(t *testing.T) {
	for _, tc := range []struct {
		in        string
		want      []float64
		wantSweep bool
		wantErr   bool
	}{
		{"1,2,4,8", []float64{1, 2, 4, 8}, false, false},
		{"8 0.5; 2, 2", []float64{0.5, 2, 8}, false, false},
		{" Sweep ", nil, true, false},
		{"", nil, false, false},
		{"0", nil, false, true},
		{"-1", nil, false, true},
		{"NaN", nil, false, true},
		{"Inf", nil, false, true},
		{"fast", nil, false, true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, sweep, err := ParseRates(tc.in)
			if (err != nil) != tc.wantErr || sweep != tc.wantSweep || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseRates(%q) = %v, %v, %v; want %v, %v, error %v", tc.in, got, sweep, err, tc.want, tc.wantSweep, tc.wantErr)
			}
			if back, _, err := ParseRates(FormatRates(got)); err != nil || !reflect.DeepEqual(back, got) {
				t.Errorf("round trip: %v → %q → %v, %v", got, FormatRates(got), back, err)
			}
		})
	}
}

func TestParseTokenRange(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    TokenRange
		wantErr bool
	}{
		{"1024", TokenRange{1024, 1024}, false},
		{" 512:2048 ", TokenRange{512, 2048}, false},
		{"1K:2k", TokenRange{1024, 2048}, false},
		{"256:256", TokenRange{256, 256}, false},
		{"0", TokenRange{}, true},
		{"2048:512", TokenRange{}, true},
		{"512:", TokenRange{}, true},
		{"", TokenRange{}, true},
		{"1.5", TokenRange{}, true},
		{"99999999K", TokenRange{}, true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseTokenRange(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("ParseTokenRange(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if back, err := ParseTokenRange(FormatTokenRange(got)); err != nil || back != got {
				t.Errorf("round trip: %v → %q → %v, %v", got, FormatTokenRange(got), back, err)
			}
		})
	}
}
