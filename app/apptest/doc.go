// Package apptest holds test helpers that the app's packages share: test
// apps made ahead, and walkers over a widget tree.
package apptest
