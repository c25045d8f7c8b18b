package diag

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
)

var update = flag.Bool("update", false, "rewrite testdata/registry.golden")

// TestRegistryGolden pins every class token the product emits: its family,
// exit code and next action; and every plaintext rule's sentences. A change here is a change of the public
// contract (docs/results.md, docs/recovery.md): regenerate with
// go test ./internal/diag -update and review the diff.
func TestRegistryGolden(t *testing.T) {
	var b strings.Builder
	b.WriteString("# class token\tfamily\texit\tnext action\n")
	for _, e := range Entries() {
		fmt.Fprintf(&b, "%s\t%s\t%d\t%s\n", e.Class, e.Family, FamilyExitCode(e.Family), e.Next)
	}
	// The plaintext:* sentences users read come from internal/canonical,
	// one rule per failure; the entries above carry each class's first.
	b.WriteString("# plaintext rules (internal/canonical): class token\twhat is wrong\tnext action\n")
	for _, r := range canonical.Rules() {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", r.Class, r.What, r.Next)
	}
	path := filepath.Join("testdata", "registry.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), b.String(), "registry changed: run go test ./internal/diag -update and review")
}

// Every token's prefix is its family, every entry has a summary and a next
// action, and no text holds a line break (stderr and logs are line-based).
func TestRegistryEntriesWellFormed(t *testing.T) {
	for _, e := range Entries() {
		assert.Equal(t, e.Family, FamilyOf(e.Class), e.Class)
		assert.NotEmpty(t, e.Summary, e.Class)
		assert.NotEmpty(t, e.Next, e.Class)
		assert.NotContains(t, e.Summary+e.Next, "\n", e.Class)
		assert.Contains(t, Families, e.Family, e.Class)
	}
	assert.Len(t, familyExit, len(Families), "every family has an exit code")
	for _, f := range Families {
		_, ok := familyExit[f]
		assert.True(t, ok, "family %s has no exit code", f)
	}
}

// An unregistered class never crashes a run: it fails closed as an
// internal problem, exit 3.
func TestNewUnregisteredClassFailsClosed(t *testing.T) {
	d := New("nope:never", Subject{})
	assert.Equal(t, "nope:never", d.Class)
	assert.Equal(t, "internal error", d.Summary)
	assert.Equal(t, nextBug, d.Next)
	assert.Equal(t, 3, d.ExitCode())
}

// A document subject shows its label, or its path only when set (names
// shown); a setting subject names the setting and where it came from.
func TestDiagnosticRendering(t *testing.T) {
	d := New(DecryptNoKey, Document(4, "secrets/db.sops.json", false))
	assert.Equal(t, "decrypt:no-key: document resource-0004: "+d.Summary+"; "+d.Next, d.Error())
	assert.NotContains(t, d.Error(), "secrets/db")
	shown := New(DecryptNoKey, Document(4, "secrets/db.sops.json", true))
	assert.Contains(t, shown.Error(), "document secrets/db.sops.json: ")

	c := New(ConfigRequired, Subject{Setting: "secret-prefix"}).WithSummary("is required")
	assert.Equal(t, "sops-aws-sync: setting --secret-prefix: is required (config:required)", c.Line())
	e := New(ConfigUnknownEnv, Subject{Setting: "SOPS_AWS_SYNC_X", Origin: OriginEnv})
	assert.Equal(t, "sops-aws-sync: environment variable SOPS_AWS_SYNC_X: is not a sops-aws-sync setting (config:unknown-env)", e.Line())

	ds := Diagnostics{c, e}
	assert.Equal(t, []string{c.Line(), e.Line(), "next: " + nextConfig}, ds.Lines(), "one next line per distinct action")
	assert.Equal(t, 3, ds.ExitCode())
	assert.Equal(t, 130, New(InterruptedSignal, Subject{}).ExitCode())
	assert.Equal(t, "run interrupted; "+nextRerun, New(InterruptedSignal, Subject{}).Sentence())
}

// TestRecordIsTheWrittenForm: a Diagnostic is written as its class,
// summary, next action and subject in one phrase (a document's label with
// its path only when shown, a setting as stderr names it, "" for the run),
// the cause never; Records is [] for no diagnostic (the plan file writes
// an empty list, never null). The JSON keys are the plan file's (SPEC §7.4).
func TestRecordIsTheWrittenForm(t *testing.T) {
	hidden := New(DecryptNoKey, Document(4, "secrets/db.sops.json", false)).WithCause(context.Canceled)
	shown := New(DecryptNoKey, Document(4, "secrets/db.sops.json", true))
	flag := New(ConfigRequired, Subject{Setting: "secret-prefix", Origin: OriginFlag}).WithSummary("is required")
	run := New(WarningOrphans, Subject{})
	assert.Equal(t, Record{Class: DecryptNoKey, Summary: hidden.Summary, Next: hidden.Next, Subject: "resource-0004"}, hidden.Record())
	assert.Equal(t, "secrets/db.sops.json", shown.Record().Subject)
	assert.Equal(t, Record{Class: ConfigRequired, Summary: "is required", Next: flag.Next, Subject: "flag --secret-prefix"}, flag.Record())
	assert.Equal(t, "", run.Record().Subject)
	assert.Equal(t, []Record{hidden.Record(), run.Record()}, Diagnostics{hidden, run}.Records())
	require.NotNil(t, Diagnostics(nil).Records())
	assert.Empty(t, Diagnostics(nil).Records())

	b, err := json.Marshal(flag.Record())
	require.NoError(t, err)
	assert.JSONEq(t, `{"class":"config:required","summary":"is required","next":"`+flag.Next+`","subject":"flag --secret-prefix"}`, string(b))
	b, err = json.Marshal(Diagnostics(nil).Records())
	require.NoError(t, err)
	assert.Equal(t, "[]", string(b))
}

// TestIsWarningIsTheWarningFamily: every registered class is a warning
// exactly when its family is warning; a class read back from a file is
// judged by its text alone ("warning" without a reason is no warning).
func TestIsWarningIsTheWarningFamily(t *testing.T) {
	warnings := 0
	for _, e := range Entries() {
		assert.Equal(t, e.Family == FamilyWarning, IsWarning(e.Class), e.Class)
		if IsWarning(e.Class) {
			warnings++
		}
	}
	assert.GreaterOrEqual(t, warnings, 2)
	assert.True(t, IsWarning("warning:of-a-later-release"))
	for _, c := range []string{"", "warning", "warnings:x", "decrypt:warning:x"} {
		assert.False(t, IsWarning(c), c)
	}
}

// TestRegression_ClassesOfEveryTargetSpokeOfSecretsManager: the summary
// of a class a run of any target can raise (a gate, a failed observation,
// a second writer) named AWS Secrets Manager, its secrets or its
// scheduled deletion, and every view of a Parameter Store scope printed
// it ("the scope could not be read from AWS Secrets Manager"; "the plan
// would schedule more deletions" of an immediate deletion). They now say
// what happens in words true of every target.
func TestRegression_ClassesOfEveryTargetSpokeOfSecretsManager(t *testing.T) {
	for _, class := range []string{ObserveFailed, GateMaxDeletions, GateEmptyScope, VerifySecondWriter} {
		e, ok := Lookup(class)
		require.True(t, ok, class)
		for _, word := range []string{"Secrets Manager", "Parameter Store", "schedul", "secret", "parameter"} {
			assert.NotContains(t, e.Summary, word, "%s's summary", class)
		}
	}
}
