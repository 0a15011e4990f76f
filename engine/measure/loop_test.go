package measure

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// prose returns n bytes of non-repeating text: random words, so no period
// ever covers 2,048 bytes.
func prose(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 1))
	words := strings.Fields("the a river stone lamp orbit cedar violet harbor maple quartz ember falcon meadow " +
		"copper tundra willow canyon signal lantern pebble thunder and of to in")
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

func proseWithPhrases(n int, phrase string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(prose(500, uint64(100+i)) + phrase)
	}
	return b.String()
}

func feed(text string, pieces int) bool {
	var d loopDetector
	step := max(1, len(text)/pieces)
	for i := 0; i < len(text); i += step {
		if d.Write(text[i:min(i+step, len(text))]) {
			return true
		}
	}
	return d.Flush()
}

func TestLoopDetector(t *testing.T) {
	t.Parallel()
	phrase := "I will now repeat myself. "
	longPeriod := prose(600, 9) // a 600-byte paragraph, 4 times is 2,400 bytes
	cases := []struct {
		name string
		text string
		want bool
	}{
		{"long non-repeating prose", prose(60000, 1), false},
		{"the filler text", fillerText(40000), false},
		{"short phrase repeated in prose", proseWithPhrases(40, "very very very good. "+phrase+phrase), false},
		{"a loop after prose", prose(5000, 3) + strings.Repeat(phrase, 120), true},
		{"a single character repeated", prose(1000, 4) + strings.Repeat("\n", 3000), true},
		{"a paragraph repeated 4 times", prose(3000, 5) + strings.Repeat(longPeriod, 4) + longPeriod[:50], true},
		{"a paragraph repeated 3 times", prose(3000, 6) + strings.Repeat(longPeriod, 3), false},
		{"a short loop under 2,048 bytes", prose(3000, 7) + strings.Repeat(phrase, 70), false},
		{"a loop then new prose", strings.Repeat(phrase, 60) + prose(3000, 8), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, pieces := range []int{1, 37, 1000} {
				// A loop that ends in new text is gone at the next check,
				// unless a check happened while it lasted: with many small
				// writes it is caught, with one big write it is not.
				if c.name == "a loop then new prose" && pieces > 1 {
					continue
				}
				if got := feed(c.text, pieces); got != c.want {
					t.Errorf("in %d pieces: looped = %v, want %v", pieces, got, c.want)
				}
			}
		})
	}
}

func TestLoopDetectorCatchesLoopWhileItLasts(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("I will now repeat myself. ", 120) + prose(3000, 8)
	if !feed(text, 2000) {
		t.Error("a loop of 3,120 bytes streamed in small pieces was not caught")
	}
}

func FuzzLoopDetector(f *testing.F) {
	f.Add("I will now repeat myself. ", 100, uint64(1))
	f.Add("ab", 2000, uint64(2))
	f.Add("x", 1, uint64(3))
	f.Fuzz(func(t *testing.T, unit string, repeats int, seed uint64) {
		if unit == "" || len(unit) > 512 || repeats < 0 || repeats > 5000 {
			return
		}
		loop := strings.Repeat(unit, repeats)
		text := prose(3000, seed) + loop
		got := feed(text, 1)
		// The tail is periodic with period ≤ len(unit) over len(loop) bytes
		// at least; a loop of ≥ 4 units and ≥ 2,048 bytes must be found.
		if repeats >= 4 && len(loop) >= loopMinChars && !got {
			t.Errorf("%d × %q (%d bytes) not detected", repeats, unit, len(loop))
		}
		// With 2× margin the random prose itself never looks periodic, so a
		// short loop must never fire.
		if len(loop) < loopMinChars/2 && got {
			t.Errorf("%d × %q (%d bytes) detected as a loop", repeats, unit, len(loop))
		}
	})
}

func BenchmarkLoopDetector(b *testing.B) {
	text := prose(1<<20, 1)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		var d loopDetector
		for i := 0; i < len(text); i += 6 {
			d.Write(text[i:min(i+6, len(text))])
		}
	}
}
