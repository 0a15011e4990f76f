// Package widget holds the widgets of the Speed Matrix app that keep no
// app state: the heatmap and its legend, chart views, text panes, banners,
// tables, the drop-down, form grids and the screen's frame. Screens build
// them and feed them what to show.
package widget
