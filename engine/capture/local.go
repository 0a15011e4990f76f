package capture

import (
	"context"
	"net"
	"slices"
	"strings"
	"time"
)

// resolveTimeout bounds the name lookup of an endpoint's host.
const resolveTimeout = 2 * time.Second

// IsLocal reports whether host (a URL's host name, without the port) is
// this machine: localhost, a loopback address, one of this machine's
// interface addresses, or a name that resolves to one of them.
func IsLocal(ctx context.Context, host string) bool {
	return len(localIPs(ctx, host)) > 0
}

// localIPs are the addresses of host that are this machine's (none when
// host is another machine or does not resolve).
func localIPs(ctx context.Context, host string) []net.IP {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	}
	var ips []net.IP
	if ip := net.ParseIP(host); ip != nil {
		ips = []net.IP{ip}
	} else {
		ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
		defer cancel()
		addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return nil
		}
		for _, a := range addrs {
			ips = append(ips, a.IP)
		}
	}
	own := interfaceIPs()
	return slices.DeleteFunc(ips, func(ip net.IP) bool {
		return !ip.IsLoopback() && !slices.ContainsFunc(own, ip.Equal)
	})
}

// interfaceIPs are the addresses of this machine's network interfaces.
func interfaceIPs() []net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var ips []net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			ips = append(ips, n.IP)
		}
	}
	return ips
}
