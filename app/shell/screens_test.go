package shell

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"
)

// The classes of a file that is not one screen's.
const (
	wiring = "wiring" // builds the window and wires the screens: may name every screen
	shared = "shared" // state, widgets and helpers: names no screen
)

// fileClasses sorts every non-test file of the package: by the screen it
// belongs to (the screen's field on ui), or as wiring or shared. A new file
// fails TestScreensDoNotCallEachOther until it is added here.
var fileClasses = map[string][]string{
	"server": {"server.go", "server_cpu.go", "server_endpoint.go", "server_exporters.go", "server_form.go", "server_launch.go",
		"server_models.go", "server_parallel.go", "server_sim.go", "server_start.go", "server_started.go", "server_telemetry.go", "launch_advice.go", "server_compare.go", "server_compare_rows.go", "server_compare_quality.go"},
	"matrix":  {"matrix.go", "matrix_slo.go", "matrix_prefill.go", "matrix_quality.go", "load_form.go", "load_plan.go"},
	"run":     {"run.go", "run_end.go", "runsave.go", "runstate.go", "run_load.go", "run_start.go", "run_sweep.go", "run_sweep_view.go", "run_quality.go"},
	"results": {"results.go", "export.go", "export_html.go", "results_slo.go", "results_load.go", "results_sweep.go", "results_quality.go"},
	"history": {"history.go", "history_compare.go", "history_entry.go", "history_manage.go", "history_load.go", "history_sweep.go", "history_quality.go"},
	wiring:    {"app.go", "autorun.go", "crash.go", "shortcuts.go", "tour.go"},
	shared: {"advice.go", "checks.go", "delta.go", "fynedo.go", "loadtable.go", "memory.go", "output.go", "realdeps.go", "reexec_other.go", "reexec_unix.go",
		"requests.go", "launching.go", "sweepjob.go", "sweeptext.go", "telemetry.go", "capture.go", "heatplan.go", "look.go"},
}

// TestScreensDoNotCallEachOther holds the rule of appState (state.go): a
// screen's files name no other screen, and shared files name none. A
// screen is named by its field on ui (u.results), by a type declared in its
// files (resultsTab), or by a function of its files that takes the ui (a
// method of ui, a free function with a *ui parameter). Wiring files (app.go
// and the like) are where the screens are put together; they may name any.
func TestScreensDoNotCallEachOther(t *testing.T) {
	p := parseApp(t)
	for _, name := range p.names {
		class := p.class[name]
		if class == wiring {
			continue
		}
		for _, v := range p.violations(p.files[name], class) {
			t.Errorf("%s: %s", p.fset.Position(v.pos), v.what)
		}
	}
}

// appPackage is the package's non-test files, parsed, with what the rule
// needs to know of their declarations.
type appPackage struct {
	fset  *token.FileSet
	names []string // the files, sorted
	files map[string]*ast.File
	class map[string]string // file → screen, wiring or shared
	// screens are ui's fields that hold a screen.
	screens []string
	// fields, results and methods are the type names of struct fields,
	// of functions' and of methods' first results, by type and name.
	fields  map[string]map[string]string
	results map[string]string
	methods map[string]map[string]string
	// owner is the screen that declares a package-level name: its types,
	// and its functions that take the ui.
	owner map[string]string
	// uiMethods are ui's methods declared in a screen's files, by name.
	uiMethods map[string]string
}

// parseApp parses the package and checks that fileClasses sorts every file
// and names every screen.
func parseApp(t *testing.T) *appPackage {
	t.Helper()
	p := &appPackage{fset: token.NewFileSet(), files: map[string]*ast.File{}, class: map[string]string{},
		fields: map[string]map[string]string{}, results: map[string]string{}, methods: map[string]map[string]string{},
		owner: map[string]string{}, uiMethods: map[string]string{}}
	for class, files := range fileClasses {
		for _, f := range files {
			p.class[f] = class
		}
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if _, ok := p.class[name]; !ok {
			t.Errorf("%s is not in fileClasses (screens_test.go): add it under its screen, or as wiring or shared", name)
		}
		f, err := parser.ParseFile(p.fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		p.files[name] = f
		p.names = append(p.names, name)
	}
	for name := range p.class {
		if p.files[name] == nil {
			t.Errorf("fileClasses lists %s, which is gone: remove it", name)
		}
	}
	for _, name := range p.names {
		p.declare(p.files[name], p.class[name])
	}
	p.findScreens(t)
	return p
}

// declare records the declarations of f, a file of class.
func (p *appPackage) declare(f *ast.File, class string) {
	screen := class != wiring && class != shared
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			for _, s := range d.Specs {
				ts, ok := s.(*ast.TypeSpec)
				if !ok {
					continue
				}
				if screen {
					p.owner[ts.Name.Name] = class
				}
				if st, ok := ts.Type.(*ast.StructType); ok {
					p.fields[ts.Name.Name] = fieldTypes(st.Fields)
				}
			}
		case *ast.FuncDecl:
			p.declareFunc(d, class, screen)
		}
	}
}

// declareFunc records a function's or a method's result, and the screen
// whose files declare it when it takes the ui.
func (p *appPackage) declareFunc(d *ast.FuncDecl, class string, screen bool) {
	result := ""
	if r := d.Type.Results; r != nil && len(r.List) > 0 {
		result = typeName(r.List[0].Type)
	}
	if d.Recv == nil {
		p.results[d.Name.Name] = result
		if screen && takesUI(d.Type.Params) {
			p.owner[d.Name.Name] = class
		}
		return
	}
	recv := typeName(d.Recv.List[0].Type)
	if p.methods[recv] == nil {
		p.methods[recv] = map[string]string{}
	}
	p.methods[recv][d.Name.Name] = result
	if screen && recv == "ui" {
		p.uiMethods[d.Name.Name] = class
	}
}

// findScreens lists ui's fields that hold a screen (a type named …Tab)
// and checks that each is a class of fileClasses whose files declare its type.
func (p *appPackage) findScreens(t *testing.T) {
	t.Helper()
	for field, typ := range p.fields["ui"] {
		if strings.HasSuffix(typ, "Tab") {
			p.screens = append(p.screens, field)
			if p.owner[typ] != field {
				t.Errorf("ui.%s holds a %s, which no file of the %q screen in fileClasses declares", field, typ, field)
			}
		}
	}
	slices.Sort(p.screens)
	for class := range fileClasses {
		if class != wiring && class != shared && !slices.Contains(p.screens, class) {
			t.Errorf("fileClasses has a screen %q, but ui has no such screen field", class)
		}
	}
	if len(p.screens) == 0 {
		t.Fatal("found no screen among ui's fields")
	}
}

// violation is where a file names another screen, and what it names.
type violation struct {
	pos  token.Pos
	what string
}

// violations lists where f, a file of class, names a screen not its own.
func (p *appPackage) violations(f *ast.File, class string) []violation {
	var vs []violation
	add := func(pos token.Pos, format string, args ...any) {
		vs = append(vs, violation{pos, fmt.Sprintf("%s file names %s", describe(class), fmt.Sprintf(format, args...))})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		name := sel.Sel.Name
		screen, isScreen := "", slices.Contains(p.screens, name)
		if isScreen {
			screen = name
		} else if s, ok := p.uiMethods[name]; ok {
			screen = s
		}
		if screen == "" || screen == class {
			return true
		}
		switch typ := p.typeOf(sel.X); {
		case typ == "ui" && isScreen:
			add(sel.Pos(), "%s, the %s screen: screens talk through appState (state.go)", render(sel), screen)
		case typ == "ui":
			add(sel.Pos(), "%s, a method of the %s screen's files: move it to a shared file, or go through appState", render(sel), screen)
		case typ == "" && isScreen:
			add(sel.Pos(), "%s, and the test cannot tell whether %s is the ui: give it a declared type", render(sel), render(sel.X))
		}
		return true
	})
	for _, id := range f.Unresolved {
		if s, ok := p.owner[id.Name]; ok && s != class {
			add(id.Pos(), "%s, declared in the %s screen's files: move it to a shared file, or go through appState", id.Name, s)
		}
	}
	slices.SortFunc(vs, func(a, b violation) int { return int(a.pos - b.pos) })
	return vs
}

// describe names a class of files in a message: "the run screen's", "a shared".
func describe(class string) string {
	if class == shared {
		return "a shared"
	}
	return "a " + class + " screen"
}

// typeOf is the name of the type of e, as far as the declarations in the
// package tell without type-checking ("" when they don't): for a variable
// or parameter its declared type or the type of its value, for x.f the
// type of field f, for a call the function's first result.
func (p *appPackage) typeOf(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return p.identType(e)
	case *ast.SelectorExpr:
		typ := p.typeOf(e.X)
		if f, ok := p.fields[typ][e.Sel.Name]; ok || typ != "ui" {
			return f
		}
		// A field of the app.UI that ui embeds, which holds no screen.
		return "app.UI"
	case *ast.StarExpr:
		return p.typeOf(e.X)
	case *ast.ParenExpr:
		return p.typeOf(e.X)
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return p.typeOf(e.X)
		}
	case *ast.CompositeLit:
		return typeName(e.Type)
	case *ast.CallExpr:
		switch fun := e.Fun.(type) {
		case *ast.Ident:
			return p.results[fun.Name]
		case *ast.SelectorExpr:
			return p.methods[p.typeOf(fun.X)][fun.Sel.Name]
		}
	}
	return ""
}

// identType is the type of a variable or parameter declared in its file.
func (p *appPackage) identType(id *ast.Ident) string {
	if id.Obj == nil || id.Obj.Kind != ast.Var {
		return ""
	}
	switch d := id.Obj.Decl.(type) {
	case *ast.Field:
		return typeName(d.Type)
	case *ast.ValueSpec:
		if d.Type != nil {
			return typeName(d.Type)
		}
		if i := slices.IndexFunc(d.Names, func(n *ast.Ident) bool { return n.Name == id.Name }); i >= 0 && i < len(d.Values) {
			return p.typeOf(d.Values[i])
		}
	case *ast.AssignStmt:
		i := slices.IndexFunc(d.Lhs, func(l ast.Expr) bool { l2, ok := l.(*ast.Ident); return ok && l2.Name == id.Name })
		if len(d.Lhs) == len(d.Rhs) && i >= 0 {
			return p.typeOf(d.Rhs[i])
		}
	}
	return ""
}

// fieldTypes maps a struct's named fields to their types' names.
func fieldTypes(fl *ast.FieldList) map[string]string {
	m := map[string]string{}
	for _, f := range fl.List {
		for _, n := range f.Names {
			m[n.Name] = typeName(f.Type)
		}
	}
	return m
}

// takesUI reports whether a parameter is a *ui.
func takesUI(params *ast.FieldList) bool {
	return slices.ContainsFunc(params.List, func(f *ast.Field) bool { return typeName(f.Type) == "ui" })
}

// typeName is the name of a named type or of a pointer to one ("" for
// any other type).
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return typeName(e.X)
	}
	return ""
}

// render writes a selector as the source does: r.u.results.
func render(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return render(e.X) + "." + e.Sel.Name
	case *ast.CallExpr:
		return render(e.Fun) + "(…)"
	}
	return "…"
}
