package harness

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path"

	"github.com/gowebpki/jcs"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Doc is one generated desired-state document and the secret it maps to.
type Doc struct {
	// Path is the repo-relative path, "<root>/gNN/sNNNNN.sops.json".
	Path string
	// Name is the secret name the CLI derives (SPEC §3.4):
	// prefix + "/" + (Path − root + "/" − ".sops.json").
	Name string
	// Plain is the plaintext JSON document that gets encrypted.
	Plain []byte
	// Value is the RFC 8785 canonical JSON of Plain: the SecretString the
	// CLI stores (SPEC §3.3).
	Value []byte
	// Stale is another canonical value for the same secret (used to make
	// the secret differ from the document).
	Stale []byte
}

// Corpus is a set of documents under one source root of one scope.
type Corpus struct {
	Scope model.Scope
	Docs  []Doc
}

// Tags returns the reserved tags the CLI writes at CreateSecret for d
// (SPEC §4; internal/model.Scope.Tags).
func (c Corpus) Tags(d Doc) map[string]string { return c.Scope.Tags(d.Path) }

// CorpusSpec describes a corpus to generate.
type CorpusSpec struct {
	RepositoryID string // e.g. "bench/repo"
	SourceRoot   string // e.g. "n10000"
	Prefix       string // secret prefix, e.g. "bench/n10000"
	N            int    // number of documents
	// ValueBytes is the approximate size of each canonical value (≥ 128).
	ValueBytes int
	// Seed makes the generated values reproducible; documents of one seed
	// differ from each other.
	Seed uint64
	// Target is the scope's target ("" = Secrets Manager): part of the
	// scope digest, so of the tags a seeded secret or parameter carries.
	Target model.Target
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// NewCorpus generates spec.N documents deterministically from spec.Seed.
// Each plaintext is a JSON object with a string, an integer, a boolean and
// a random payload sized so the canonical value is about ValueBytes bytes.
// Values are pairwise different (each holds its own id).
func NewCorpus(spec CorpusSpec) (Corpus, error) {
	if spec.N < 0 || spec.ValueBytes < 128 {
		return Corpus{}, fmt.Errorf("corpus: N must be >= 0 and ValueBytes >= 128")
	}
	sc := model.Scope{RepositoryID: spec.RepositoryID, SourceRoot: cleanRoot(spec.SourceRoot), Prefix: cleanPrefix(spec.Prefix), Target: spec.Target}
	rng := rand.New(rand.NewPCG(spec.Seed, 0x62656e6368))
	c := Corpus{Scope: sc, Docs: make([]Doc, spec.N)}
	for i := range spec.N {
		rel := fmt.Sprintf("g%02d/s%05d", i/1000, i)
		id := fmt.Sprintf("secret-%05d", i)
		plain, value, err := document(rng, id, i, spec.ValueBytes)
		if err != nil {
			return Corpus{}, err
		}
		_, stale, err := document(rng, id, i, spec.ValueBytes)
		if err != nil {
			return Corpus{}, err
		}
		c.Docs[i] = Doc{
			Path:  path.Join(sc.SourceRoot, rel+".sops.json"),
			Name:  sc.Prefix + "/" + rel,
			Plain: plain,
			Value: value,
			Stale: stale,
		}
	}
	return c, nil
}

// document returns an indented (non-canonical) plaintext and its JCS form.
func document(rng *rand.Rand, id string, n, size int) (plain, value []byte, err error) {
	obj := map[string]any{
		"id":      id,
		"port":    5000 + n,
		"enabled": n%2 == 0,
		"payload": "",
	}
	base, err := json.Marshal(obj)
	if err != nil {
		return nil, nil, err
	}
	pad := max(16, size-len(base))
	b := make([]byte, pad)
	for i := range b {
		b[i] = alnum[rng.IntN(len(alnum))]
	}
	obj["payload"] = string(b)
	plain, err = json.MarshalIndent(obj, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	value, err = jcs.Transform(plain)
	if err != nil {
		return nil, nil, fmt.Errorf("corpus: canonicalize: %w", err)
	}
	return append(plain, '\n'), value, nil
}

func cleanRoot(v string) string { r, _ := model.CleanSourceRoot(v); return r }

func cleanPrefix(v string) string {
	if p, err := model.CleanPrefix(v); err == nil {
		return p
	}
	return v
}
