package launch

import (
	"cmp"
	"fmt"
	"net"
)

// ListensEverywhere says, in words for any front end, that cfg's server
// will listen on every network interface (host 0.0.0.0 or ::), so that
// whoever reaches this machine can use it; "" when it listens on one
// address. The front end adds how to keep it to this machine in its own
// words (host in server.toml, the Host field).
func ListensEverywhere(cfg ServerConfig) string {
	ip := net.ParseIP(cfg.Host)
	if ip == nil || !ip.IsUnspecified() {
		return ""
	}
	return fmt.Sprintf("the server will listen on every network interface (%s): whoever reaches this machine on port %d can use it, its API key the only guard",
		cfg.Host, cmp.Or(cfg.Port, DefaultPort))
}
