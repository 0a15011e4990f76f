package engine

import (
	"reflect"
	"strings"
	"sync"
)

// Every string a server or a file gives is held to these bounds where it
// enters, once (openai's answers, a report.json or another tool's file, a
// sweep.json, a --vary-file, a server's log): whatever shows it later —
// report.md, report.html, CSV, the pictures, the console, the app — gets
// a string of bounded length with nothing in it that reorders or hides
// text. A 1 MB model id once hung the tool in drawing.
const (
	// MaxNameRunes is the most runes of a name: a model id or path, a
	// served model name, a version, an engine, a GPU, a configuration's
	// name. Hugging Face ids are at most 96 + 1 + 96.
	MaxNameRunes = 256
	// MaxTextRunes is the most runes of any other string: a note, an
	// error, a flag's message, a launch command.
	MaxTextRunes = 4096
)

// Ellipsis ends a string that BoundText cut.
const Ellipsis = "…"

// BidiControls are the characters that display text in another order
// than it is written, so that a name can read reversed: BoundText removes
// them.
const BidiControls = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

// BoundText is s as it may be shown: BidiControls (U+202A–U+202E,
// U+2066–U+2069, U+200E, U+200F, U+061C) and control characters other
// than tab and newline (a terminal's escapes among them) removed; invalid UTF-8 as
// U+FFFD; and at most maxRunes runes, the last an ellipsis when it was
// cut. It reads no more of s than it keeps.
func BoundText(s string, maxRunes int) string { return bound(s, maxRunes, false) }

// BoundName is BoundText to MaxNameRunes, on one line: tabs and newlines
// become spaces.
func BoundName(s string) string { return bound(s, MaxNameRunes, true) }

func bound(s string, maxRunes int, oneLine bool) string {
	if maxRunes < 1 {
		return ""
	}
	if plain(s, maxRunes, oneLine) {
		return s
	}
	var b strings.Builder
	n, last := 0, 0
	for _, r := range s {
		switch {
		case hidden(r):
			continue
		case oneLine && (r == '\t' || r == '\n'):
			r = ' '
		}
		if n == maxRunes {
			return b.String()[:last] + Ellipsis
		}
		last = b.Len()
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// plain reports whether s is printable ASCII no longer than maxRunes,
// which bound keeps as it is: nearly every string, checked without
// allocating.
func plain(s string, maxRunes int, oneLine bool) bool {
	if len(s) > maxRunes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x7f || c < 0x20 && (oneLine || c != '\t' && c != '\n') {
			return false
		}
	}
	return true
}

// hidden reports whether bound removes r: a bidi control, or a control
// character other than tab and newline.
func hidden(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n'
	case r >= 0x7f && r <= 0x9f:
		return true
	}
	return r >= 0x061c && strings.ContainsRune(BidiControls, r)
}

// BoundStrings holds every exported string reachable from v, a pointer
// (struct fields, slices, arrays, maps' keys and values, pointers), to
// BoundText with MaxTextRunes: what a decoded file or answer holds,
// bounded at once whatever fields it has or gains.
func BoundStrings(v any) { boundValue(reflect.ValueOf(v)) }

func boundValue(v reflect.Value) {
	if !v.IsValid() || !holdsStrings(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			boundValue(v.Elem()) // an interface's value is not settable: only what it points to is
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if t.Field(i).IsExported() {
				boundValue(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			boundValue(v.Index(i))
		}
	case reflect.Map:
		boundMap(v)
	case reflect.String:
		if s := v.String(); v.CanSet() {
			if b := BoundText(s, MaxTextRunes); b != s {
				v.SetString(b)
			}
		}
	}
}

// stringTypes caches holdsStrings: a report's thousands of cells are of a
// few types.
var stringTypes sync.Map // reflect.Type → bool

// holdsStrings reports whether a value of t can reach an exported string,
// so that BoundStrings skips numbers, times and their slices.
func holdsStrings(t reflect.Type) bool {
	if v, ok := stringTypes.Load(t); ok {
		return v.(bool)
	}
	stringTypes.Store(t, true) // a type that holds itself: walk it
	holds := false
	switch t.Kind() {
	case reflect.String, reflect.Interface:
		holds = true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		holds = holdsStrings(t.Elem())
	case reflect.Map:
		holds = holdsStrings(t.Key()) || holdsStrings(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && holdsStrings(f.Type) {
				holds = true
				break
			}
		}
	}
	stringTypes.Store(t, holds)
	return holds
}

// boundMap bounds m's keys and values; a value is copied to be changed,
// since a map's are not addressable.
func boundMap(m reflect.Value) {
	if m.IsNil() {
		return
	}
	for _, k := range m.MapKeys() {
		val := reflect.New(m.Type().Elem()).Elem()
		val.Set(m.MapIndex(k))
		boundValue(val)
		key := k
		if k.Kind() == reflect.String {
			if b := BoundText(k.String(), MaxTextRunes); b != k.String() {
				key = reflect.New(k.Type()).Elem()
				key.SetString(b)
				m.SetMapIndex(k, reflect.Value{})
			}
		}
		m.SetMapIndex(key, val)
	}
}

// BoundReport holds a report read from a file to the bounds: every string
// to MaxTextRunes (BoundStrings), and the names a title shows to
// MaxNameRunes.
func BoundReport(r *Report) {
	BoundStrings(r)
	for _, s := range []*string{&r.Run.Model, &r.Run.ServedModel, &r.Run.Revision, &r.Run.BenchmarkTool,
		&r.Server.Name, &r.Server.Version, &r.Server.Quantization, &r.Server.Backend, &r.Server.SimProfile,
		&r.Hardware.Type, &r.Hardware.CPU} {
		*s = BoundName(*s)
	}
	for i := range r.Hardware.GPUs {
		r.Hardware.GPUs[i].Name = BoundName(r.Hardware.GPUs[i].Name)
	}
	for _, imp := range []*Import{r.Run.Imported, r.loadImported()} {
		if imp != nil {
			imp.Tool, imp.Version = BoundName(imp.Tool), BoundName(imp.Version)
		}
	}
	if f := r.Roofline; f != nil {
		f.GPU.Name, f.Model.Name = BoundName(f.GPU.Name), BoundName(f.Model.Name)
	}
	if q := r.Quality; q != nil {
		q.Reference.Model, q.Server.Model = BoundName(q.Reference.Model), BoundName(q.Server.Model)
		// The reference's name is said in one-line errors (run --resume).
		q.ReferenceFile, q.ReferenceSHA256 = BoundName(q.ReferenceFile), BoundName(q.ReferenceSHA256)
	}
}

// loadImported is the load section's Import, nil without one.
func (r *Report) loadImported() *Import {
	if r.Load == nil {
		return nil
	}
	return r.Load.Imported
}
