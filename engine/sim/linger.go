package sim

// linger keeps q in the scheduler after its client left, until model time
// untilS, when plan aborts it (Faults.LingerAfterDisconnect). Until then q
// runs as if its client were still reading.
func (c *core) linger(q *seq, untilS float64) {
	if q.state == stDone || q.lingering {
		return
	}
	q.lingering, q.abortAtS = true, untilS
	c.lingering = append(c.lingering, q)
}

// expire aborts the lingering sequences whose time is up at nowS.
func (c *core) expire(nowS float64) {
	kept := c.lingering[:0]
	for _, q := range c.lingering {
		switch {
		case q.state == stDone:
		case nowS >= q.abortAtS:
			c.abort(q)
		default:
			kept = append(kept, q)
		}
	}
	clear(c.lingering[len(kept):])
	c.lingering = kept
}

// lingeringLive counts the sequences still generating after their client left.
func (c *core) lingeringLive() int {
	n := 0
	for _, q := range c.lingering {
		if q.state != stDone {
			n++
		}
	}
	return n
}
