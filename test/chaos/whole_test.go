package chaos

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
)

// The whole-value draw (SPEC §3.1): WholeShare of the scenarios hold
// .sops.txt/.sops.bin documents, some switching kind between revisions;
// every whole value passes the tool's plaintext rules and keeps its value
// canaries readable; Pre versions that an earlier sync wrote are rewritten
// in the field of their kind; scenarios without the draw are the ones the
// flag-off campaign plays.
func TestGenerateWholeDrawsValidSwitchingValues(t *testing.T) {
	on, off := DefaultGenOptions, DefaultGenOptions
	on.Whole, off.Whole = true, false
	var scenarios, switches, binaryPre int
	for i := range 300 {
		a, err := Generate(5, i, off)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Generate(5, i, on)
		if err != nil {
			t.Fatal(err)
		}
		if b.Changes["whole-value-names"] == 0 {
			continue
		}
		scenarios++
		kinds := map[string]canonical.Format{}
		for ri, rev := range b.Revisions {
			if len(rev.Docs) != len(a.Revisions[ri].Docs) {
				t.Fatalf("scenario %d: the draw changed the number of documents", i)
			}
			for path, d := range rev.Docs {
				if !d.Format.Whole() {
					continue
				}
				if _, err := canonical.Canonicalize(d.Format, d.Plain); err != nil {
					t.Fatalf("scenario %d %s: %v", i, path, err)
				}
				src, ok := a.Revisions[ri].Desired(a.Scope)[SecretName(b.Scope, path)]
				if !ok || !bytes.Contains(d.Plain, src.Canon) {
					t.Fatalf("scenario %d %s: the whole value does not carry the structured value (and its canaries) readable", i, path)
				}
				if d.Format == canonical.Binary && utf8.Valid(d.Plain) {
					t.Fatalf("scenario %d %s: a binary value that is valid UTF-8", i, path)
				}
				n := SecretName(b.Scope, path)
				if k, ok := kinds[n]; ok && k != d.Format {
					switches++
				}
				kinds[n] = d.Format
			}
		}
		for _, p := range b.Pre {
			for _, v := range p.Versions {
				if v.Binary != nil && bytes.HasPrefix(v.Binary, []byte{0xfe, 0xed}) {
					binaryPre++
				}
			}
		}
	}
	if scenarios < 100 || switches == 0 || binaryPre == 0 {
		t.Fatalf("draw too rare: %d scenarios, %d kind switches, %d binary Pre versions", scenarios, switches, binaryPre)
	}
}
