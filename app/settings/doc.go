// Package settings is the Settings screen: the theme, the runs and export
// folders, the timeouts, the sampler's interval and the SLO, applied to the
// state every screen observes, and the keyboard shortcuts' help.
package settings
