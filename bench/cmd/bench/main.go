// Command bench is the performance harness behind `make bench`.
// It builds the CLI and the emulator, generates SOPS-encrypted repositories,
// seeds the emulator, runs the CLI in each scenario at --concurrency 1 and
// at the default, and prints (and writes to docs/benchmarks.md) wall times,
// API calls, throttled calls, peak RSS and the lower bounds that latency
// and quotas allow. See docs/benchmarks.md for the method.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts, err := parseFlags(os.Args[1:])
	if err != nil {
		if err == flag.ErrHelp {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if err := run(ctx, opts); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
