package launch

import (
	"strings"
	"testing"
)

// TestListensEverywhere: 0.0.0.0 and :: are warned of, with the port; one
// address is not.
func TestListensEverywhere(t *testing.T) {
	for _, tc := range []struct {
		host string
		port int
		want string
	}{
		{"0.0.0.0", 0, "every network interface (0.0.0.0): whoever reaches this machine on port 8000 can use it"},
		{"::", 9000, "every network interface (::): whoever reaches this machine on port 9000"},
		{"127.0.0.1", 0, ""},
		{"192.168.1.20", 0, ""},
		{"localhost", 0, ""},
		{"", 0, ""},
	} {
		got := ListensEverywhere(ServerConfig{Host: tc.host, Port: tc.port})
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("host %q: %q, want %q", tc.host, got, tc.want)
		}
	}
}
