// Package app is what the screens of the Speed Matrix desktop app (Fyne)
// share: the state every screen observes (State), what every screen is
// given (UI: the window, the app's dependencies, its preferences, the
// hardware found), the settings and the plan's rules. It talks to engine,
// hw and charts through narrow interfaces (Deps) so that tests can drive
// every screen with fakes.
//
// Each screen is a package inside this folder (app/hardware,
// app/settings, …) that imports app and app/widget, never another screen;
// app/widget holds the widgets that keep no app state; app/shell wires the
// window. A package inside this folder imports app, never the reverse.
// What each may import is one table for the whole tree, allowedImports in
// imports_test.go, which TestImportRules checks.
package app
