package sim

import (
	"math"
	"testing"
)

// driftCases are numerics every pseudo-model test runs under.
var driftCases = []Numerics{
	{}, {KVCacheDType: "fp8"}, {KVCacheDType: "int4_per_token_head"}, {Quantization: "awq"},
	{DType: "float32"}, {KVCacheDType: "fp8_e5m2", Quantization: "fp8"},
}

// probeState is a prefix of context tokens drawn from seed.
func probeState(m *pseudoModel, seed uint64, context int) lmState {
	s := lmStart(m.key)
	s.h ^= mix64(seed*977 + 1)
	s.n = context
	return s
}

// TestArgmaxIsDistFirst checks the greedy shortcut against the full
// distribution: the argmax computes only the head, and must pick what the
// distribution ranks first under every drift, forced tokens included.
func TestArgmaxIsDistFirst(t *testing.T) {
	tok := sharedTokenizer()
	for _, n := range driftCases {
		m := newPseudoModel(tok, "m", n)
		for i := range 3000 {
			s := probeState(m, uint64(i), 64<<(i%10))
			if i%3 == 1 {
				s.last = byteBase + '.'
			}
			srcs := m.sources(s.n, 1<<(i%4))
			forced := int32(-1)
			if i%50 == 0 {
				forced = byteBase + '7'
			}
			d := m.dist(s, srcs, forced)
			if got := m.argmax(s, srcs, forced); got != d.id[0] {
				t.Fatalf("%+v, state %d: argmax %d, distribution's first %d", n, i, got, d.id[0])
			}
		}
	}
}

// TestDistIsADistribution checks each position's distribution: logprobs
// descending, summing to one with the tail, distinct candidates that keep
// the greedy text tokenising back, and lookups that agree with the list.
func TestDistIsADistribution(t *testing.T) {
	tok := sharedTokenizer()
	comma, stop := byteBase+int32(','), byteBase+int32('.')
	for _, n := range driftCases {
		m := newPseudoModel(tok, "m", n)
		for i := range 500 {
			s := probeState(m, uint64(i), 512<<(i%6))
			if i%4 == 0 {
				s.last = stop
			}
			d := m.dist(s, m.sources(s.n, 1), -1)
			sum := math.Exp(d.tailLP)
			seen := map[int32]bool{}
			for j, id := range d.id {
				sum += math.Exp(d.lp[j])
				if j > 0 && d.lp[j] > d.lp[j-1] {
					t.Fatalf("%+v: logprobs not descending at rank %d", n, j+1)
				}
				if seen[id] {
					t.Fatalf("%+v: token %d twice among the candidates", n, id)
				}
				seen[id] = true
				if lp, rank := d.lookup(id); lp != d.lp[j] || rank != j+1 {
					t.Fatalf("%+v: lookup(%d) = %g, rank %d; want %g, rank %d", n, id, lp, rank, d.lp[j], j+1)
				}
				switch {
				case s.last == stop && (id == comma || id == stop):
					t.Fatalf("%+v: punctuation after a full stop", n)
				case id != comma && id != stop && (int(id) >= len(tok.pieces) || tok.pieces[id][0] != ' '):
					t.Fatalf("%+v: candidate %q is neither a word nor punctuation", n, tok.pieces[id])
				}
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Fatalf("%+v: probabilities sum to %g", n, sum)
			}
			if lp, rank := d.lookup(tokBOS); rank <= lmCandidates || lp >= 0 {
				t.Fatalf("%+v: a token outside the candidates has rank %d, logprob %g", n, rank, lp)
			}
		}
	}
}

// TestReferenceIsDeterministic checks that the model is its name's: two
// servers of one model predict alike, another model otherwise, and the
// reference (no lossy setting) does not depend on the batch when jitter
// is off.
func TestReferenceIsDeterministic(t *testing.T) {
	tok := sharedTokenizer()
	a, b := newPseudoModel(tok, "org/model", Numerics{}), newPseudoModel(tok, "org/model", Numerics{})
	other := newPseudoModel(tok, "org/other", Numerics{})
	invariant := newPseudoModel(tok, "org/model", Numerics{BatchInvariant: true})
	same, differs := 0, 0
	for i := range 200 {
		s := probeState(a, uint64(i), 1000)
		da, db := a.dist(s, a.sources(s.n, 1), -1), b.dist(s, b.sources(s.n, 1), -1)
		if da != db {
			t.Fatalf("state %d: two servers of one model differ", i)
		}
		if di := invariant.dist(s, invariant.sources(s.n, 16), -1); di != da {
			t.Fatalf("state %d: a batch-invariant server differs under load", i)
		}
		so := probeState(other, uint64(i), 1000)
		if do := other.dist(so, other.sources(s.n, 1), -1); do.id[0] == da.id[0] {
			same++
		}
		if dj := a.dist(s, a.sources(s.n, 16), -1); dj.lp != da.lp {
			differs++
		}
	}
	if same > 20 {
		t.Errorf("another model agrees with this one at %d of 200 positions", same)
	}
	if differs < 190 {
		t.Errorf("the batch jitter changed the logprobs at %d of 200 positions, want nearly all", differs)
	}
}
