package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRegression_DocsNeverSayDocumentsAreCheckedBeforeTheFirstAWSCall:
// decryption (and with it every plaintext rule and every decryption
// failure) runs beside the first, read-only observation
// (docs/reconciliation.md, "Decryption beside the first observation"), and
// a run with a role-arn asks STS before it reads Git. So no sentence of
// README.md or docs/ may claim that documents are validated, decrypted or
// refused "before the first AWS call" / "before any AWS call": the true
// bound is "before any write" (or, for the structural checks, "before any
// Secrets Manager call"). README.md said "validated before the first AWS
// call".
func TestRegression_DocsNeverSayDocumentsAreCheckedBeforeTheFirstAWSCall(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	// benchmarks.md keeps dated runs of record, each true of the code it
	// measured (decryption did precede the first call before it overlapped
	// the observation); it is history, not a claim about today's code.
	files = slices.DeleteFunc(files, func(f string) bool { return filepath.Base(f) == "benchmarks.md" })
	files = append(files, "../../README.md")
	claim := regexp.MustCompile(`(?i)\*?before\*? (the first|any) AWS (call|read)`)
	about := regexp.MustCompile(`(?i)decrypt|validated|plaintext|document|key-not-allowed|structural|adopt`)
	space := regexp.MustCompile(`\s+`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Sentences within paragraphs and table cells.
		text := space.ReplaceAllString(strings.ReplaceAll(string(b), "|", ". "), " ")
		for _, s := range regexp.MustCompile(`[.;:] `).Split(text, -1) {
			if claim.MatchString(s) && about.MatchString(s) {
				t.Errorf("%s: %q: documents are checked before any write, not before the first AWS call", filepath.Base(f), s)
			}
		}
	}
}
