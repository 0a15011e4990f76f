package sim

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkServeStreams measures what serving costs: 256 concurrent
// streaming completions, with the model sped up so far that the server and
// its in-process clients are the only limit. tok/s is tokens delivered to
// the clients per second of wall time; run it with -cpu 1 for one core.
func BenchmarkServeStreams(b *testing.B) {
	const streams = 256
	p := tinyProfile()
	p.MaxNumSeqs, p.KVCacheTokens, p.MaxModelLen = 512, 1<<20, 1<<16
	s, err := New(Options{Profile: p, TimeScale: 1e6})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s)
	defer ts.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams}}
	perStream := max(b.N/streams, 1)
	body := fmt.Sprintf(`{"prompt":[1,300,301,302,303,304,305,306],"max_tokens":%d,"ignore_eos":true,"stream":true}`, perStream)
	b.ResetTimer()
	start, cpu := time.Now(), processCPU()
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for range streams {
		wg.Go(func() {
			n, err := readStream(client, ts.URL, body)
			if err != nil {
				b.Error(err)
			}
			mu.Lock()
			total += n
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if total != streams*perStream {
		b.Fatalf("%d tokens delivered, want %d", total, streams*perStream)
	}
	b.ReportMetric(float64(total)/elapsed.Seconds(), "tok/s")
	b.ReportMetric((processCPU()-cpu).Seconds()/elapsed.Seconds(), "cores")
}

// readStream reads one SSE completion and counts its token events.
func readStream(c *http.Client, url, body string) (int, error) {
	resp, err := c.Post(url+"/v1/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	r := bufio.NewReaderSize(resp.Body, 64<<10)
	n := 0
	for {
		line, err := r.ReadSlice('\n')
		if bytes.HasPrefix(line, []byte(`data: {`)) {
			n++
		}
		if err != nil {
			return n, nil
		}
	}
}

// BenchmarkPacedStreams serves 256 streams paced by the model at about
// 120,000 tok/s in all (tiny profile, time scale chosen for that rate):
// with -cpu 1 it shows whether one core keeps up, token by token.
func BenchmarkPacedStreams(b *testing.B) {
	const streams = 256
	p := tinyProfile()
	p.MaxNumSeqs, p.KVCacheTokens, p.MaxModelLen = 512, 1<<20, 1<<16
	perStream := max(b.N/streams, 1)
	// The model's step at the mean context of a stream over its life.
	stepS := p.Perf.decodeStepS(streams, streams*(8+perStream/2))
	scale := 120000 * stepS / streams
	s, err := New(Options{Profile: p, TimeScale: scale})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s)
	defer ts.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams}}
	body := fmt.Sprintf(`{"prompt":[1,300,301,302,303,304,305,306],"max_tokens":%d,"ignore_eos":true,"stream":true}`, perStream)
	b.ResetTimer()
	start, cpu := time.Now(), processCPU()
	var wg sync.WaitGroup
	for range streams {
		wg.Go(func() {
			if _, err := readStream(client, ts.URL, body); err != nil {
				b.Error(err)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	used := processCPU() - cpu
	b.ReportMetric(float64(streams*perStream)/elapsed.Seconds(), "tok/s")
	b.ReportMetric(float64(streams)/stepS*scale, "target-tok/s")
	b.ReportMetric(used.Seconds()/elapsed.Seconds(), "cores")
}
