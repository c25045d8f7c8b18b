package chaos

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

func TestGenerateIsDeterministic(t *testing.T) {
	for i := range 20 {
		a, err := Generate(7, i, DefaultGenOptions)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Generate(7, i, DefaultGenOptions)
		if err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("scenario %d differs between two generations with the same seed", i)
		}
	}
	a, _ := Generate(7, 0, DefaultGenOptions)
	b, _ := Generate(8, 0, DefaultGenOptions)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) == string(jb) {
		t.Fatal("different seeds gave the same scenario")
	}
}

// TestGeneratedScenariosAreValid checks the generator's own promises over
// many scenarios: documents canonicalize to their recorded value, names are
// unique per revision, foreign secrets never share a name with a desired
// secret, plaintext strings carry the canary marker, and the final runs are
// a clean sync then a clean plan.
func TestGeneratedScenariosAreValid(t *testing.T) {
	seen := map[string]int{}
	kills := 0
	for i := range 400 {
		s, err := Generate(42, i, DefaultGenOptions)
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		for k, v := range s.Changes {
			seen[k] += v
		}
		for _, p := range s.Pre {
			seen["pre:"+p.Kind]++
		}
		kills += s.Kills()
		ever := s.EverDesired()
		for ri, rev := range s.Revisions {
			names := map[string]bool{}
			for path, d := range rev.Docs {
				if d.Path != path {
					t.Fatalf("scenario %d: doc keyed %q has path %q", i, path, d.Path)
				}
				c, err := canonical.Canonicalize(d.Format, d.Plain)
				if err != nil || string(c) != string(d.Canon) {
					t.Fatalf("scenario %d rev %d: %s does not canonicalize to its recorded value (%v)", i, ri, path, err)
				}
				if !strings.Contains(string(d.Plain), CanaryMarker) {
					t.Fatalf("scenario %d: %s holds no canary", i, path)
				}
				n := SecretName(s.Scope, path)
				if names[n] {
					t.Fatalf("scenario %d rev %d: two documents map to %s", i, ri, n)
				}
				names[n] = true
				if strings.Contains(n, CanaryMarker) || strings.Contains(path, CanaryMarker) {
					t.Fatalf("scenario %d: a name or path holds the canary marker", i)
				}
			}
			if len(rev.Docs) == 0 && !s.AllowEmpty {
				t.Fatalf("scenario %d rev %d: empty desired state without --allow-empty", i, ri)
			}
		}
		final := s.FinalRevision().Desired(s.Scope)
		for _, run := range s.Runs {
			desired := s.Revisions[run.Revision].Desired(s.Scope)
			for _, n := range run.Adopt {
				if _, ok := desired[n]; !ok {
					t.Fatalf("scenario %d: a run names %s in adopt, which its revision does not map to", i, n)
				}
			}
		}
		for _, p := range s.Pre {
			if p.Adoptable {
				// A secret made by hand to adopt: desired at the end and
				// named by the final runs (SPEC §11).
				if _, ok := final[p.Name]; !ok || !p.Foreign || !slices.Contains(s.Runs[len(s.Runs)-1].Adopt, p.Name) {
					t.Fatalf("scenario %d: hand-made %s is not desired and named in adopt at the end", i, p.Name)
				}
				continue
			}
			if p.Foreign && ever[p.Name] {
				t.Fatalf("scenario %d: foreign secret %s is also desired", i, p.Name)
			}
			if !p.Foreign && p.Tags[model.TagScope] != s.Scope.Digest() {
				t.Fatalf("scenario %d: owned secret %s lacks the scope tag", i, p.Name)
			}
		}
		n := len(s.Runs)
		if n < 3 || !s.Runs[n-2].Final || s.Runs[n-2].Command != "sync" || s.Runs[n-2].Kill != nil ||
			!s.Runs[n-1].Final || s.Runs[n-1].Command != "plan" || len(faultKinds(s.Runs[n-2].Faults)) != 0 {
			t.Fatalf("scenario %d: runs do not end with a clean sync and a clean plan", i)
		}
	}
	for _, k := range []string{"doc-add", "doc-update", "doc-remove", "doc-rename", "doc-format", "doc-reformat", "doc-readd",
		"create", "update", "restore", "delete", "pre:drift-value", "pre:binary", "pre:history", "pre:pending", "pre:graveyard",
		"pre:foreign-untagged", "pre:foreign-other-scope", "pre:foreign-other-tool", "pre:foreign-scope-only",
		"pre:foreign-managed-by-case", "pre:foreign-other-prefix"} {
		if seen[k] == 0 {
			t.Errorf("400 scenarios never exercise %s", k)
		}
	}
	if kills < 100 {
		t.Errorf("400 scenarios plan only %d kills", kills)
	}
}

func TestFormatChangeKeepsTheCanonicalValue(t *testing.T) {
	s, err := Generate(3, 0, DefaultGenOptions)
	if err != nil {
		t.Fatal(err)
	}
	g := &generator{r: s0rng(), opt: DefaultGenOptions, sc: s.Scope, used: map[string]bool{}}
	o := newObject(g.r, false, 0)
	j, err := makeDoc(g.r, "secrets/x", canonical.JSON, o)
	if err != nil {
		t.Fatal(err)
	}
	y, err := makeDoc(g.r, "secrets/x", canonical.YAML, o.shuffled(g.r))
	if err != nil {
		t.Fatal(err)
	}
	if string(j.Canon) != string(y.Canon) {
		t.Fatal("the same content in JSON and YAML canonicalizes differently")
	}
	if string(j.Plain) == string(y.Plain) {
		t.Fatal("JSON and YAML renderings are identical")
	}
}

func s0rng() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

// TestGenerateIsDeterministicWithNestedObjects: shuffling an object walked
// its members in map order while nested objects drew from the generator, so
// the same seed and index could give another scenario (seed 11 differed at
// index 137 or 190 between two generations in one process).
func TestGenerateIsDeterministicWithNestedObjects(t *testing.T) {
	for i := range 300 {
		a, _ := Generate(11, i, DefaultGenOptions)
		b, _ := Generate(11, i, DefaultGenOptions)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("scenario %d differs between two generations with the same seed", i)
		}
	}
}
