package probe

import (
	"context"
	"sync"
)

// DefaultParallel is how many probes, or needle trials, a comparison asks
// at once: the load the noise floor was recorded under (DefaultBackground
// beside each probe), so it changes nothing the floor does not measure,
// and it cuts the phase's time about as many times on a server that
// batches.
const DefaultParallel = 4

// each runs f for 0 ≤ i < n, at most width at a time, and returns the
// error of the lowest i that failed (the others are cancelled); f writes
// its result at i, so the results are in order whatever the schedule.
func each(ctx context.Context, n, width int, f func(ctx context.Context, i int) error) error {
	if n <= 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(max(width, 1), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if errs[i] = f(ctx, i); errs[i] != nil {
					cancel()
				}
			}
		}()
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err() // the caller's, when it ended before any f failed
}
