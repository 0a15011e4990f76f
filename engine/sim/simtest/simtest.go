// Package simtest serves the tests of the packages that talk to the
// simulator over HTTP: one simulator of a profile, fast, at a URL that
// closes with the test.
package simtest

import (
	"net/http/httptest"
	"testing"

	"speedmatrix/engine/sim"
)

// URL serves the simulator's profile with o (its Profile set from
// profile; TimeScale 1000 when o leaves it 0) at a URL for the rest of t.
func URL(t testing.TB, profile string, o sim.Options) string {
	t.Helper()
	p, err := sim.LookupProfile(profile)
	if err != nil {
		t.Fatal(err)
	}
	o.Profile = p
	if o.TimeScale == 0 {
		o.TimeScale = 1000
	}
	return Serve(t, o)
}

// Serve serves a simulator with o exactly as given (its profile already
// set, perhaps changed) at a URL for the rest of t.
func Serve(t testing.TB, o sim.Options) string {
	t.Helper()
	s, err := sim.New(o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv.URL
}
