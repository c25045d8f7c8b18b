package chaos

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Doc is one SOPS document of a revision, before encryption.
type Doc struct {
	// Path is repo-relative, e.g. "secrets/app/db.sops.yaml".
	Path string
	// Format is the plaintext syntax, matching the suffix of Path.
	Format canonical.Format
	// Plain is the plaintext the author wrote (to be encrypted).
	Plain []byte
	// Canon is canonical.Canonicalize(Format, Plain): the SecretString the
	// tool must store (SPEC §3.3); for Text and Binary (whole values, SPEC
	// §3.1) Plain itself, stored as SecretString or SecretBinary.
	Canon []byte
	// Planted is a key-service stanza a pull request author added to the
	// document's sops metadata beside the age key ("" = none): PlantedVault
	// or PlantedKMSRole, both pointing at the player's recording listener.
	// The default --key-services allows neither, so the listener must never
	// be contacted, and age still decrypts.
	Planted string
}

// The key-service stanzas a scenario may plant (Doc.Planted).
const (
	PlantedVault   = "hc_vault"
	PlantedKMSRole = "kms-role"
)

// Revision is the content of one commit.
type Revision struct {
	// Docs are the documents the tool must select, by path.
	Docs map[string]Doc
	// Plain files are committed as is: files the tool must ignore (wrong
	// suffix, outside the source root), each holding canaries.
	Plain map[string][]byte
	// Outside are valid SOPS documents committed outside the source root
	// (or with a suffix the tool does not select): they must never become
	// secrets.
	Outside map[string]Doc
}

// Desired returns name → document for the documents of r under sc.
func (r Revision) Desired(sc model.Scope) map[string]Doc {
	out := map[string]Doc{}
	for _, d := range r.Docs {
		out[SecretName(sc, d.Path)] = d
	}
	return out
}

// SecretName is prefix + "/" + (path − source root − suffix) (SPEC §3.4).
func SecretName(sc model.Scope, path string) string {
	root := cleanRoot(sc.SourceRoot)
	rel := path
	if root != "." {
		rel = strings.TrimPrefix(path, root+"/")
	}
	for _, suf := range []string{".sops.json", ".sops.yaml", ".sops.yml", ".sops.env", ".sops.txt", ".sops.bin"} {
		if strings.HasSuffix(rel, suf) {
			rel = strings.TrimSuffix(rel, suf)
			break
		}
	}
	return cleanPrefix(sc.Prefix) + "/" + rel
}

// PreVersion is one version of a seeded secret: exactly one of String and
// Binary is set.
type PreVersion struct {
	String *string
	Binary []byte
}

// PreSecret is one secret the scenario puts into the emulator before the
// first CLI run. Versions are written in order (the last is AWSCURRENT).
type PreSecret struct {
	Name        string
	Description string
	Tags        map[string]string
	Versions    []PreVersion
	// DeleteWindowDays > 0 schedules the secret for deletion with that
	// recovery window after its versions are written.
	DeleteWindowDays int
	// Foreign is true for secrets outside the scope (must stay byte-for-byte
	// unchanged); false for secrets owned by the scope (an earlier sync).
	Foreign bool
	// Kind names why the secret is there ("synced", "drift-value", "binary",
	// "history", "pending", "graveyard", "foreign-untagged", ...).
	Kind string
	// Adoptable marks a foreign secret made by hand (no sops-aws-sync: tag)
	// whose name a document maps to and that runs may name in adopt (SPEC
	// §11): the only foreign secret the tool may write, and only in a run
	// that names it (or after a run named it and tagged it).
	Adoptable bool
	// Replicas are the Regions an earlier sync replicated the secret to
	// (ReplicateSecretToRegions after its versions; only for an active
	// owned secret of a scenario that configures replica-regions).
	Replicas []string
}

// KillPlan says when the runner SIGKILLs the CLI in a run.
type KillPlan struct {
	// Mode is "mutation-before" (the Nth mutating call arrives at the proxy;
	// the CLI is killed and the call is never forwarded), "mutation-after"
	// (the Nth mutating call is applied by the emulator; the CLI is killed
	// before it sees the response), "call" (the Nth call of any operation,
	// killed before forwarding) or "delay" (DelayMS after the process
	// started).
	Mode    string
	Nth     int
	DelayMS int
	// Service, when "ssm", makes the mutation modes count Parameter Store
	// writes alone (the Parameter Store draw aims its kills at them).
	Service string
}

func (k KillPlan) String() string {
	if k.Mode == "delay" {
		return fmt.Sprintf("delay:%dms", k.DelayMS)
	}
	if k.Service != "" {
		return fmt.Sprintf("%s-%s:%d", k.Service, k.Mode, k.Nth)
	}
	return fmt.Sprintf("%s:%d", k.Mode, k.Nth)
}

// faultKinds lists the fault kinds set in f, for the summary ("list-lag",
// "latency", "error-rate", "ambiguous", "throttling", "script").
func faultKinds(f emulator.Faults) []string {
	var k []string
	if f.ListLagMS > 0 {
		k = append(k, "list-lag")
	}
	if f.LatencyMS > 0 || f.LatencyJitterMS > 0 {
		k = append(k, "latency")
	}
	if f.ErrorRate > 0 {
		k = append(k, "error-rate")
	}
	if f.AmbiguousRate > 0 {
		k = append(k, "ambiguous")
	}
	if f.Quotas {
		k = append(k, "throttling")
	}
	if len(f.Script) > 0 {
		k = append(k, "script")
	}
	return k
}

// QuotaPlan is the emulator's request quotas during one run (a
// shared account quota is back-pressure, not failure): the run starts with
// every quota at Scale of AWS's; when ChangeAtCall > 0 the scale becomes
// ChangeTo just before the run's ChangeAtCall-th API call reaches the
// emulator (PUT /_emulator/quotas, which leaves the other faults alone).
// Share > 0 starts the account's other clients for the run (Noise),
// spending that share of every quota at Scale.
type QuotaPlan struct {
	Scale        float64
	ChangeAtCall int
	ChangeTo     float64
	Share        float64
	// SSMScales, when set, scales Parameter Store's quota families alone
	// (emulator.Quotas.QuotaScales, keyed by one operation of each
	// family), through the whole run: the Parameter Store draw's reduced
	// quotas.
	SSMScales map[string]float64
}

func (q QuotaPlan) String() string {
	s := fmt.Sprintf("quotas:%.2f", q.Scale)
	if q.ChangeAtCall > 0 {
		s += fmt.Sprintf("→%.2f@call%d", q.ChangeTo, q.ChangeAtCall)
	}
	if q.Share > 0 {
		s += fmt.Sprintf(" others:%.0f%%", q.Share*100)
	}
	if len(q.SSMScales) > 0 {
		s += fmt.Sprintf(" ssm:%.2f", q.SSMScales["PutParameter"])
	}
	return s
}

// Run is one CLI invocation of a scenario.
type Run struct {
	// Command is "sync" or "plan".
	Command string
	// Revision indexes Scenario.Revisions.
	Revision int
	// Faults are set on the emulator just before the run (zero = none).
	Faults emulator.Faults
	// Quotas, when set, turns the emulator's quotas on at a reduced scale
	// for this run, after Faults (campaign flag -quotas; never together
	// with a Faults of its own quotas).
	Quotas *QuotaPlan
	// Metadata, when set, is the metadata of owned secrets configured for
	// this run (--kms-key-id, --description, --tag).
	Metadata *model.Metadata
	// Replicas, when set, is --replica-regions for this run (SPEC §12);
	// MaxDeletions, when set, is --max-deletions (replica removals count).
	Replicas     []model.Replica
	MaxDeletions *int
	// Adopt is --adopt for this run (SPEC §11): the scenario's adopt names
	// that the run's revision maps to (an entry naming no document would
	// be exit 3), sorted; nil = none.
	Adopt []string
	// Kill, when set, SIGKILLs the CLI during the run.
	Kill *KillPlan
	// Concurrency is --concurrency.
	Concurrency int
	// Drift are out-of-band changes made (by "someone in the console")
	// before the run starts.
	Drift []Drift
	// MaxAttempts is --aws-max-attempts (0 = the SDK default). 1 turns SDK
	// retries off, so every lost response reaches the engine's own
	// ambiguity handling (SPEC §6).
	MaxAttempts int
	// Final marks the clean runs after the faults: a final sync must exit 0
	// with status converged; a final plan --detailed-exit-code must exit 0.
	Final bool
}

// Drift is one out-of-band change between runs: Kind "value" (a new
// current version with another value), "delete" (scheduled for deletion
// with Window days) or "restore". The harness makes it through the emulator
// API; it may be refused (e.g. a value change on a secret pending deletion),
// which is recorded.
type Drift struct {
	Name   string
	Kind   string
	Window int
}

// Scenario is one seeded scenario: everything the runner needs, as data.
type Scenario struct {
	Index int
	Seed  uint64
	Scope model.Scope
	// PrefixArg is the --secret-prefix value as given to the CLI (it may
	// end in one "/", which the CLI trims); Scope.Prefix is trimmed.
	PrefixArg string
	// RecoveryWindowDays is --recovery-window-days (7..30).
	RecoveryWindowDays int
	AllowEmpty         bool
	ShowResourceNames  bool
	// Revisions are the commits, oldest first; Revisions[0] is the commit
	// the Pre state was synced from.
	Revisions []Revision
	// Pre is the AWS state before the first run.
	Pre []PreSecret
	// Runs are played in order; the last two are the final sync and plan.
	Runs []Run
	// Changes describes the desired-state change, for the summary.
	Changes map[string]int
	// Siblings, when set, are the other scopes of a multi-scope scenario
	// (drawScopes; SPEC §10): every run then gives a config file with
	// scopes:, the primary named PrimaryScopeName.
	Siblings []Sibling
}

// Mutations estimates the mutating calls the first run will make: used to
// aim kill plans at the apply phase.
func (s *Scenario) Mutations() int {
	return s.Changes["create"] + s.Changes["update"] + s.Changes["restore"] + s.Changes["delete"]
}

// EverDesired returns the names desired by any revision a run targets.
func (s *Scenario) EverDesired() map[string]bool {
	out := map[string]bool{}
	for _, r := range s.Runs {
		for n := range s.Revisions[r.Revision].Desired(s.Scope) {
			out[n] = true
		}
	}
	return out
}

// FinalRevision is the revision of the last run.
func (s *Scenario) FinalRevision() Revision {
	return s.Revisions[s.Runs[len(s.Runs)-1].Revision]
}

// Kills counts the runs with a kill plan.
func (s *Scenario) Kills() int {
	n := 0
	for _, r := range s.Runs {
		if r.Kill != nil {
			n++
		}
	}
	return n
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}

// cleanRoot and cleanPrefix apply model's source-root and prefix rules to
// the scenario's settings as typed (they are valid by construction).
func cleanRoot(v string) string { r, _ := model.CleanSourceRoot(v); return r }

func cleanPrefix(v string) string {
	if p, err := model.CleanPrefix(v); err == nil {
		return p
	}
	return v
}
