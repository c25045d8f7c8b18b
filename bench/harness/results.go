package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Results is the machine-readable record of one harness run, written
// beside docs/benchmarks.md (docs/benchmarks/<section>.json) for the
// figures that bench/cmd/benchplot draws. Times are seconds, memory MiB.
type Results struct {
	Section  string      `json:"section"`
	Date     string      `json:"date"` // RFC 3339, UTC
	Machine  string      `json:"machine"`
	Tree     string      `json:"tree"`
	Load     string      `json:"load_average"` // 1 min, start and end
	Latency  float64     `json:"latency_s"`
	Rows     []ResultRow `json:"rows"`
	Verdicts []Verdict   `json:"verdicts"`
	// Baseline names the -baseline build ("" = none asked for), with why
	// it was not built when it was not; BeforeAfter are its runs and the
	// current build's beside them, in the order run. They are kept out of
	// Rows, which the figures draw.
	Baseline    string      `json:"baseline,omitempty"`
	BeforeAfter []ResultRow `json:"before_after,omitempty"`
}

// ResultRow is one measured run (skipped rows are left out).
type ResultRow struct {
	Kind        Kind     `json:"kind"`
	Label       string   `json:"label"` // Scenario.Label: kind and reduced quotas
	Reduced     bool     `json:"reduced_quotas,omitempty"`
	N           int      `json:"n"`
	M           int      `json:"m,omitempty"`
	Concurrency int      `json:"concurrency"`
	Default     bool     `json:"default_concurrency,omitempty"` // run without --concurrency
	Wall        float64  `json:"wall_s"`
	Bound       float64  `json:"bound_s"`
	Ratio       float64  `json:"wall_per_bound"`
	Decrypt     float64  `json:"desired_state_s"`
	CPU         float64  `json:"cpu_s"`
	CPUPer1000  float64  `json:"cpu_s_per_1000"`
	PeakRSS     float64  `json:"peak_rss_mib"`
	Calls       int64    `json:"calls"`
	Throttled   int64    `json:"throttled"`
	Exit        int      `json:"exit"`
	Status      string   `json:"status"`
	Problems    []string `json:"problems,omitempty"`
	// Binary is "baseline" or "current" in Results.BeforeAfter; "" in
	// Rows (the current build).
	Binary string `json:"binary,omitempty"`
	// Load is the 1-minute load average as the run started.
	Load string `json:"load,omitempty"`
	// The many-accounts rows' shape (Scenario.Accounts): the accounts,
	// those unreachable, --parallel-scopes (OUs for scopes generate), and
	// the load average as the run ended.
	Accounts    int    `json:"accounts,omitempty"`
	Unreachable int    `json:"unreachable,omitempty"`
	Parallel    int    `json:"parallel_scopes,omitempty"`
	OUs         int    `json:"ous,omitempty"`
	LoadAfter   string `json:"load_after,omitempty"`
}

// NewResultRow records r; ok is false for a row that was not measured.
func NewResultRow(r Row, isDefault bool) (ResultRow, bool) {
	if r.Skipped != "" {
		return ResultRow{}, false
	}
	return ResultRow{
		Kind: r.Scenario.Kind, Label: r.Scenario.Label(), Reduced: r.Scenario.Reduced(),
		N: r.Scenario.N, M: r.Scenario.M, Concurrency: r.Scenario.Concurrency, Default: isDefault,
		Wall: r.Wall.Seconds(), Bound: r.Bound.Seconds(), Ratio: r.Ratio(), Decrypt: r.Decrypt().Seconds(),
		CPU: r.CPU.Seconds(), CPUPer1000: r.CPUPer1000(), PeakRSS: float64(r.MaxRSSKiB) / 1024,
		Calls: r.Delta.Calls.Total(), Throttled: r.Delta.Throttled.Total(),
		Exit: r.ExitCode, Status: r.Status, Problems: r.Problems, Load: r.Load,
		Accounts: r.Scenario.Accounts.Accounts, Unreachable: r.Scenario.Accounts.Unreachable, Parallel: r.Scenario.Accounts.Parallel,
		OUs: r.Scenario.Accounts.OUs, LoadAfter: r.LoadAfter,
	}, true
}

// WriteResults writes res as indented JSON to path (its directory is
// created).
func WriteResults(path string, res Results) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadResults reads a file WriteResults wrote.
func ReadResults(path string) (Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Results{}, err
	}
	var res Results
	if err := json.Unmarshal(b, &res); err != nil {
		return Results{}, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}
