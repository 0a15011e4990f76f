# lib.sh: what the rig's scripts share; source it. CHECK, when set, starts
# every PASS and FAIL line ("ray: …"); fails counts the FAIL lines.
fails=0
pass() { echo "PASS ${CHECK:+$CHECK: }$*"; }
fail() {
	echo "FAIL ${CHECK:+$CHECK: }$*"
	fails=$((fails + 1))
}
# freeport prints a TCP port of 127.0.0.1 that nothing listens on.
freeport() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
