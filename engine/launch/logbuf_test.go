package launch

import (
	"bufio"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestLogBufferRing(t *testing.T) {
	b := newLogBuffer(3)
	var seen []string
	cancel := b.subscribe(func(l string) { seen = append(seen, l) })
	for i := 1; i <= 5; i++ {
		if i == 5 {
			cancel()
		}
		b.add(fmt.Sprint(i))
	}
	if got := b.last(0); !slices.Equal(got, []string{"3", "4", "5"}) {
		t.Errorf("last(0) = %v", got)
	}
	if got := b.last(2); !slices.Equal(got, []string{"4", "5"}) {
		t.Errorf("last(2) = %v", got)
	}
	if !slices.Equal(seen, []string{"1", "2", "3", "4"}) {
		t.Errorf("subscriber saw %v", seen)
	}
	if got := newLogBuffer(3).last(5); len(got) != 0 {
		t.Errorf("empty buffer gave %v", got)
	}
}

func TestSplitLines(t *testing.T) {
	long := strings.Repeat("x", maxLineBytes+10)
	sc := bufio.NewScanner(strings.NewReader("a\nprogress 1%\rprogress 2%\r\nb\n" + long + "\nend"))
	sc.Buffer(nil, maxLineBytes+1)
	sc.Split(splitLines)
	var got []string
	for sc.Scan() {
		got = append(got, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "progress 1%", "progress 2%", "", "b", long[:maxLineBytes], "xxxxxxxxxx", "end"}
	if !slices.Equal(got, want) {
		t.Errorf("lines = %q", got)
	}
}
