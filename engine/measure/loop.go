package measure

import (
	"bytes"
)

// Loop detection thresholds (docs/METHODOLOGY.md, "Looped"): the tail of a request's text is
// periodic, some period repeated at least loopMinRepeats times over at least
// loopMinChars characters.
const (
	loopMinChars   = 2048
	loopMinRepeats = 4
)

// loopWindowBytes is how much of the tail the detector keeps. A period longer
// than a quarter of it can't repeat four times inside it, so it also bounds
// the longest period found (2,048 bytes).
const loopWindowBytes = 4 * loopMinChars

// loopCheckEvery is how many new bytes arrive between two checks: each check
// costs O(loopWindowBytes), so this keeps the cost near 32 operations a byte.
const loopCheckEvery = 256

// loopProbeBytes is the tail that must occur earlier for a check to go on.
const loopProbeBytes = 32

// loopDetector watches a stream of text and reports when its tail has become
// periodic: a period repeated at least loopMinRepeats times over at least
// loopMinChars bytes. Short repeated phrases in prose never cover 2,048
// bytes exactly, so they don't fire. The zero value is ready to use.
type loopDetector struct {
	buf       []byte
	sinceLast int
	looped    bool
	z         []int32
	rev       []byte
}

// Write adds text to the stream and reports whether the stream has looped
// (now or earlier). It never returns an error.
func (d *loopDetector) Write(text string) bool {
	if d.looped || text == "" {
		return d.looped
	}
	d.buf = append(d.buf, text...)
	if len(d.buf) > 2*loopWindowBytes {
		n := copy(d.buf, d.buf[len(d.buf)-loopWindowBytes:])
		d.buf = d.buf[:n]
	}
	d.sinceLast += len(text)
	if d.sinceLast >= loopCheckEvery && len(d.buf) >= loopMinChars {
		d.sinceLast = 0
		d.looped = d.check()
	}
	return d.looped
}

// Flush checks the text written since the last check, as at the end of a
// stream, and reports whether the stream has looped.
func (d *loopDetector) Flush() bool {
	if !d.looped && d.sinceLast > 0 && len(d.buf) >= loopMinChars {
		d.sinceLast = 0
		d.looped = d.check()
	}
	return d.looped
}

// check looks for a period p whose repetition covers the last
// max(loopMinChars, loopMinRepeats·p) bytes. On the reversed tail T, the
// periodic run of period p starting at T[0] is p + Z[p] long (Z-algorithm),
// so one linear pass answers for every p at once.
func (d *loopDetector) check() bool {
	tail := d.buf
	if len(tail) > loopWindowBytes {
		tail = tail[len(tail)-loopWindowBytes:]
	}
	n := len(tail)
	// A periodic tail repeats its last bytes one period earlier; prose
	// almost never repeats 32 bytes, so this rules most checks out cheaply.
	if !bytes.Contains(tail[:n-1], tail[n-loopProbeBytes:]) {
		return false
	}
	d.rev = d.rev[:0]
	for i := n - 1; i >= 0; i-- {
		d.rev = append(d.rev, tail[i])
	}
	z := zArray(d.rev, d.z)
	d.z = z
	for p := 1; p*loopMinRepeats <= n; p++ {
		run := p + int(z[p])
		need := max(loopMinChars, loopMinRepeats*p)
		if run >= need {
			return true
		}
	}
	return false
}

// zArray fills z with the Z-function of s: z[i] is the length of the longest
// common prefix of s and s[i:].
func zArray(s []byte, z []int32) []int32 {
	n := len(s)
	if cap(z) < n {
		z = make([]int32, n)
	}
	z = z[:n]
	if n == 0 {
		return z
	}
	z[0] = int32(n)
	l, r := 0, 0
	for i := 1; i < n; i++ {
		k := 0
		if i < r {
			k = min(r-i, int(z[i-l]))
		}
		for i+k < n && s[k] == s[i+k] {
			k++
		}
		z[i] = int32(k)
		if i+k > r {
			l, r = i, i+k
		}
	}
	return z
}
