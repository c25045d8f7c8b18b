package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/bench/harness"
)

func TestMerge_LatestRunWinsAndReducedRowsAreLeftOut(t *testing.T) {
	old := harness.Results{Date: "2026-12-01T00:00:00Z", Rows: []harness.ResultRow{
		{Kind: harness.NoopSync, Label: "no-op sync", N: 10000, Concurrency: 28, Default: true, Wall: 12.9, Ratio: 1.70},
		{Kind: harness.NoopSync, Label: "no-op sync", N: 1000, Concurrency: 28, Default: true, Wall: 1.3, Ratio: 1.7},
	}}
	newer := harness.Results{Date: "2026-12-02T07:00:00Z", Rows: []harness.ResultRow{
		{Kind: harness.NoopSync, Label: "no-op sync", N: 10000, Concurrency: 28, Default: true, Wall: 9.5, Ratio: 1.25},
		{Kind: harness.NoopSync, Label: "no-op sync, DescribeSecret quota at 10 %", Reduced: true, N: 10000, Concurrency: 28, Wall: 11},
	}}
	rows := merge([]harness.Results{newer, old})
	require.Len(t, rows, 2)
	assert.Equal(t, 1000, rows[0].N)
	assert.Equal(t, 1.25, rows[1].Ratio, "the later run's row replaces the earlier one")
}

func TestDraw_WritesTheScaleAndSweepFigures(t *testing.T) {
	var rows []harness.ResultRow
	for _, n := range []int{1000, 10000, 50000} {
		rows = append(rows, harness.ResultRow{Kind: harness.NoopSync, Label: "no-op sync", N: n, Concurrency: 28, Default: true,
			Wall: float64(n) / 900, Bound: float64(n) / 1300, Ratio: 1.3, PeakRSS: 60 + float64(n)/200, CPUPer1000: 0.6})
	}
	for _, c := range []int{1, 8, 64} {
		rows = append(rows, harness.ResultRow{Kind: harness.NoopSync, Label: "no-op sync", N: 10000, Concurrency: c, Wall: 212 / float64(c), Bound: 200 / float64(c)})
	}
	dir := t.TempDir()
	written, err := draw(merge([]harness.Results{{Rows: rows}}), dir)
	require.NoError(t, err)
	var names []string
	for _, w := range written {
		names = append(names, filepath.Base(w))
		b, err := os.ReadFile(w)
		require.NoError(t, err)
		assert.True(t, strings.Contains(string(b), "<svg"), w)
	}
	assert.ElementsMatch(t, []string{"scale-ratio.svg", "scale-rss.svg", "scale-cpu.svg", "sweep.svg"}, names)
	b, _ := os.ReadFile(filepath.Join(dir, "sweep.svg"))
	assert.Contains(t, string(b), "No-op sync of 10000 secrets against --concurrency")
}

func TestDraw_WritesTheAccountsFigureFromTheParallelScopesRows(t *testing.T) {
	var rows []harness.ResultRow
	for _, p := range []int{1, 4, 8} {
		rows = append(rows, harness.ResultRow{Kind: harness.AccountsNoop, Label: string(harness.AccountsNoop), N: 10000, Concurrency: 28,
			Accounts: 200, Parallel: p, Wall: 12 / float64(p), Bound: 10 / float64(p), CPU: 8})
	}
	dir := t.TempDir()
	written, err := draw(merge([]harness.Results{{Rows: rows}}), dir)
	require.NoError(t, err)
	require.Len(t, written, 1, "only the accounts figure has rows")
	b, err := os.ReadFile(filepath.Join(dir, "accounts.svg"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "No-op sync of 200 accounts × 50 secrets against --parallel-scopes")
}
