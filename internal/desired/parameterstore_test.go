package desired

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// The loader's rules for target parameter-store (SPEC §16), with documents
// the real sops CLI encrypts.

// sopsJSON encrypts a JSON plaintext with the sops CLI on PATH.
func sopsJSON(t *testing.T, plain string) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(p, []byte(plain), 0o600); err != nil {
		t.Fatal(err)
	}
	return runSOPS(t, currentSOPSBin(t), nil, "--encrypt", "--age", testRecipient, "--input-type", "json", "--output-type", "json", p)
}

func psOptions(dir, tier string) (o config.Desired) {
	o = baseOptions(dir)
	o.Target, o.ParameterTier = model.TargetParameterStore, tier
	return o
}

func loadDiags(t *testing.T, opts config.Desired) diag.Diagnostics {
	t.Helper()
	_, err := Load(context.Background(), opts)
	var ds diag.Diagnostics
	if !errors.As(err, &ds) {
		t.Fatalf("want diagnostics, got %v", err)
	}
	return ds
}

func TestParameterStore_ValueOverTheTierNamesTheTierThatFits(t *testing.T) {
	value := func(n int) string { return fmt.Sprintf(`{"v":"%s"}`, strings.Repeat("x", n-8)) } // n bytes canonical
	dir, _ := newRepo(t, map[string][]byte{
		"secrets/fits.sops.json":     sopsJSON(t, value(4096)),
		"secrets/advanced.sops.json": sopsJSON(t, value(4097)),
		"secrets/none.sops.json":     sopsJSON(t, value(8193)),
	})
	ds := loadDiags(t, psOptions(dir, model.TierStandard))
	if len(ds) != 2 || ds[0].Class != diag.PlaintextTooLarge || ds[1].Class != diag.PlaintextTooLarge {
		t.Fatalf("standard: %v", ds.Lines())
	}
	if !strings.Contains(ds[0].Next, "parameter-tier: advanced") || !strings.Contains(ds[0].Summary, "4096 bytes") {
		t.Errorf("4,097 bytes must name the advanced tier: %q / %q", ds[0].Summary, ds[0].Next)
	}
	if !strings.Contains(ds[1].Next, "secrets-manager") || strings.Contains(ds[1].Next, "parameter-tier") {
		t.Errorf("8,193 bytes fits no tier: %q", ds[1].Next)
	}
	if diag.ExitCodeOf(ds[0].Class) != 3 {
		t.Errorf("exit %d, want 3", diag.ExitCodeOf(ds[0].Class))
	}
	ds = loadDiags(t, psOptions(dir, model.TierAdvanced))
	if len(ds) != 1 || ds[0].Subject.Ordinal != 3 {
		t.Fatalf("advanced: %v", ds.Lines())
	}
	// The same documents are fine for Secrets Manager.
	if _, err := Load(context.Background(), baseOptions(dir)); err != nil {
		t.Fatalf("secrets-manager: %v", err)
	}
}

func TestParameterStore_NameRuleAndBinaryBeforeDecryption(t *testing.T) {
	dir, _ := newRepo(t, map[string][]byte{
		"secrets/ok.sops.json":                                good(t),
		"secrets/a+b.sops.json":                               good(t),                               // + is a secret-name character, not a parameter one
		"secrets/ks.sops.bin":                                 fixture(t, "whole/keystore.sops.bin"), // a binary value
		"secrets/cert.sops.txt":                               fixture(t, "whole/cert.sops.txt"),     // text is fine
		"secrets/" + strings.Repeat("d/", 14) + "x.sops.json": good(t),                               // 17 levels with prod/app
	})
	ds := loadDiags(t, psOptions(dir, model.TierStandard))
	var classes []string
	for _, d := range ds {
		classes = append(classes, d.Class)
	}
	want := []string{diag.NameInvalid, diag.NameInvalid, diag.SourceBinaryForTarget}
	if fmt.Sprint(classes) != fmt.Sprint(want) {
		t.Fatalf("classes %v, want %v (%v)", classes, want, ds.Lines())
	}
	if _, err := Load(context.Background(), baseOptions(dir)); err != nil {
		t.Fatalf("secrets-manager takes every one of them: %v", err)
	}
}

// TestRegression_ParameterStoreScopeTagLostTheTarget: the loader built
// the desired state's scope without its target, so a parameter-store
// scope planned, tagged and judged ownership with the Secrets Manager
// digest while the adapter listed by the Parameter Store one (config's
// Identity): a parameter an earlier run tagged with the scope's own
// digest (SPEC §16: the target is part of the scope tag) was an ownership
// conflict. Found by the chaos campaign's Parameter Store draw (seed 1,
// scenario 0).
func TestRegression_ParameterStoreScopeTagLostTheTarget(t *testing.T) {
	dir, _ := newRepo(t, map[string][]byte{"secrets/app.sops.json": sopsJSON(t, `{"k":"v"}`)})
	opts := psOptions(dir, model.TierStandard)
	st, err := Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := model.Scope{RepositoryID: opts.RepositoryID, SourceRoot: opts.SourceRoot, Prefix: opts.SecretPrefix, Target: model.TargetParameterStore}
	sm := want
	sm.Target = ""
	if st.Scope.Target != model.TargetParameterStore || st.Scope.Digest() != want.Digest() || st.Scope.Digest() == sm.Digest() {
		t.Fatalf("desired scope %+v: digest %s, want the parameter-store digest %s (not %s)", st.Scope, st.Scope.Digest(), want.Digest(), sm.Digest())
	}
}
