// Channel throughput in Go, the peer of chan_bench.cpp: P producer goroutines send N int64
// values in all to one consumer (the main goroutine) through a buffered channel of capacity C.
// Run with GOMAXPROCS=2 (run.py sets it). Output lines match chan_bench.cpp's.
//
//	go run chan_bench.go [N] [REPS]
package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"
)

func run(capacity, producers int, n int64) time.Duration {
	ch := make(chan int64, capacity)
	per := n / int64(producers)
	var wg sync.WaitGroup
	t0 := time.Now()
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int64(0); i < per; i++ {
				ch <- i
			}
		}()
	}
	var sum int64
	total := per * int64(producers)
	for i := int64(0); i < total; i++ {
		sum += <-ch
	}
	wg.Wait()
	dt := time.Since(t0)
	if want := int64(producers) * (per * (per - 1) / 2); sum != want {
		fmt.Fprintln(os.Stderr, "go: wrong sum")
		os.Exit(1)
	}
	return dt
}

func main() {
	n := int64(2000000)
	reps := 5
	if len(os.Args) > 1 {
		n, _ = strconv.ParseInt(os.Args[1], 10, 64)
	}
	if len(os.Args) > 2 {
		reps, _ = strconv.Atoi(os.Args[2])
	}
	for _, capacity := range []int{1, 1024} {
		for _, producers := range []int{1, 2} {
			ts := make([]float64, 0, reps)
			for r := 0; r < reps; r++ {
				ts = append(ts, run(capacity, producers, n).Seconds())
			}
			sort.Float64s(ts)
			med, best := ts[len(ts)/2], ts[0]
			fmt.Printf("%-5s cap=%-4d producers=%d msgs=%d median_s=%.4f rate=%.0f best_rate=%.0f\n",
				"go", capacity, producers, n, med, float64(n)/med, float64(n)/best)
		}
	}
}
