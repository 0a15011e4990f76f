package sim

// What only the tests use: helpers that read a value back, and entry
// points the product reaches another way.

func (c *kvCache) numBlocks() int { return len(c.ref) }
