package shell

import (
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/capture"
	"speedmatrix/engine/launch"
)

// startedCard is the Server screen's "Started as" card: how the endpoint's
// server was started, read from its process (engine/capture) at Detect and
// again at the start of every run, which records it in its report's Launch
// command, or why that could not be read. It says when it was read: a
// server restarted since is another process. UI goroutine only.
type startedCard struct {
	card    *widget.Card
	command *widget.Label // the command line, monospaced
	env     *fyne.Container
	note    *widget.Label // the container, what could not be read
}

func newStartedCard() *startedCard {
	c := &startedCard{command: widget.NewLabel(""), env: container.NewStack(), note: widget.NewLabel("")}
	c.command.TextStyle = fyne.TextStyle{Monospace: true}
	c.command.Wrapping = fyne.TextWrapBreak
	c.note.Wrapping = fyne.TextWrapWord
	c.card = widget.NewCard("Started as", "", container.NewVBox(c.command, c.env, c.note))
	c.card.Hide()
	return c
}

func (c *startedCard) Object() fyne.CanvasObject { return c.card }

// Show describes p, read at; home is written $HOME in the command, as in
// reports.
func (c *startedCard) Show(p engine.ServerProcess, at time.Time, home string) {
	c.card.Show()
	read := " · read " + at.Format("15:04:05")
	if len(p.Command) == 0 {
		c.card.SetSubTitle("not read from its process" + read)
		c.command.Hide()
		c.env.Hide()
		c.note.SetText("How this server was started could not be read: " + strings.TrimSuffix(p.NotCaptured, ".") +
			". Reports of runs against it say so in their Launch command.")
		c.note.Show()
		return
	}
	c.card.SetSubTitle(capture.StartedLine(p) + read)
	c.command.SetText(launch.CommandLine(nil, p.Command, home))
	c.command.Show()
	c.env.Objects = []fyne.CanvasObject{envFacts(p.Env)}
	c.env.Show()
	c.env.Refresh()
	var notes []string
	if p.Container != nil {
		notes = append(notes, appwidget.Sentence(capture.ContainerLine(*p.Container)))
	}
	for _, n := range p.Notes {
		notes = append(notes, appwidget.Sentence(n))
	}
	c.note.SetText(strings.Join(notes, " "))
	c.note.Hidden = len(notes) == 0
	c.note.Refresh()
}

// Hide forgets what was shown: another address is another server.
func (c *startedCard) Hide() { c.card.Hide() }

// envFacts lists the server's variables of engine.EnvPrefixes, sorted.
func envFacts(env map[string]string) fyne.CanvasObject {
	if len(env) == 0 {
		return widget.NewLabel("Environment: none of " + strings.Join(engine.EnvPrefixes, "*, ") + "* set.")
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rows := make([][2]string, len(keys))
	for i, k := range keys {
		rows[i] = [2]string{k, env[k]}
	}
	return appwidget.KeyValues(rows...)
}
