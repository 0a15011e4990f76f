package app

import (
	"context"

	"speedmatrix/engine/launch"
)

// StartServer starts cfg with the app's launcher (launch.Launch: the guard
// that ends the server's whole tree should the app die, the API key in its
// environment and never on its command line) and waits until it is ready.
// launched, when set, is told of the server as soon as its process runs,
// so that a Stop can reach it while it loads; line gets each of its log
// lines, secrets redacted, from the log reader's goroutine until
// unsubscribe. A server that does not become ready is stopped. The Launch
// form's Start and every configuration of a sweep start a server through it.
func StartServer(u *UI, ctx context.Context, cfg launch.ServerConfig, launched func(LaunchedServer), line func(string)) (srv LaunchedServer, unsubscribe func(), err error) {
	srv, err = u.Deps.Launcher.Launch(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	if launched != nil {
		launched(srv)
	}
	unsubscribe = srv.Subscribe(line)
	if err := srv.WaitReady(ctx); err != nil {
		unsubscribe()
		_ = srv.Stop()
		return nil, nil, err
	}
	return srv, unsubscribe, nil
}
