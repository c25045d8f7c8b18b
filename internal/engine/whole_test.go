package engine_test

import (
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// wholeState is state(docs…) with the value kind of each named base set
// (SPEC §3.1: .sops.txt → KindText, .sops.bin → KindBinary).
func wholeState(kinds map[string]model.ValueKind, docs ...doc) model.State {
	st := state(docs...)
	for i := range st.Secrets {
		for base, k := range kinds {
			if st.Secrets[i].Name == nameOf(base) {
				st.Secrets[i].Kind = k
			}
		}
	}
	return st
}

// TestWholeValues_AmbiguousWritesAndKindSwitch: a binary whole value is
// created and a text one switched to binary with both responses lost after
// the write landed (no SDK retry): the re-observation compares the
// SecretBinary read back and accepts, one version each; a string holding
// the same bytes is not the binary value (one update), and a second run is
// a no-op.
func TestWholeValues_AmbiguousWritesAndKindSwitch(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t, noSDKRetry)
		ks := "\xfe\xed\xfe\xed\x00\x00\x00\x02\xff keystore"
		pem := "-----BEGIN CERTIFICATE-----\r\nMIIB\r\n-----END CERTIFICATE-----\r\n"
		e.seedOwned(t, "tls", pem)
		kinds := map[string]model.ValueKind{"ks": model.KindBinary, "tls": model.KindBinary}
		st := wholeState(kinds, doc{"ks", ks}, doc{"tls", pem})
		e.srv.SetFaults(t, emulator.Faults{Script: append(script("CreateSecret", "ambiguous-after-apply", 1), script("PutSecretValue", "ambiguous-after-apply", 1)...)})
		before := e.calls(t)
		wantResult(t, e.run(t, e.cfg(engine.ModeSync, conc), st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1, Update: 1})
		after := e.calls(t)
		for _, op := range []string{"CreateSecret", "PutSecretValue"} {
			if got := after[op] - before[op]; got != 1 {
				t.Errorf("%s calls = %d, want 1 (proven by re-observation)", op, got)
			}
		}
		for base, want := range map[string]string{"ks": ks, "tls": pem} {
			s := e.secret(t, nameOf(base))
			cur := s.Versions[len(s.Versions)-1]
			if cur.SecretString != nil || string(cur.SecretBinary) != want {
				t.Errorf("%s: current version is not the exact binary value", base)
			}
		}
		if n := len(e.secret(t, nameOf("tls")).Versions); n != 2 {
			t.Errorf("switched secret has %d versions, want the seed + 1", n)
		}
		e.srv.SetFaults(t, emulator.Faults{})
		before = e.calls(t)
		wantResult(t, e.run(t, e.cfg(engine.ModeSync, conc), st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 2})
		after = e.calls(t)
		if after["PutSecretValue"] != before["PutSecretValue"] || after["CreateSecret"] != before["CreateSecret"] {
			t.Error("a no-op run wrote a value")
		}
	})
}
