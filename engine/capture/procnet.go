package capture

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"net"
	"strconv"
	"strings"
)

// listener is a TCP socket in the LISTEN state, as /proc/net/tcp shows it.
type listener struct {
	IP    net.IP
	Port  int
	UID   int    // the socket's owner
	Inode string // the socket's inode, "socket:[INODE]" in /proc/PID/fd
}

// tcpListen is the LISTEN state in /proc/net/tcp's "st" column.
const tcpListen = "0A"

// parseProcNetTCP reads the listening sockets out of the text of
// /proc/net/tcp or /proc/net/tcp6. Lines it cannot read are skipped.
func parseProcNetTCP(text string) []listener {
	var out []listener
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != tcpListen {
			continue
		}
		addr, portHex, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		ip, ok := decodeIP(addr)
		port, err := strconv.ParseUint(portHex, 16, 16)
		uid, uerr := strconv.Atoi(f[7])
		if !ok || err != nil || uerr != nil {
			continue
		}
		out = append(out, listener{IP: ip, Port: int(port), UID: uid, Inode: f[9]})
	}
	return out
}

// decodeIP reads an address of /proc/net/tcp{,6}: the IP's bytes in
// groups of four, each group in the machine's (little-endian) order.
func decodeIP(h string) (net.IP, bool) {
	b, err := hex.DecodeString(h)
	if err != nil || (len(b) != net.IPv4len && len(b) != net.IPv6len) {
		return nil, false
	}
	ip := make(net.IP, len(b))
	for i := 0; i < len(b); i += 4 {
		binary.BigEndian.PutUint32(ip[i:], binary.LittleEndian.Uint32(b[i:]))
	}
	return ip, true
}

// pickListener is the socket that answers a connection to one of ips on
// port: one bound to that address, else one bound to every address.
func pickListener(ls []listener, ips []net.IP, port int) (listener, bool) {
	var any listener
	found := false
	for _, l := range ls {
		if l.Port != port {
			continue
		}
		for _, ip := range ips {
			if l.IP.Equal(ip) {
				return l, true
			}
		}
		if l.IP.IsUnspecified() && !found {
			any, found = l, true
		}
	}
	return any, found
}
