package locale

import (
	"os"
	"testing"
)

// TestNeedsFallback: only a POSIX locale with a codeset or modifier, and
// no LANGUAGE, makes Fyne read "C" as a language; LC_ALL and LC_MESSAGES
// come before LANG, as in the reader Fyne uses.
func TestNeedsFallback(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"LANG": "C.UTF-8"}, true},
		{map[string]string{"LANG": "C.utf8"}, true},
		{map[string]string{"LC_ALL": "POSIX@euro", "LANG": "en_US.UTF-8"}, true},
		{map[string]string{"LC_MESSAGES": "C.UTF-8"}, true},
		{map[string]string{"LANG": "C"}, false},
		{map[string]string{"LANG": "POSIX"}, false},
		{map[string]string{}, false},
		{map[string]string{"LANG": "en_US.UTF-8"}, false},
		{map[string]string{"LANG": "de_DE.UTF-8", "LC_ALL": "en_GB.UTF-8"}, false},
		{map[string]string{"LANG": "C.UTF-8", "LANGUAGE": "fr"}, false},
		{map[string]string{"LC_ALL": "en_US.UTF-8", "LANG": "C.UTF-8"}, false},
	} {
		if got := needsFallback(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: needsFallback = %v, want %v", c.env, got, c.want)
		}
	}
}

// TestRestore: what init set is taken back, and only that: a LANGUAGE the
// user set stays.
func TestRestore(t *testing.T) {
	t.Setenv(languageVar, fallback)
	set = true
	Restore()
	if v, ok := os.LookupEnv(languageVar); ok {
		t.Errorf("after Restore LANGUAGE=%q", v)
	}
	t.Setenv(languageVar, "fr")
	Restore() // nothing set any more
	if got := os.Getenv(languageVar); got != "fr" {
		t.Errorf("Restore took the user's LANGUAGE: %q", got)
	}
}
