package chaos

import (
	"slices"
	"testing"
)

func leakKinds(ls []Leak) []string {
	var k []string
	for _, l := range ls {
		k = append(k, l.Kind+"@"+l.Where)
	}
	slices.Sort(k)
	return k
}

func TestScanFindsEachKindOnce(t *testing.T) {
	needles := append(append([]Needle(nil), FixedNeedles...), Needle{Kind: "token", Text: "tok-123"}, Needle{Kind: "token", Text: "tok-456"})
	out := []byte(`{"msg":"x","resource":"cnry0011"} tok-456 tok-123 ENC[AES256_GCM,data:..]`)
	got := leakKinds(Scan("run 1 stdout", out, needles))
	want := []string{"ciphertext@run 1 stdout", "plaintext@run 1 stdout", "token@run 1 stdout"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if ls := Scan("x", []byte(`{"msg":"ok","resource":"resource-0001"}`), needles); len(ls) != 0 {
		t.Fatalf("false positives: %v", ls)
	}
}

// TestScanRunsAllowsNamesOnlyInShownLogs: names may appear on stdout with
// --show-resource-names, never in a report or on stderr.
func TestScanRunsAllowsNamesOnlyInShownLogs(t *testing.T) {
	names := []Needle{{Kind: "name", Text: "p/db"}}
	runs := []RunResult{{Stdout: []byte("resource p/db"), Report: []byte(`{"x":"p/db"}`)}}
	got := leakKinds(ScanRuns(runs, FixedNeedles, names, true))
	if !slices.Equal(got, []string{"name@run 1 report"}) {
		t.Fatalf("shown names: %v", got)
	}
	got = leakKinds(ScanRuns(runs, FixedNeedles, names, false))
	if !slices.Equal(got, []string{"name@run 1 report", "name@run 1 stdout"}) {
		t.Fatalf("hidden names: %v", got)
	}
}
