package vocab_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

var update = flag.Bool("update", false, "rewrite testdata/wire.golden.json and testdata/actions.golden")

// wireGolden is the wire contract between the CLI and the GitHub Action:
// everything the Action (action/src) re-declares because it checks it
// itself. The Action's unit tests (action/test/unit/wire.test.ts) read the
// same file and assert that the Action's declarations equal it, so a token
// added on one side only fails the other side's suite.
const wireGolden = "testdata/wire.golden.json"

// wireContract is the content of wireGolden. Every field is computed from
// the Go declarations (or by asking the Go code, for the rules), never
// written by hand.
type wireContract struct {
	Note         string   `json:"note"`
	ReportSchema string   `json:"report_schema"`
	ReportKeys   []string `json:"report_keys"`
	// ReportOptionalKeys are the report keys a reader must accept absent
	// (omitempty: scopes, additive in v1; absent in older versions' reports).
	ReportOptionalKeys []string `json:"report_optional_keys"`
	// ReportScopeKeys are the keys of one element of the report's scopes.
	ReportScopeKeys []string `json:"report_scope_keys"`
	CountKeys       []string `json:"count_keys"`
	// OperationCountKeys are the count keys Counts.Operations adds up (the
	// planned mutations; plan's converged/drift rule, SPEC §7.1).
	OperationCountKeys []string `json:"operation_count_keys"`
	Statuses           []string `json:"statuses"`
	Verifications      []string `json:"verifications"`
	// ExitCodes is every exit code a run may end with: the image of
	// vocab.ExitCode over every status, with and without
	// --detailed-exit-code, and of every registered diagnostic class.
	ExitCodes []int `json:"exit_codes"`
	// ExitStatuses maps an exit code to the statuses a report written
	// with it may carry (SPEC §7.1).
	ExitStatuses map[string][]string `json:"exit_statuses"`
	// StatusExit maps a status to its exit code without and with
	// --detailed-exit-code.
	StatusExit map[string]statusExit `json:"status_exit"`
	Settings   []wireSetting         `json:"settings"`
	// IntRanges holds, per integer setting the Action validates, the
	// smallest and largest value the CLI accepts (found by asking
	// config.Resolve).
	IntRanges map[string]intRange `json:"int_ranges"`
	// Durations are sample values of a duration setting with the CLI's
	// verdict (config.Resolve of --run-timeout); the Action's own check
	// must agree on each.
	Durations []durationSample `json:"durations"`
	// Choices holds, per setting with a fixed list of values that the
	// Action has an input for, the values config.Resolve accepts (each
	// checked by asking it; a value outside the list is refused).
	Choices map[string][]string `json:"choices"`
	// GitHubCommentLimit and GitHubStepSummaryLimit are the limits the
	// Markdown rendering is cut to.
	GitHubCommentLimit     int `json:"github_comment_limit"`
	GitHubStepSummaryLimit int `json:"github_step_summary_limit"`
	// Targets are the target table's rows the Action reads (SPEC §16,
	// model.Target): the ARN form its changes-file check accepts and the
	// service's word its drift issue and job summary say.
	Targets []wireTarget `json:"targets"`
}

type wireTarget struct {
	Target      string `json:"target"`
	ARNService  string `json:"arn_service"`
	ARNResource string `json:"arn_resource"`
	Service     string `json:"service"`
	Resources   string `json:"resources"`
	Undoable    bool   `json:"deletion_undoable"`
}

type statusExit struct {
	Default  int `json:"default"`
	Detailed int `json:"detailed"`
}

type wireSetting struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Required bool   `json:"required,omitempty"`
	FlagOnly bool   `json:"flag_only,omitempty"`
	PlanOnly bool   `json:"plan_only,omitempty"`
}

type intRange struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

type durationSample struct {
	Value    string `json:"value"`
	Accepted bool   `json:"accepted"`
}

// durationSamples covers Go's time.ParseDuration grammar and the "greater
// than zero" rule: units, fractions, signs, a missing unit, overflow.
var durationSamples = []string{
	"30s", "10m", "1h", "1m30s", "1.5h", ".5s", "1.s", "250ms", "1us", "1µs", "1μs", "100ns",
	"2h45m0.5s", "0.000001ms", "1.5ns", "+1s", "2562047h", "0s", "0", "0.0s", "0.5ns", "+0s", "-0s", "-1s", "1", "s", "1d", "1e3s", "1.2.3s",
	" 1s", "1s ", "1 s", "1S", "2562048h", "9223372036854775808ns", "",
}

// resolveWith runs config.Resolve for plan with the required settings and
// one more flag; it reports whether that flag's value was accepted.
func resolveWith(name, value string) bool {
	_, err := config.Resolve(config.Input{
		Command: "plan",
		Flags:   map[string]string{config.RepositoryID: "o/r", config.SecretPrefix: "p", name: value},
	})
	return err == nil
}

// reportCountKeys are the keys of c as a report writes it (report.New:
// vocab.Counts.Report), in the struct's order.
func reportCountKeys(c vocab.Counts) []string {
	b, err := json.Marshal(c.Report())
	if err != nil {
		panic(err)
	}
	var m map[string]int
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	var keys []string
	for _, k := range jsonKeys(reflect.TypeFor[vocab.Counts]()) {
		if _, ok := m[k]; ok {
			keys = append(keys, k)
		}
	}
	return keys
}

func jsonKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// optionalKeys are the JSON names of t's fields tagged omitempty (a strict
// reader, wirefile.Decode, accepts them absent).
func optionalKeys(t reflect.Type) []string {
	keys := []string{}
	for i := range t.NumField() {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" && slices.Contains(strings.Split(opts, ","), "omitempty") {
			keys = append(keys, name)
		}
	}
	return keys
}

func buildWireContract(t *testing.T) wireContract {
	t.Helper()
	w := wireContract{
		Note:                   "generated by `go test ./internal/vocab -run TestWireContractGolden -update`; do not edit. Read by action/test/unit/wire.test.ts.",
		ReportSchema:           vocab.ReportSchema,
		ReportKeys:             jsonKeys(reflect.TypeFor[report.Report]()),
		ReportOptionalKeys:     optionalKeys(reflect.TypeFor[report.Report]()),
		ReportScopeKeys:        jsonKeys(reflect.TypeFor[report.Scope]()),
		CountKeys:              reportCountKeys(vocab.Counts{}),
		ExitStatuses:           map[string][]string{},
		StatusExit:             map[string]statusExit{},
		IntRanges:              map[string]intRange{},
		Choices:                map[string][]string{},
		GitHubCommentLimit:     planview.GitHubCommentLimit,
		GitHubStepSummaryLimit: planview.GitHubStepSummaryLimit,
	}
	for _, tg := range model.Targets {
		w.Targets = append(w.Targets, wireTarget{Target: string(tg), ARNService: tg.Service(), ARNResource: tg.ARNResource(),
			Service: tg.Words().Service, Resources: tg.Words().Resources, Undoable: tg.DeletionUndoable()})
	}
	// The report's counts (what the Action reads) fold adoptions into
	// update (vocab.Counts.Report): its keys are those a report writes.
	ct := reflect.TypeFor[vocab.Counts]()
	for i := range ct.NumField() {
		var c vocab.Counts
		reflect.ValueOf(&c).Elem().Field(i).SetInt(1)
		key, _, _ := strings.Cut(ct.Field(i).Tag.Get("json"), ",")
		if c.Operations() == 1 && slices.Contains(w.CountKeys, key) {
			w.OperationCountKeys = append(w.OperationCountKeys, key)
		}
	}
	codes := map[int]bool{}
	for _, s := range vocab.Statuses {
		w.Statuses = append(w.Statuses, string(s))
		se := statusExit{Default: vocab.ExitCode(s, false), Detailed: vocab.ExitCode(s, true)}
		w.StatusExit[string(s)] = se
		for _, c := range []int{se.Default, se.Detailed} {
			codes[c] = true
			k := strconv.Itoa(c)
			if !slices.Contains(w.ExitStatuses[k], string(s)) {
				w.ExitStatuses[k] = append(w.ExitStatuses[k], string(s))
			}
		}
	}
	for _, e := range diag.Entries() {
		codes[diag.ExitCodeOf(e.Class)] = true
	}
	for c := range codes {
		w.ExitCodes = append(w.ExitCodes, c)
	}
	slices.Sort(w.ExitCodes)
	for _, v := range vocab.Verifications {
		w.Verifications = append(w.Verifications, string(v))
	}
	for _, s := range config.Settings {
		w.Settings = append(w.Settings, wireSetting{Name: s.Name, Kind: s.Kind.TypeName(), Required: s.Required, FlagOnly: s.FlagOnly, PlanOnly: s.PlanOnly})
	}
	for _, name := range []string{config.RecoveryWindowDays} {
		var accepted []int
		for n := -1000; n <= 1000; n++ {
			if resolveWith(name, strconv.Itoa(n)) {
				accepted = append(accepted, n)
			}
		}
		if len(accepted) == 0 || accepted[len(accepted)-1]-accepted[0] != len(accepted)-1 || accepted[0] == -1000 || accepted[len(accepted)-1] == 1000 {
			t.Fatalf("%s: the accepted values are not one range inside [-999, 999]: %v", name, accepted)
		}
		w.IntRanges[name] = intRange{Min: accepted[0], Max: accepted[len(accepted)-1]}
	}
	for name, values := range map[string][]string{config.Target: targetWords(), config.ParameterTier: model.Tiers} {
		for _, v := range append(slices.Clone(values), "other", strings.ToUpper(values[0])) {
			if resolveWith(name, v) != slices.Contains(values, v) {
				t.Fatalf("%s=%q: config.Resolve disagrees with the list %v", name, v, values)
			}
		}
		w.Choices[name] = values
	}
	for _, v := range durationSamples {
		w.Durations = append(w.Durations, durationSample{Value: v, Accepted: v != "" && resolveWith(config.RunTimeout, v)})
	}
	return w
}

// TestWireContractGolden fails when testdata/wire.golden.json is not what
// the Go code declares today. After a deliberate change, regenerate it
// (`go test ./internal/vocab -run TestWireContractGolden -update`), then
// make the Action agree: `cd action && npx vitest run test/unit/wire.test.ts`
// fails until it does.
func TestWireContractGolden(t *testing.T) {
	got, err := json.MarshalIndent(buildWireContract(t), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(wireGolden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(wireGolden)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/vocab -run TestWireContractGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: the wire contract changed. Review the change, regenerate with\n"+
			"  go test ./internal/vocab -run TestWireContractGolden -update\n"+
			"and make the Action agree (action/test/unit/wire.test.ts).\ngot:\n%s", wireGolden, got)
	}
}

// targetWords are the target setting's words (model.Targets).
func targetWords() []string {
	out := make([]string, len(model.Targets))
	for i, t := range model.Targets {
		out[i] = string(t)
	}
	return out
}
