// Package hardware is the Hardware screen: the GPUs and host found, their
// links under load, and, without a GPU, the ways forward (an endpoint, the
// simulator, vLLM's CPU build), which it asks the Server screen to offer.
package hardware
