package model

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/targets.golden")

// targetsGolden renders the target table as its readers see it: per
// target its service, ARN resource and an example of each form, name rule,
// value limits, description limit, deletion, bucket, refusals and words.
func targetsGolden() string {
	var b strings.Builder
	for _, t := range Targets {
		w := t.Words()
		fmt.Fprintf(&b, "target %q default=%t service=%s iam=%s arn-resource=%q\n", t, t.IsDefault(), t.Service(), strings.Join(t.IAMServices(), ","), t.ARNResource())
		fmt.Fprintf(&b, "  resource name of \"team/db\": %q own name rule: %t binary=%t\n", t.ResourceName("team/db"), t.CheckName("aws/x") != nil, t.StoresBinary())
		if t.HasTiers() {
			for _, tier := range Tiers {
				fmt.Fprintf(&b, "  tier %s: %d bytes\n", tier, t.ValueLimit(tier))
			}
		} else {
			fmt.Fprintf(&b, "  value: %d bytes\n", t.ValueLimit(""))
		}
		fmt.Fprintf(&b, "  description: %d characters; deletion undoable=%t; own bucket=%t\n", t.MaxDescription(), t.DeletionUndoable(), t.OwnBucket())
		fmt.Fprintf(&b, "  capabilities: %v\n", t.Capabilities())
		for _, r := range t.Refusals() {
			fmt.Fprintf(&b, "  refuses %s: %s\n", r.Setting, r.Reason)
		}
		fmt.Fprintf(&b, "  words: service=%q resource=%q/%q delete=%q/%q/%q/%q deletion=%q\n", w.Service, w.Resource, w.Resources, w.DeleteTitle, w.DeleteColumn, w.DeletePlanned, w.DeleteOperation, w.Deletion)
	}
	return b.String()
}

// TestTargetsGolden fails when a row of the target table changes: the
// views, the wire files' checks and the settings read these exact values
// (SPEC §16). Review the diff of testdata/targets.golden (go test
// ./internal/model -run TestTargetsGolden -update).
func TestTargetsGolden(t *testing.T) {
	got := targetsGolden()
	const path = "testdata/targets.golden"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("target table changed; review and run go test ./internal/model -run TestTargetsGolden -update:\n got:\n%s\nwant:\n%s", got, want)
	}
}

// TestEveryRowStatesEveryCapability: a row names each capability once,
// either as one its store has or with the reason it lacks it, so that a
// new capability or a new row cannot leave a setting refused without a
// reason, or a target with a capability nobody decided it has.
func TestEveryRowStatesEveryCapability(t *testing.T) {
	for _, r := range targets {
		for _, c := range Capabilities {
			reason, lacked := r.lacks[c]
			if has := slices.Contains(r.caps, c); has == lacked || lacked && reason == "" {
				t.Errorf("%s: capability %s is in caps: %t, in lacks: %t (reason %q); name it once", r.Target, c, has, lacked, reason)
			}
		}
		if len(r.caps)+len(r.lacks) != len(Capabilities) {
			t.Errorf("%s: caps and lacks name %d capabilities, want the %d of Capabilities", r.Target, len(r.caps)+len(r.lacks), len(Capabilities))
		}
	}
}

// TestRefusalsFollowCapabilities: a target refuses exactly the settings
// of the capabilities it lacks, with the row's reason.
func TestRefusalsFollowCapabilities(t *testing.T) {
	for _, target := range Targets {
		for _, c := range capabilities {
			for _, s := range c.settings {
				reason, refused := target.Refuses(s)
				if refused == target.Has(c.Capability) || refused && reason != target.must().lacks[c.Capability] {
					t.Errorf("%s: setting %s refused=%t (%q), capability %s has=%t", target, s, refused, reason, c.Capability, target.Has(c.Capability))
				}
			}
		}
		if _, refused := target.Refuses("region"); refused {
			t.Errorf("%s refuses a setting no capability needs", target)
		}
	}
}

// TestTargetARNForms: each target recognises its own ARN of a name and no
// other (the changes file's check, SPEC §16), "" reads as the default.
func TestTargetARNForms(t *testing.T) {
	sm := "arn:aws:secretsmanager:eu-west-1:123456789012:secret:team/db-AbCdEf"
	ps := "arn:aws:ssm:eu-west-1:123456789012:parameter/team/db"
	for _, c := range []struct {
		target Target
		arn    string
		name   string
		want   bool
	}{
		{TargetSecretsManager, sm, "team/db", true},
		{"", sm, "team/db", true},
		{TargetSecretsManager, ps, "team/db", false},
		{TargetParameterStore, ps, "team/db", true},
		{TargetParameterStore, ps, "/team/db", true},
		{TargetParameterStore, sm, "team/db", false},
		{TargetParameterStore, ps, "team/other", false},
		{TargetSecretsManager, "arn:aws:secretsmanager:eu-west-1:123456789012:secret:team/db-AbCdE", "team/db", false},
		{TargetSecretsManager, "arn:aws:secretsmanager:eu-west-1:12345678901:secret:team/db-AbCdEf", "team/db", false},
		{TargetParameterStore, "arn:aws-cn:ssm:cn-north-1:123456789012:parameter/team/db", "team/db", true},
		{TargetParameterStore, "arn:aws:ssm:eu-west-1:123456789012:parameter//team/db", "team/db", false},
		{TargetParameterStore, "arn:aws:ssm:EU:123456789012:parameter/team/db", "team/db", false},
	} {
		if got := c.target.ValidARN(c.arn, c.name); got != c.want {
			t.Errorf("%q.ValidARN(%q, %q) = %t, want %t", c.target, c.arn, c.name, got, c.want)
		}
	}
	if got, ok := TargetOfARN(ps, "team/db"); !ok || got != TargetParameterStore {
		t.Errorf("TargetOfARN(parameter) = %q, %t", got, ok)
	}
	if _, ok := TargetOfARN("arn:aws:s3:::bucket", "bucket"); ok {
		t.Error("TargetOfARN accepted an S3 ARN")
	}
}

// TestTargetIAMActions: a target's IAM actions are its own service's and
// the shared STS and KMS ones (the plan file's failure records, SPEC §16),
// each of 1 to 64 ASCII letters (64 taken, 65 refused; z and Z are
// letters, '@' and '{' beside the ranges are not).
func TestTargetIAMActions(t *testing.T) {
	for _, c := range []struct {
		target Target
		action string
		want   bool
	}{
		{TargetSecretsManager, "secretsmanager:CreateSecret", true},
		{TargetSecretsManager, "ssm:PutParameter", false},
		{TargetParameterStore, "ssm:PutParameter", true},
		{TargetParameterStore, "ssm:AddTagsToResource", true},
		{TargetParameterStore, "sts:AssumeRole", true},
		{TargetParameterStore, "kms:Decrypt", true},
		{TargetParameterStore, "secretsmanager:CreateSecret", false},
		{TargetParameterStore, "ssm:", false},
		{TargetParameterStore, "ssm:Put-Parameter", false},
		{TargetParameterStore, "ssm:" + strings.Repeat("A", 65), false},
		{TargetParameterStore, "ssm:" + strings.Repeat("A", 64), true},
		{TargetParameterStore, "kms:ZzAa", true},
		{TargetParameterStore, "ssm:Get@", false},
		{TargetParameterStore, "ssm:Get{", false},
		{TargetParameterStore, "ssm", false},
	} {
		if got := c.target.ValidIAMAction(c.action); got != c.want {
			t.Errorf("%q.ValidIAMAction(%q) = %t, want %t", c.target, c.action, got, c.want)
		}
	}
}

// TestParseTarget: the setting's words and nothing else; "" is not a word
// the setting accepts (its default is written out).
func TestParseTarget(t *testing.T) {
	for _, s := range []string{"secrets-manager", "parameter-store"} {
		if got, err := ParseTarget(s); err != nil || string(got) != s {
			t.Errorf("ParseTarget(%q) = %q, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "ssm", "Parameter-Store"} {
		if _, err := ParseTarget(s); err == nil {
			t.Errorf("ParseTarget(%q) accepted", s)
		}
	}
	if !Target("").IsDefault() || Target("").Resolved() != TargetSecretsManager || TargetParameterStore.IsDefault() {
		t.Error("the default target is not secrets-manager")
	}
}

// TestAddTestTargetIsFoundByItsARNForm: a row a test adds answers
// TargetOfARN for its own ARN form (ARNResource+name) and no other name,
// and is gone once removed, the table and Targets as they were before.
func TestAddTestTargetIsFoundByItsARNForm(t *testing.T) {
	const tt = Target("test-store")
	before := slices.Clone(Targets)
	remove := AddTestTarget(TestTarget{Target: tt, Service: "teststore", ARNResource: "entry/", MaxValue: 10, MaxDescription: 10})
	arn := "arn:aws:teststore:us-east-1:123456789012:entry/app/db"
	if got, ok := TargetOfARN(arn, "app/db"); !ok || got != tt {
		t.Errorf("TargetOfARN(%q, app/db) = %q, %t; want %q", arn, got, ok, tt)
	}
	if got, ok := TargetOfARN(arn, "app/other"); ok {
		t.Errorf("TargetOfARN(%q, app/other) = %q: an ARN of another name", arn, got)
	}
	if want := append(slices.Clone(before), tt); !slices.Equal(Targets, want) {
		t.Errorf("Targets with the row added: %v, want %v", Targets, want)
	}
	remove()
	if got, ok := TargetOfARN(arn, "app/db"); ok {
		t.Errorf("after remove, TargetOfARN = %q", got)
	}
	if got, ok := TargetOfARN("arn:aws:ssm:us-east-1:123456789012:parameter/app/db", "app/db"); !ok || got != TargetParameterStore {
		t.Errorf("after remove, a parameter's ARN is %q, %t: the product's rows must stay", got, ok)
	}
	if !slices.Equal(Targets, before) {
		t.Errorf("Targets after remove: %v, want %v", Targets, before)
	}
}
