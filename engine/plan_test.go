package engine

import "testing"

// TestPrefillRepeatsAt: the Standard plan measures 3 cold requests below
// 64K and one from 64K; a plan of one count applies it everywhere; a plan
// from before the field (0) measures one, as it did.
func TestPrefillRepeatsAt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		plan    Plan
		context int
		want    int
	}{
		{"standard at 32K", DefaultPlan(), 32 * K, 3},
		{"standard just below 64K", DefaultPlan(), 64*K - 1, 3},
		{"standard at 64K", DefaultPlan(), 64 * K, 1},
		{"standard at 128K", DefaultPlan(), 128 * K, 1},
		{"5 everywhere", Plan{PrefillRepeats: 5}, 128 * K, 5},
		{"older plan", Plan{}, 8 * K, 1},
	} {
		if got := tc.plan.PrefillRepeatsAt(tc.context); got != tc.want {
			t.Errorf("%s: PrefillRepeatsAt(%d) = %d, want %d", tc.name, tc.context, got, tc.want)
		}
	}
}
