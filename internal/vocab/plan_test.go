package vocab_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// actionsGolden renders the action table as the wire sees it: per action
// (view order), its spelling, whether it is an operation, the report count
// key it increments and the reasons it may carry; then the apply order, the
// keys_unavailable tokens and the metadata kinds.
func actionsGolden(t *testing.T) string {
	var b strings.Builder
	fmt.Fprintf(&b, "plan schema: %s\n", vocab.PlanSchema)
	for _, a := range vocab.Actions {
		var c vocab.Counts
		c.Add(a)
		raw, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]int
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for k, n := range m {
			if n != 0 {
				keys = append(keys, fmt.Sprintf("%s=%d", k, n))
			}
		}
		var reasons []string
		for _, r := range a.Reasons() {
			reasons = append(reasons, string(r))
		}
		fmt.Fprintf(&b, "action %q operation=%t count=%s reasons=%s\n", a, a.IsOperation(), strings.Join(keys, ","), strings.Join(reasons, ","))
	}
	var phases []string
	for _, a := range vocab.Phases {
		phases = append(phases, string(a))
	}
	fmt.Fprintf(&b, "apply order: %s\n", strings.Join(phases, ","))
	var unavailable []string
	for _, k := range vocab.KeysUnavailableReasons {
		unavailable = append(unavailable, string(k))
	}
	fmt.Fprintf(&b, "keys_unavailable: %s\n", strings.Join(unavailable, ","))
	var kinds []string
	for _, k := range vocab.MetadataKinds {
		kinds = append(kinds, string(k))
	}
	fmt.Fprintf(&b, "metadata kinds: %s\n", strings.Join(kinds, ","))
	return b.String()
}

// TestActionsGolden fails if a plan-file or report token of an action
// changes: the Action, the show command and users' scripts read these exact
// strings (SPEC §7.2, §7.4). A change is a contract change: review the
// diff of testdata/actions.golden (go test ./internal/vocab -update).
func TestActionsGolden(t *testing.T) {
	got := actionsGolden(t)
	const path = "testdata/actions.golden"
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("action table changed; review and run go test ./internal/vocab -update:\n got:\n%s\nwant:\n%s", got, want)
	}
}

// TestActionTable checks the table's own rules: every action counts into
// exactly one report counter and no two share one; vocab.Phases are the
// operations in view order; vocab.ActionNone is no action at all.
func TestActionTable(t *testing.T) {
	var all vocab.Counts
	for _, a := range vocab.Actions {
		var c vocab.Counts
		c.Add(a)
		if c.Create+c.Update+c.Adopt+c.Restore+c.ScheduleDelete+c.Unchanged+c.Conflicts != 1 {
			t.Errorf("%s counts into %+v, want exactly one counter", a, c)
		}
		all.Add(a)
		if len(a.Reasons()) == 0 {
			t.Errorf("%s has no reasons", a)
		}
	}
	if all != (vocab.Counts{Create: 1, Update: 1, Adopt: 1, Restore: 1, ScheduleDelete: 1, Unchanged: 1, Conflicts: 1}) {
		t.Errorf("two actions share a counter, or one is not counted: %+v", all)
	}
	if all.Operations() != len(vocab.Phases) {
		t.Errorf("Operations() = %d, want one per phase (%d)", all.Operations(), len(vocab.Phases))
	}
	var none vocab.Counts
	none.Add(vocab.ActionNone)
	if none != (vocab.Counts{}) || vocab.ActionNone.Known() || vocab.ActionNone.IsOperation() || vocab.ActionNone.Reasons() != nil {
		t.Errorf("vocab.ActionNone must be no action")
	}
	if vocab.Action("Create").Known() {
		t.Errorf("actions are matched by exact spelling")
	}
}
