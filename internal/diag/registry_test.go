package diag

import (
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
