package kms

import (
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

const (
	acct   = "123456789012"
	region = "us-east-1"
	keyA   = "1234abcd-12ab-34cd-56ef-1234567890ab"
	keyB   = "mrk-0123456789abcdef0123456789abcdef"
)

func registry(t *testing.T) *Registry {
	t.Helper()
	r := NewRegistry()
	for _, k := range []Key{{KeyID: keyA, Aliases: []string{"alias/a"}}, {KeyID: keyB}} {
		if _, err := r.Add(acct, region, k, nil); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func TestResolve(t *testing.T) {
	r := registry(t)
	for in, want := range map[string]string{
		"":                                core.SecretsManagerKeyID,
		core.SecretsManagerKeyAlias:       core.SecretsManagerKeyID,
		keyA:                              keyA,
		"alias/a":                         keyA,
		KeyARN(acct, region, keyB):        keyB,
		AliasARN(acct, region, "alias/a"): keyA,
	} {
		if got, err := r.Resolve(acct, region, in); err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"alias/none", "1234abcd-12ab-34cd-56ef-000000000000", KeyARN("210987654321", region, keyA), AliasARN(acct, "eu-west-1", "alias/a"), "not a key"} {
		if _, err := r.Resolve(acct, region, in); err == nil || err.Code != "InvalidParameterException" {
			t.Errorf("Resolve(%q): %v, want InvalidParameterException", in, err)
		}
	}
}

func TestStateFollowsTheFaultsKeyAndItsAlias(t *testing.T) {
	r := registry(t)
	faults := []KeyFault{{Key: "alias/a", State: Disabled}}
	if got := r.State(acct, region, keyA, faults); got != Disabled {
		t.Fatalf("state of the alias's key: %q", got)
	}
	if got := r.State(acct, region, keyB, faults); got != "" {
		t.Fatalf("state of another key: %q", got)
	}
	if err := r.SetAlias(acct, region, Alias{AliasName: "alias/a", TargetKeyID: keyB}); err != nil {
		t.Fatal(err)
	}
	if r.State(acct, region, keyA, faults) != "" || r.State(acct, region, keyB, faults) != Disabled {
		t.Fatal("a fault on an alias follows the alias when it moves")
	}
}

func TestAddRefusesAndGenerates(t *testing.T) {
	r := NewRegistry()
	for _, k := range []Key{{KeyID: "nope"}, {KeyID: core.SecretsManagerKeyID}, {KeyID: keyA, Aliases: []string{"alias/aws/x"}}, {KeyID: keyA, Aliases: []string{"x"}}} {
		if _, err := r.Add(acct, region, k, nil); err == nil {
			t.Errorf("Add(%+v) accepted", k)
		}
	}
	k, err := r.Add(acct, region, Key{Aliases: []string{"alias/gen"}}, func() string { return keyA })
	if err != nil || k.KeyID != keyA || k.ARN != KeyARN(acct, region, keyA) || len(k.Aliases) != 1 {
		t.Fatalf("generated key: %+v %v", k, err)
	}
	d := r.Dump(acct, region)
	if len(d.Keys) != 2 || !d.Keys[0].AWSManaged || d.Keys[0].Aliases[0] != core.SecretsManagerKeyAlias || d.Keys[1].KeyID != keyA {
		t.Fatalf("dump: %+v", d)
	}
	if err := r.SetAlias(acct, region, Alias{AliasName: "alias/m", TargetKeyID: core.SecretsManagerKeyID}); err == nil {
		t.Fatal("an alias may not point at the AWS managed key")
	}
}

func TestValidateFaults(t *testing.T) {
	if err := ValidateFaults([]KeyFault{{Key: keyA, State: AccessDenied}, {Key: "alias/a", State: PendingDeletion}}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []KeyFault{{State: Disabled}, {Key: "x", State: Disabled}, {Key: keyA, State: "broken"}} {
		if ValidateFaults([]KeyFault{f}) == nil {
			t.Errorf("fault %+v accepted", f)
		}
	}
}
