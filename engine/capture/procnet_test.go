package capture

import (
	"net"
	"testing"
)

// procNetTCP is /proc/net/tcp with a listener on 127.0.0.1:8000 (uid
// 1001), one on every address at 2024 (uid 0) and a connection.
const procNetTCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 673074 1 0000000024614c0e 100 0 0 10 0
   1: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 640 1 00000000ca14506a 100 0 0 10 0
   2: 0100007F:1F40 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000  1000        0 91234 1 0000000024614c0e 20 4 30 10 -1
`

// procNetTCP6 is /proc/net/tcp6 with a listener on [::]:8000 and one on [::1]:9000.
const procNetTCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:1F40 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5555 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000001000000:2328 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 6666 1 0000000000000000 100 0 0 10 0
`

func TestParseProcNetTCP(t *testing.T) {
	tests := []struct {
		name, text string
		want       []listener
	}{
		{"tcp", procNetTCP, []listener{
			{IP: net.IPv4(127, 0, 0, 1), Port: 8000, UID: 1001, Inode: "673074"},
			{IP: net.IPv4zero, Port: 2024, UID: 0, Inode: "640"},
		}},
		{"tcp6", procNetTCP6, []listener{
			{IP: net.IPv6unspecified, Port: 8000, UID: 1000, Inode: "5555"},
			{IP: net.IPv6loopback, Port: 9000, UID: 1000, Inode: "6666"},
		}},
		{"garbage", "sl local\n 0: zz:1F40 0 0A a b c d 1000 0 1\n 1: 0100007F:GGGG 0 0A a b c d 1 0 2\n", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseProcNetTCP(tt.text)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d listeners %v, want %v", len(got), got, tt.want)
			}
			for i, w := range tt.want {
				g := got[i]
				if !g.IP.Equal(w.IP) || g.Port != w.Port || g.UID != w.UID || g.Inode != w.Inode {
					t.Errorf("listener %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// FuzzParseProcNetTCP: no text makes the parser panic, and every listener
// it returns has an address and a port.
func FuzzParseProcNetTCP(f *testing.F) {
	f.Add(procNetTCP)
	f.Add(procNetTCP6)
	f.Fuzz(func(t *testing.T, text string) {
		for _, l := range parseProcNetTCP(text) {
			if l.IP == nil || l.Port < 0 || l.Port > 65535 {
				t.Errorf("bad listener %+v from %q", l, text)
			}
		}
	})
}

func TestPickListener(t *testing.T) {
	ls := append(parseProcNetTCP(procNetTCP), parseProcNetTCP(procNetTCP6)...)
	loop := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	tests := []struct {
		name      string
		ips       []net.IP
		port      int
		wantInode string
	}{
		{"bound to the address wins over every address", loop, 8000, "673074"},
		{"every address", []net.IP{net.IPv4(10, 0, 0, 5)}, 8000, "5555"},
		{"IPv6 loopback", loop, 9000, "6666"},
		{"IPv4 wildcard", []net.IP{net.IPv4(10, 0, 0, 5)}, 2024, "640"},
		{"nothing on the port", loop, 8001, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, ok := pickListener(ls, tt.ips, tt.port)
			if ok != (tt.wantInode != "") || l.Inode != tt.wantInode {
				t.Errorf("pickListener = %+v, %v; want inode %q", l, ok, tt.wantInode)
			}
		})
	}
}
