package openai

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The streaming benchmark runs its server in a child process (this test
// binary, re-executed into TestHelperSSEServer), so that the CPU time this
// process uses, from getrusage(RUSAGE_SELF), is the client's alone. The
// server sends pre-rendered vLLM-shaped chunks, one token each, flushed one
// by one, optionally paced at a fixed interval per stream.

const (
	benchServerEnv   = "OPENAI_BENCH_SERVER"
	benchTokensEnv   = "OPENAI_BENCH_TOKENS"
	benchIntervalEnv = "OPENAI_BENCH_INTERVAL"
	benchUsageEnv    = "OPENAI_BENCH_CONTINUOUS_USAGE"
	benchStreams     = 128
	benchTokens      = 512 // tokens per stream
)

// renderStream returns the events of one chat stream of n tokens.
func renderStream(n int, continuousUsage bool) [][]byte {
	const head = `{"id":"chatcmpl-0123456789abcdef","object":"chat.completion.chunk","created":1764489600,"model":"bench","choices":[{"index":0,`
	usage := func(done int) string {
		if !continuousUsage {
			return `"usage":null`
		}
		return fmt.Sprintf(`"usage":{"prompt_tokens":8192,"total_tokens":%d,"completion_tokens":%d}`, 8192+done, done)
	}
	events := [][]byte{[]byte(ev(head + `"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],` + usage(0) + `}`))}
	for i := 1; i <= n; i++ {
		events = append(events, []byte(ev(fmt.Sprintf(head+`"delta":{"content":" tok%d"},"logprobs":null,"finish_reason":null}],%s}`, i%1000, usage(i)))))
	}
	events = append(events,
		[]byte(ev(head+`"delta":{},"logprobs":null,"finish_reason":"length","stop_reason":null}],`+usage(n)+`}`)),
		[]byte(ev(fmt.Sprintf(`{"id":"chatcmpl-0123456789abcdef","object":"chat.completion.chunk","created":1764489600,"model":"bench","choices":[],"usage":{"prompt_tokens":8192,"total_tokens":%d,"completion_tokens":%d}}`, 8192+n, n))),
		[]byte(doneEvent))
	return events
}

// pacedHandler writes events, flushing each, the i-th at start + i×interval.
// sent, if not nil, gets the time just before each event is written: the
// truth that arrival times are held to.
func pacedHandler(events [][]byte, interval time.Duration, sent func(i int, t time.Time)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		start := time.Now()
		for i, e := range events {
			if interval > 0 {
				time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
			}
			if sent != nil {
				sent(i, time.Now())
			}
			if _, err := w.Write(e); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

// TestHelperSSEServer is the benchmark's server process; it does nothing
// in a normal test run.
func TestHelperSSEServer(t *testing.T) {
	if os.Getenv(benchServerEnv) == "" {
		t.Skip("the server process of BenchmarkStream128")
	}
	n, _ := strconv.Atoi(os.Getenv(benchTokensEnv))
	interval, _ := time.ParseDuration(os.Getenv(benchIntervalEnv))
	events := renderStream(n, os.Getenv(benchUsageEnv) != "")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: pacedHandler(events, interval, nil)}
	go func() { _ = srv.Serve(l) }()
	fmt.Println(l.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin) // until the benchmark closes stdin
	_ = srv.Close()
}

// startBenchServer starts the server process and returns its URL and a stop
// function that returns the server's CPU time.
func startBenchServer(b *testing.B, interval time.Duration, continuousUsage bool) (string, func() time.Duration) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSSEServer$")
	cmd.Env = append(os.Environ(), benchServerEnv+"=1", benchTokensEnv+"="+strconv.Itoa(benchTokens), benchIntervalEnv+"="+interval.String())
	if continuousUsage {
		cmd.Env = append(cmd.Env, benchUsageEnv+"=1")
	}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("bench server: %v", err)
	}
	return "http://" + addr[:len(addr)-1], func() time.Duration {
		_ = stdin.Close()
		_ = cmd.Wait()
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStream128 ingests 128 concurrent streams of 512 one-token chunks
// each, in whole rounds of 128 streams. b.N counts tokens (rounded up to
// whole rounds). It reports total tokens per second, the client's
// CPU time per 1,000 tokens and the client's average cores in use.
func BenchmarkStream128(b *testing.B) {
	for _, bc := range []struct {
		name     string
		interval time.Duration
		usage    bool
	}{
		{"unpaced", 0, false},
		{"paced-1ms", time.Millisecond, false},
		{"paced-1ms-continuous-usage", time.Millisecond, true},
		{"paced-500us", 500 * time.Microsecond, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			url, stop := startBenchServer(b, bc.interval, bc.usage)
			c := New(url, "sk-bench")
			// Whole rounds of 128 streams, so that no round runs only a few.
			rounds := max(1, (b.N+benchStreams*benchTokens-1)/(benchStreams*benchTokens))
			streams := rounds * benchStreams
			runStreams(b, c, 8) // warm up the connections
			b.ResetTimer()
			cpu0, t0 := cpuTime(), time.Now()
			tokens := runStreams(b, c, streams)
			wall, cpu := time.Since(t0), cpuTime()-cpu0
			b.StopTimer()
			serverCPU := stop()
			b.ReportMetric(float64(tokens)/wall.Seconds(), "tok/s")
			b.ReportMetric(float64(cpu.Microseconds())/1000/(float64(tokens)/1000), "client-CPU-ms/1k-tok")
			b.ReportMetric(cpu.Seconds()/wall.Seconds(), "client-cores")
			b.ReportMetric(serverCPU.Seconds(), "server-CPU-s")
		})
	}
}

// runStreams runs streams requests over benchStreams workers and returns
// the tokens received.
func runStreams(b *testing.B, c *Client, streams int) int64 {
	var tokens atomic.Int64
	var next atomic.Int64
	var wg sync.WaitGroup
	for range benchStreams {
		wg.Go(func() {
			for next.Add(1) <= int64(streams) {
				n := 0
				_, err := c.Stream(context.Background(), StreamRequest{Model: "bench", MaxTokens: benchTokens}, func(ch Chunk) {
					if ch.Content != "" {
						n++
					}
				})
				if err != nil || n != benchTokens {
					b.Errorf("stream: %d tokens, %v", n, err)
					return
				}
				tokens.Add(int64(n))
			}
		})
	}
	wg.Wait()
	return tokens.Load()
}
