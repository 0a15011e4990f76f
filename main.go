// Command speedmatrix measures how fast a vLLM server serves an LLM: the
// desktop app by default, or headless with the run, load, sweep, quality, sim, hw and report
// subcommands.
//
// main only wires: it imports app/shell (the desktop app's window, with
// app for its options) and cli (and app/locale, which lets Fyne start
// quietly under LANG=C.UTF-8) and nothing else of its own, and gives both
// the build's version; every other package sits below those
// front ends (the layering is in docs/METHODOLOGY.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"speedmatrix/app"
	"speedmatrix/app/locale"
	"speedmatrix/app/shell"
	"speedmatrix/cli"
)

func main() {
	locale.Restore()      // Fyne has read the locale: what we start gets the user's environment
	cli.RunGuardIfAsked() // then: a copy of us may be a launched server's guard
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := dispatch(ctx, os.Args[1:])
	stop()
	if code := cli.ExitCode(err); code != 0 {
		fmt.Fprintf(os.Stderr, "speedmatrix: %v\n", err)
		os.Exit(code)
	}
}

func dispatch(ctx context.Context, args []string) error {
	if len(args) > 0 {
		if cmd, ok := cli.New(release()).Commands()[args[0]]; ok {
			return cmd(ctx, args[1:], os.Stdout, os.Stderr)
		}
	}
	fs := flag.NewFlagSet("speedmatrix", flag.ContinueOnError)
	showVersion := fs.Bool("version", false, "print the version and exit")
	opts := app.Options{Version: release()}
	fs.StringVar(&opts.Target, "target", "", "preselect the target: sim:PROFILE or an endpoint URL")
	fs.BoolVar(&opts.Autorun, "autorun", false, "start the run at launch")
	fs.StringVar(&opts.Export, "export", "", "with --autorun: export every file into `DIR` when the run ends, then quit")
	fs.StringVar(&opts.Tour, "tour", "", "visit every screen, run the Quick plan and screenshot each screen into `DIR`, then quit (the end-to-end test and docs/gallery use it)")
	window := fs.String("window", "1280x800", "the window's size, `WxH` in pixels")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: speedmatrix [flags]            the desktop app\n"+
			"       speedmatrix run|load|sweep|quality|sim|hw|report headless (add -h for each)\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unknown command %q: use run, load, sweep, quality, sim, hw or report, or no command for the app", fs.Arg(0))
	}
	var ok bool
	if opts.Width, opts.Height, ok = parseSize(*window); !ok {
		return fmt.Errorf("--window %q is not a size: write it like 1280x800 (at least 320x320)", *window)
	}
	if *showVersion {
		fmt.Println("speedmatrix", release())
		return nil
	}
	return shell.Main(opts)
}

// parseSize reads "WxH" with both sides at least 320 pixels.
func parseSize(s string) (w, h int, ok bool) {
	if n, err := fmt.Sscanf(s, "%dx%d", &w, &h); err != nil || n != 2 || w < 320 || h < 320 {
		return 0, 0, false
	}
	return w, h, true
}
