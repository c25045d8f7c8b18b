package keydiff

import (
	"encoding/json"
	"fmt"
	"testing"
)

// doc1KiB returns about 1 KiB of JSON for secret i: nested objects, a
// list and 28 leaves (a typical application secret); changed alters one
// leaf, drops one and adds one (the observed side of an update).
func doc1KiB(i int, changed bool) []byte {
	m := map[string]any{}
	for g := range 4 {
		sub := map[string]any{}
		for k := range 6 {
			sub[fmt.Sprintf("key_%d", k)] = fmt.Sprintf("value-%06d-%d-%d-abcdefghijklmnop", i, g, k)
		}
		m[fmt.Sprintf("group_%d", g)] = sub
	}
	m["port"], m["enabled"], m["hosts"], m["name"] = 5432+i%7, i%2 == 0, []any{"a.example", "b.example"}, fmt.Sprintf("svc-%d", i)
	if changed {
		m["port"] = 1
		delete(m["group_0"].(map[string]any), "key_0")
		m["group_1"].(map[string]any)["out_of_band"] = "x"
	}
	b, _ := json.Marshal(m)
	return b
}

// BenchmarkDiff1KiB: one update's key-level diff at about 1 KiB.
func BenchmarkDiff1KiB(b *testing.B) {
	d, o := doc1KiB(1, false), doc1KiB(1, true)
	b.SetBytes(int64(len(d) + len(o)))
	for b.Loop() {
		if _, err := Diff(d, o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDiffPlan10000: the worst case of issue 13's N = 10,000 target,
// every secret of about 1 KiB an update (a no-op plan computes none). It
// reports ms per plan; compare with the no-op plan's wall time in
// docs/benchmarks.md (11.0 s at N = 10,000: 5 % is 550 ms).
func BenchmarkDiffPlan10000(b *testing.B) {
	const n = 10000
	ds, os := make([][]byte, n), make([][]byte, n)
	for i := range n {
		ds[i], os[i] = doc1KiB(i, false), doc1KiB(i, true)
	}
	for b.Loop() {
		for i := range n {
			if _, err := Diff(ds[i], os[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/plan")
}
