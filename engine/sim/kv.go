package sim

// kvCache is vLLM's paged KV cache with automatic prefix caching: blocks of
// blockSize tokens with reference counts; full blocks of a prompt are
// registered under a hash chained over the prompt's tokens, and a block whose
// last user leaves stays cached (in LRU order) until its space is needed.
type kvCache struct {
	blockSize int
	ref       []int32
	hash      []uint64 // hash a block is registered under, 0 if none
	prev      []int32  // LRU list of cached blocks with ref 0
	next      []int32
	lruHead   int32 // least recently used; -1 if empty
	lruTail   int32
	lruLen    int
	free      []int32 // unregistered blocks with ref 0
	byHash    map[uint64]int32
	used      int // blocks with ref > 0
}

func newKVCache(numBlocks, blockSize int) *kvCache {
	c := &kvCache{
		blockSize: blockSize,
		ref:       make([]int32, numBlocks),
		hash:      make([]uint64, numBlocks),
		prev:      make([]int32, numBlocks),
		next:      make([]int32, numBlocks),
		lruHead:   -1,
		lruTail:   -1,
		free:      make([]int32, numBlocks),
		byHash:    make(map[uint64]int32),
	}
	for i := range c.free {
		c.free[i] = int32(numBlocks - 1 - i)
	}
	return c
}

// available is the number of blocks that can be handed out now.
func (c *kvCache) available() int { return len(c.free) + c.lruLen }

// usage is the fraction of blocks in use by requests.
func (c *kvCache) usage() float64 { return float64(c.used) / float64(len(c.ref)) }

// hits counts the leading blocks of hashes that are cached, and how many
// of them sit in the LRU list (so taking them makes them unavailable).
func (c *kvCache) hits(hashes []uint64) (n, inLRU int) {
	for _, h := range hashes {
		b, ok := c.byHash[h]
		if !ok {
			break
		}
		if c.ref[b] == 0 {
			inLRU++
		}
		n++
	}
	return n, inLRU
}

// take references the cached block registered under h.
func (c *kvCache) take(h uint64) int32 {
	b := c.byHash[h]
	if c.ref[b] == 0 {
		c.lruRemove(b)
		c.used++
	}
	c.ref[b]++
	return b
}

// alloc hands out a new block, evicting the least recently used cached
// block when no free one is left; ok is false when the cache is full.
func (c *kvCache) alloc() (int32, bool) {
	var b int32
	switch {
	case len(c.free) > 0:
		b = c.free[len(c.free)-1]
		c.free = c.free[:len(c.free)-1]
	case c.lruHead >= 0:
		b = c.lruHead
		c.lruRemove(b)
		delete(c.byHash, c.hash[b])
		c.hash[b] = 0
	default:
		return 0, false
	}
	c.ref[b] = 1
	c.used++
	return b, true
}

// register makes block b findable under h (if no block already is).
func (c *kvCache) register(b int32, h uint64) {
	if c.hash[b] != 0 {
		return
	}
	if _, ok := c.byHash[h]; ok {
		return
	}
	c.hash[b] = h
	c.byHash[h] = b
}

// release drops one reference to each block.
func (c *kvCache) release(blocks []int32) {
	for _, b := range blocks {
		c.ref[b]--
		if c.ref[b] > 0 {
			continue
		}
		c.used--
		if c.hash[b] != 0 {
			c.lruPush(b)
		} else {
			c.free = append(c.free, b)
		}
	}
}

func (c *kvCache) lruPush(b int32) {
	c.prev[b], c.next[b] = c.lruTail, -1
	if c.lruTail >= 0 {
		c.next[c.lruTail] = b
	} else {
		c.lruHead = b
	}
	c.lruTail = b
	c.lruLen++
}

func (c *kvCache) lruRemove(b int32) {
	p, n := c.prev[b], c.next[b]
	if p >= 0 {
		c.next[p] = n
	} else {
		c.lruHead = n
	}
	if n >= 0 {
		c.prev[n] = p
	} else {
		c.lruTail = p
	}
	c.lruLen--
}

// blockHashes returns the chained hashes of the full blocks of ids.
func blockHashes(ids []int32, blockSize int) []uint64 {
	hs := make([]uint64, 0, len(ids)/blockSize)
	h := uint64(0xcbf29ce484222325)
	for i := 0; i+blockSize <= len(ids); i += blockSize {
		for _, id := range ids[i : i+blockSize] {
			h = mix64(h ^ uint64(uint32(id)))
		}
		if h == 0 {
			h = 1
		}
		hs = append(hs, h)
	}
	return hs
}
