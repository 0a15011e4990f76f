package engine

import "testing"

// TestCount: one thing in the singular, none and many in the plural.
func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 requests"}, {1, "1 request"}, {2, "2 requests"}, {-1, "-1 requests"}} {
		if got := Count(c.n, "request", "requests"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if got := Plural(1, "was", "were") + " " + Plural(3, "was", "were"); got != "was were" {
		t.Errorf("Plural = %q", got)
	}
}
