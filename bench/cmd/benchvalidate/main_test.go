package main

import (
	"strings"
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/bench/harness"
)

func TestParseSizesSortsAndRefusesNonPositive(t *testing.T) {
	ns, err := parseSizes("10000, 1000,1000")
	if err != nil || len(ns) != 2 || ns[0] != 1000 || ns[1] != 10000 {
		t.Fatalf("parseSizes = %v, %v; want [1000 10000]", ns, err)
	}
	for _, bad := range []string{"0", "-5", "ten", ""} {
		if _, err := parseSizes(bad); err == nil {
			t.Errorf("parseSizes(%q) accepted", bad)
		}
	}
}

func TestRenderGivesTheMedianAndTheRangePerMode(t *testing.T) {
	ms := func(walls ...time.Duration) []harness.Measurement {
		var out []harness.Measurement
		for _, w := range walls {
			out = append(out, harness.Measurement{Wall: w, CPU: 2 * w, MaxRSSKiB: 80 * 1024})
		}
		return out
	}
	got := render([]*result{
		{n: 10000, mode: modes[0], ms: ms(900*time.Millisecond, 1200*time.Millisecond, 1000*time.Millisecond)},
	}, 3, time.Minute)
	for _, want := range []string{
		"| 10000 | validate --no-decrypt (no key) | 1.00 s | 0.90–1.20 s | 2.00 s | 80 MiB | 0.100 s |",
		"3 runs of each mode per size",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("render lacks %q:\n%s", want, got)
		}
	}
}
