package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// readValues reads the candidates' current values, MaxValueBatch at a
// time, at the version each was described at, and keeps those a
// document can hold (Classify; the keys AWS owns left out unless
// CopyRotated); each other gets its warning.
func (req Request) readValues(ctx context.Context, port engine.Port, cands []candidate, show bool) ([]candidate, diag.Diagnostics, error) {
	var out []candidate
	var warns diag.Diagnostics
	target := req.Options.Scopes[0].Desired.Target
	for start := 0; start < len(cands); start += engine.MaxValueBatch {
		chunk := cands[start:min(start+engine.MaxValueBatch, len(cands))]
		reqs := make([]engine.ValueRequest, len(chunk))
		for i, c := range chunk {
			reqs[i] = engine.ValueRequest{ID: c.obs.ARN, Name: c.name, CurrentVersionID: c.obs.CurrentVersionIDs()[0]}
		}
		vals, err := port.GetCurrentValues(ctx, reqs)
		if err != nil {
			return nil, nil, err
		}
		for i, c := range chunk {
			v := vals[i]
			if v.Missing || v.StageMismatch {
				warns = append(warns, skip(diag.WarningImportUnadoptable, c, show))
				continue
			}
			val, ok := Classify(v, target.StoresBinary())
			if ok && c.owned != nil {
				val, ok = req.withoutOwned(val, *c.owned)
			}
			if !ok {
				warns = append(warns, skip(diag.WarningImportValue, c, show))
				continue
			}
			c.value = val
			c.path = c.stem + val.Suffix()
			out = append(out, c)
		}
	}
	return out, warns, nil
}

// withoutOwned is the document's value of a secret whose keys AWS owns
// (SPEC §13): the live JSON object without those keys (each must be
// there: a listed key missing from the live value is conflict
// aws-owned-missing), in canonical form; with CopyRotated the live value
// as it is. A whole value AWS owns ("") is imported only with
// CopyRotated (a document must hold some value).
func (req Request) withoutOwned(v Value, e model.AWSOwned) (Value, bool) {
	if e.Whole() {
		return v, req.CopyRotated
	}
	if v.Format != model.JSON {
		return Value{}, false
	}
	dec := json.NewDecoder(bytes.NewReader(v.Plain))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil {
		return Value{}, false
	}
	for _, k := range e.Keys {
		if !removePointer(obj, k, req.CopyRotated) {
			return Value{}, false
		}
	}
	if req.CopyRotated {
		return v, true
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return Value{}, false
	}
	c, err := canonical.FromJSON(raw)
	if err != nil {
		return Value{}, false
	}
	return Value{Format: model.JSON, Plain: c}, true
}

// removePointer removes the member the RFC 6901 pointer p names from obj
// (only checks that it is there when keep), reporting whether it was
// there.
func removePointer(obj map[string]any, p string, keep bool) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	segs := strings.Split(p[1:], "/")
	cur := obj
	for i, s := range segs {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
		v, ok := cur[s]
		if !ok {
			return false
		}
		if i == len(segs)-1 {
			if !keep {
				delete(cur, s)
			}
			return true
		}
		if cur, ok = v.(map[string]any); !ok {
			return false
		}
	}
	return false
}

// rules checks that a creation rule of the .sops.yaml that applies
// encrypts each candidate's document (CreationRule): one
// import:no-creation-rule per document that has none. Nothing is written
// when any has none.
func (req Request) rules(cands []candidate, show bool) diag.Diagnostics {
	var ds diag.Diagnostics
	for i := range cands {
		c := &cands[i]
		conf, err := CreationRule(req.Git.Top, filepath.Join(req.Git.Top, filepath.FromSlash(c.path)))
		if err != nil {
			d := diag.New(diag.ImportNoCreationRule, diag.Document(c.ordinal, c.path, show))
			if errors.Is(err, ErrNoConfig) {
				d = d.WithSummary("no .sops.yaml applies to the document's path (none in its directory or above it, up to the work tree's root)")
			}
			ds = append(ds, d)
			continue
		}
		c.config = conf
	}
	return ds
}

// dryRules is rules for a dry run, which reads no value and so knows only
// each document's stem: the value decides its suffix (Classify: .sops.json,
// .sops.txt, or .sops.bin where the target stores binary), so every one of
// those must have a creation rule, else one import:no-creation-rule per
// document (the class and exit the real run gives): a clean dry run means
// the real run finds a rule for every document. What needs the value
// (unencrypted_regex and the other in-clear rules, CheckEncrypted) is not
// seen.
func (req Request) dryRules(cands []candidate, show bool) diag.Diagnostics {
	var ds diag.Diagnostics
	storesBinary := req.Options.Scopes[0].Desired.Target.StoresBinary()
	for _, c := range cands {
		var missing []string
		noConfig := false
		for _, f := range []model.Format{model.JSON, model.Text, model.Binary} {
			if f == model.Binary && !storesBinary {
				continue
			}
			sfx := Value{Format: f}.Suffix()
			_, err := CreationRule(req.Git.Top, filepath.Join(req.Git.Top, filepath.FromSlash(c.stem+sfx)))
			if err != nil {
				missing = append(missing, sfx)
				noConfig = noConfig || errors.Is(err, ErrNoConfig)
			}
		}
		if len(missing) == 0 {
			continue
		}
		d := diag.New(diag.ImportNoCreationRule, diag.Document(c.ordinal, c.stem+".sops.*", show))
		if noConfig {
			d = d.WithSummary("no .sops.yaml applies to the document's path (none in its directory or above it, up to the work tree's root)")
		} else {
			d = d.WithSummary("no creation rule of .sops.yaml matches the document's path with the suffix " + strings.Join(missing, " or ") +
				", which the value (not read in a dry run) may give it")
		}
		ds = append(ds, d)
	}
	return ds
}

// encrypt encrypts every candidate's document (Encrypter), at most
// req.workers() at once, and checks that nothing was left in clear
// (CheckEncrypted: such a candidate is skipped with
// warning:import-in-clear). A failed encryption refuses the import
// (import:encrypt), nothing written. The outcome is the same as one
// encryption after another: the candidates, warnings and diagnostics in
// the candidates' order, whichever encryption ends first.
func (req Request) encrypt(ctx context.Context, cands []candidate, show bool) ([]candidate, diag.Diagnostics, diag.Diagnostics) {
	type outcome struct {
		doc []byte
		err error
	}
	done := make([]outcome, len(cands))
	sem := make(chan struct{}, req.workers())
	var wg sync.WaitGroup
	for i := range cands {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			c := &cands[i]
			doc, err := req.Sops.Encrypt(ctx, c.config, filepath.Join(req.Git.Top, filepath.FromSlash(c.path)), c.value.Plain)
			if err == nil {
				err = CheckEncrypted(doc)
			}
			done[i] = outcome{doc, err}
		})
	}
	wg.Wait()
	var out []candidate
	var warns, ds diag.Diagnostics
	if ctx.Err() != nil {
		return nil, warns, diag.Diagnostics{diag.New(diag.InterruptedSignal, diag.Subject{}).WithCause(ctx.Err())}
	}
	for i, c := range cands {
		switch err := done[i].err; {
		case errors.Is(err, ErrInClear):
			warns = append(warns, skip(diag.WarningImportInClear, c, show))
			continue
		case err != nil:
			ds = append(ds, diag.New(diag.ImportEncrypt, diag.Document(c.ordinal, c.path, show)))
			continue
		}
		c.doc = done[i].doc
		c.value = Value{Format: c.value.Format} // the plaintext is no longer needed
		out = append(out, c)
	}
	return out, warns, ds
}

// workers is how many encryptions run at once: Request.Workers, or as
// many as the Go runtime runs threads of Go code (runtime.GOMAXPROCS: the
// CPUs this process may use, its container's CPU limit included), since
// each is a sops process that computes until it ends.
func (req Request) workers() int {
	if req.Workers > 0 {
		return req.Workers
	}
	return max(1, runtime.GOMAXPROCS(0))
}
