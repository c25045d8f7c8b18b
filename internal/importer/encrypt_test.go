package importer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// gatedSops is an Encrypter whose encryptions each wait for the test's
// word (release, by path): it reports each path as its encryption starts,
// counts those in flight and keeps the most at once, and answers a path
// with answer's document or error.
type gatedSops struct {
	mu             sync.Mutex
	inFlight, most int
	plain          map[string][]byte // the plaintext each path was given
	started        chan string
	release        map[string]chan struct{}
	answer         func(path string) ([]byte, error)
}

func newGatedSops(paths []string, answer func(string) ([]byte, error)) *gatedSops {
	g := &gatedSops{plain: map[string][]byte{}, started: make(chan string, len(paths)), release: map[string]chan struct{}{}, answer: answer}
	for _, p := range paths {
		g.release[p] = make(chan struct{})
	}
	return g
}

func (g *gatedSops) Encrypt(ctx context.Context, _, path string, plain []byte) ([]byte, error) {
	g.mu.Lock()
	g.inFlight++
	g.most = max(g.most, g.inFlight)
	g.plain[path] = bytes.Clone(plain)
	g.mu.Unlock()
	defer func() { g.mu.Lock(); g.inFlight--; g.mu.Unlock() }()
	g.started <- path
	select {
	case <-g.release[path]:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.answer(path)
}

// encryptCandidates are n candidates of documents d1 … dn under top, each
// with its own plaintext.
func encryptCandidates(top string, n int) ([]candidate, []string) {
	var cands []candidate
	var paths []string
	for i := 1; i <= n; i++ {
		rel := fmt.Sprintf("secrets/d%d.sops.txt", i)
		cands = append(cands, candidate{ordinal: i, name: fmt.Sprintf("app/d%d", i), path: rel, config: filepath.Join(top, ".sops.yaml"),
			value: Value{Format: model.Text, Plain: []byte(fmt.Sprintf("plain-%d", i))}})
		paths = append(paths, filepath.Join(top, rel))
	}
	return cands, paths
}

// TestEncrypt_RunsWorkersAtOnceInTheCandidatesOrder: with Workers 3, three
// encryptions are in flight at once and never more; the first three end
// in the reverse order they started, yet the outcome is the one of one
// encryption after another: the encrypted candidates in order, each with
// its own document and its plaintext dropped, the one whose rule leaves a
// value in clear skipped with warning:import-in-clear, the one sops failed
// on an import:encrypt, in the candidates' order.
func TestEncrypt_RunsWorkersAtOnceInTheCandidatesOrder(t *testing.T) {
	top := t.TempDir()
	cands, paths := encryptCandidates(top, 7)
	g := newGatedSops(paths, func(p string) ([]byte, error) {
		switch filepath.Base(p) {
		case "d2.sops.txt":
			return []byte(`{"data":"in clear","sops":{}}`), nil
		case "d5.sops.txt":
			return nil, ErrEncrypt
		}
		return []byte(`{"data":"ENC[AES256_GCM,` + filepath.Base(p) + `]","sops":{}}`), nil
	})
	req := Request{Sops: g, Git: &Git{Top: top}, Workers: 3}
	type result struct {
		out       []candidate
		warns, ds diag.Diagnostics
	}
	res := make(chan result, 1)
	go func() {
		out, warns, ds := req.encrypt(t.Context(), cands, false)
		res <- result{out, warns, ds}
	}()
	var first []string
	for range 3 {
		first = append(first, <-g.started)
	}
	for i := len(first) - 1; i >= 0; i-- {
		close(g.release[first[i]])
	}
	for _, p := range paths {
		if !slices.Contains(first, p) {
			close(g.release[p])
		}
	}
	r := <-res
	if g.most != 3 {
		t.Errorf("%d encryptions at most in flight at once, want 3 (Workers)", g.most)
	}
	var got []string
	for _, c := range r.out {
		got = append(got, c.path)
		if want := `{"data":"ENC[AES256_GCM,` + filepath.Base(c.path) + `]","sops":{}}`; string(c.doc) != want {
			t.Errorf("%s has document %s, want %s", c.path, c.doc, want)
		}
		if c.value.Plain != nil || c.value.Format != model.Text {
			t.Errorf("%s keeps its plaintext or lost its format: %+v", c.path, c.value)
		}
	}
	if want := []string{"secrets/d1.sops.txt", "secrets/d3.sops.txt", "secrets/d4.sops.txt", "secrets/d6.sops.txt", "secrets/d7.sops.txt"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("encrypted %v, want %v", got, want)
	}
	if len(r.warns) != 1 || r.warns[0].Class != diag.WarningImportInClear || len(r.ds) != 1 || r.ds[0].Class != diag.ImportEncrypt {
		t.Fatalf("warnings %v, diagnostics %v; want one %s and one %s", r.warns, r.ds, diag.WarningImportInClear, diag.ImportEncrypt)
	}
	if r.warns[0].Subject != diag.Document(2, "secrets/d2.sops.txt", false) || r.ds[0].Subject != diag.Document(5, "secrets/d5.sops.txt", false) {
		t.Errorf("the warning is about %+v and the diagnostic about %+v, want documents 2 and 5", r.warns[0].Subject, r.ds[0].Subject)
	}
	for i, p := range paths {
		if want := fmt.Sprintf("plain-%d", i+1); string(g.plain[p]) != want {
			t.Errorf("%s was given %q, want %q", p, g.plain[p], want)
		}
	}
}

// TestEncrypt_InterruptedStartsNoMoreAndEndsInterrupted: a context ended
// while Workers encryptions are in flight ends them (the Encrypter
// returns ctx's error), starts no other, and the outcome is
// interrupted:signal with no candidate.
func TestEncrypt_InterruptedStartsNoMoreAndEndsInterrupted(t *testing.T) {
	top := t.TempDir()
	cands, paths := encryptCandidates(top, 5)
	g := newGatedSops(paths, func(string) ([]byte, error) { return nil, errors.New("never released") })
	req := Request{Sops: g, Git: &Git{Top: top}, Workers: 2}
	ctx, cancel := context.WithCancel(t.Context())
	type result struct {
		out []candidate
		ds  diag.Diagnostics
	}
	res := make(chan result, 1)
	go func() {
		out, _, ds := req.encrypt(ctx, cands, false)
		res <- result{out, ds}
	}()
	<-g.started
	<-g.started
	cancel()
	r := <-res
	if r.out != nil || len(r.ds) != 1 || r.ds[0].Class != diag.InterruptedSignal {
		t.Fatalf("out %v, diagnostics %v; want none and %s", r.out, r.ds, diag.InterruptedSignal)
	}
	if n := len(g.started); n != 0 {
		t.Errorf("%d encryptions started after the interruption", n)
	}
}

// TestWorkers: Request.Workers when set, else one per CPU the Go runtime
// uses (never none: a channel of no slot would block every encryption).
func TestWorkers(t *testing.T) {
	if got, want := (Request{}).workers(), max(1, runtime.GOMAXPROCS(0)); got != want {
		t.Errorf("workers() = %d with Workers unset, want GOMAXPROCS %d", got, want)
	}
	if got := (Request{Workers: 5}).workers(); got != 5 {
		t.Errorf("workers() = %d with Workers 5", got)
	}
}
