package chaos

import (
	"bytes"
	"fmt"
)

// Needle is one string that must never appear in an output, with the kind
// of secret it is.
type Needle struct {
	Kind string // plaintext, ciphertext, age-identity, key-id, token, credential, arn, name, path
	Text string
}

// Leak is one needle found in one output. It never holds the needle itself.
type Leak struct {
	Kind  string
	Where string // e.g. "run 2 stdout"
}

func (l Leak) String() string { return fmt.Sprintf("%s in %s", l.Kind, l.Where) }

// FixedNeedles are the markers that no output may contain whatever the
// scenario: the canary marker of every plaintext string and key, SOPS's
// ciphertext envelope, and an age identity's prefix.
var FixedNeedles = []Needle{
	{Kind: "plaintext", Text: CanaryMarker},
	{Kind: "ciphertext", Text: "ENC[AES256_GCM"},
	{Kind: "age-identity", Text: "AGE-SECRET-KEY-"},
}

// Scan returns one Leak per needle kind found in data (an output named
// where). Empty needles are ignored.
func Scan(where string, data []byte, needles []Needle) []Leak {
	var out []Leak
	seen := map[string]bool{}
	for _, n := range needles {
		if n.Text == "" || seen[n.Kind] {
			continue
		}
		if bytes.Contains(data, []byte(n.Text)) {
			seen[n.Kind] = true
			out = append(out, Leak{Kind: n.Kind, Where: where})
		}
	}
	return out
}

// ScanRuns scans every output of every run: stdout, stderr and the report
// against all needles; names and paths (nameNeedles) are allowed in
// stdout only when the run showed resource names, never in the report or
// on stderr.
func ScanRuns(runs []RunResult, needles, nameNeedles []Needle, showNames bool) []Leak {
	var out []Leak
	for i, rr := range runs {
		where := func(s string) string { return fmt.Sprintf("run %d %s", i+1, s) }
		all := append(append([]Needle(nil), needles...), nameNeedles...)
		stdoutNeedles := all
		if showNames {
			stdoutNeedles = needles
		}
		out = append(out, Scan(where("stdout"), rr.Stdout, stdoutNeedles)...)
		out = append(out, Scan(where("stderr"), rr.Stderr, all)...)
		out = append(out, Scan(where("report"), rr.Report, all)...)
	}
	return out
}
