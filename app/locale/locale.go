// Package locale gives Fyne a locale it can parse while it starts, and
// gives the user's environment back afterwards.
//
// Fyne's translation package (fyne.io/fyne/v2/lang) reads the user's
// locale in its init, before main runs, so for every command of the one
// binary, --version and the headless subcommands included. Under
// LANG=C.UTF-8, Debian's default, its reader (github.com/jeandeaual/go-locale)
// hands Fyne "C" as a language tag, and Fyne prints "Fyne error: Error
// parsing user locale C" with its cause and source line. This package's
// init sets LANGUAGE, which that reader consults after LC_ALL, LC_MESSAGES
// and LANG, to English for that one case; main calls Restore first, so the
// servers and commands speedmatrix starts get the environment the user
// gave it.
//
// Its init runs before Fyne's: Go initializes, among the packages whose
// imports are initialized, the first by import path, and this package
// imports only os and strings, which text/template (imported by Fyne's
// lang, and sorted after "speedmatrix/app/locale") needs too. main_test.go
// checks the result on the built program.
package locale

import (
	"os"
	"strings"
)

// languageVar is the variable the locale reader consults when the locale
// is not exactly C or POSIX.
const languageVar = "LANGUAGE"

// fallback is the language Fyne gets instead of "C": English, the app's.
const fallback = "en"

// set is whether init set languageVar, for Restore to undo.
var set bool

func init() {
	if needsFallback(os.Getenv) {
		set = os.Setenv(languageVar, fallback) == nil
	}
}

// needsFallback reports whether Fyne could not parse the locale of the
// environment getenv reads: the POSIX locale with a codeset or modifier
// ("C.UTF-8", "POSIX@euro"), when LANGUAGE names no language. Exactly C
// or POSIX, and no locale at all, Fyne reads as English by itself.
func needsFallback(getenv func(string) string) bool {
	loc := ""
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if loc = getenv(v); loc != "" {
			break
		}
	}
	if loc == "C" || loc == "POSIX" || getenv(languageVar) != "" {
		return false
	}
	lang, _, _ := strings.Cut(loc, ".")
	lang, _, _ = strings.Cut(lang, "@")
	return lang == "C" || lang == "POSIX"
}

// Restore takes back what init set, so that what the program starts
// inherits the user's environment. Fyne has read the locale by the time
// main runs: main calls it first.
func Restore() {
	if set {
		os.Unsetenv(languageVar)
		set = false
	}
}
