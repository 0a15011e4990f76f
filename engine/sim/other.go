package sim

// The size of each request of Faults.OtherLoad (capped by the profile's
// max model len): a prompt of its own, sharing no prefix with any other,
// and an output that ignores EOS.
const (
	OtherPromptTokens = 512
	OtherMaxTokens    = 1024
)

// addOtherLoad submits n requests of another client at model time nowS;
// each is replaced by a new one when it finishes.
func (c *core) addOtherLoad(n int, nowS float64) {
	for range n {
		c.submitOther(nowS)
	}
}

// submitOther submits one request of the other load at model time nowS.
func (c *core) submitOther(nowS float64) {
	c.others++
	prompt := min(OtherPromptTokens, c.prof.MaxModelLen/2)
	hashes := make([]uint64, prompt/c.prof.BlockSize)
	for i := range hashes {
		hashes[i] = mix64(uint64(c.others)<<32^uint64(i)^0x07e410ad) | 1
	}
	q := &seq{
		promptLen: prompt, hashes: hashes, reason: "length", internal: true,
		stopAt:  min(OtherMaxTokens, c.prof.MaxModelLen-prompt),
		specKey: mix64(uint64(c.others) ^ 0x07e4),
	}
	c.submit(q, nowS)
}
