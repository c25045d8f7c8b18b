package chaos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// ScopesShare is the chance that a scenario runs as one scope of several
// (a config file with scopes:, SPEC §10) when GenOptions.Scopes is on.
const ScopesShare = 0.3

// PrimaryScopeName is the name of the scenario's own scope (the one every
// other draw shapes) when the scenario runs several scopes.
const PrimaryScopeName = "main"

// SiblingAccount is the emulated account of siblings reached through a
// role (SiblingRole); the primary scope lives in emulator.DefaultAccountID.
const (
	SiblingAccount = "210987654321"
	SiblingRole    = "arn:aws:iam::" + SiblingAccount + ":role/chaos-sibling"
	// SiblingRegion is a Region no other draw uses (not ChaosRegion, not
	// in ReplicaPool), so a sibling there is its own bucket.
	SiblingRegion = "eu-central-1"
)

// Sibling is one more scope of a multi-scope scenario beside the primary
// (Scenario.Scope): its own source root and prefix (never overlapping the
// primary's or another sibling's, so a secret's name says its scope), in a
// bucket drawn as Kind: "shared" (the primary's account and Region),
// "region" (the primary's account, SiblingRegion) or "account" (through
// SiblingRole into SiblingAccount, in ChaosRegion or SiblingRegion).
type Sibling struct {
	Name   string
	Kind   string
	Scope  model.Scope
	Region string
	// RoleARN is the scope's role-arn ("" = the base credentials);
	// Account is where its secrets live.
	RoleARN, Account string
	// Docs are its documents per revision (index = Scenario.Revisions).
	Docs []map[string]Doc
	// The estate draws (drawSiblingEstate): Replicas is its
	// replica-regions on every run (nil = not managed); Pre are secrets
	// made by hand in its namespace, seeded before the first run (only in
	// the shared bucket, which the harness's own client reaches), each
	// named in Adopt on every run; Whole counts its whole-value documents
	// (.sops.txt/.sops.bin) over the revisions; Drifted counts the
	// out-of-band value changes drawn on its secrets (Run.Drift).
	Replicas []model.Replica
	Pre      []PreSecret
	Adopt    []string
	Whole    int
	Drifted  int
	// The Parameter Store draw (drawParameterStore; Kind "parameter-store",
	// Scope.Target model.TargetParameterStore): Tags and MaxDeletions are
	// its tag and max-deletions per run (index = Scenario.Runs; nil =
	// none), PSPre the parameters seeded before the first run, PSDrift the
	// out-of-band changes made before run index i.
	Tags         []map[string]string
	MaxDeletions []*int
	PSPre        []PSParam
	PSDrift      map[int][]Drift
}

// PS reports whether the sibling targets Parameter Store.
func (b Sibling) PS() bool { return b.Scope.Target == model.TargetParameterStore }

// ResourceName is the resource name of document path: the secret name, with one
// leading "/" for Parameter Store (SPEC §16).
func (b Sibling) ResourceName(path string) string {
	if b.PS() {
		return "/" + SecretName(b.Scope, path)
	}
	return SecretName(b.Scope, path)
}

// Desired returns name → document of revision rev.
func (b Sibling) Desired(rev int) map[string]Doc {
	out := map[string]Doc{}
	for _, d := range b.Docs[rev] {
		out[b.ResourceName(d.Path)] = d
	}
	return out
}

// owns reports whether name is in the sibling's namespace.
func (b Sibling) owns(name string) bool {
	if b.PS() {
		return strings.HasPrefix(name, "/"+b.Scope.Prefix+"/")
	}
	return strings.HasPrefix(name, b.Scope.Prefix+"/")
}

// drawScopes makes ScopesShare of the scenarios one scope of two to four
// (SPEC §10): one to three siblings, each with one to three JSON documents
// per revision (names kept, added or dropped between revisions, values
// changed), in shared and separate buckets. A scenario whose primary
// source root is the whole repository gets none (its root would select
// the siblings' documents).
func drawScopes(r *rand.Rand, s *Scenario) error {
	if r.Float64() >= ScopesShare || cleanRoot(s.Scope.SourceRoot) == "." {
		return nil
	}
	kinds := []string{"shared", "region", "account"}
	stems := []string{"db", "api", "cache", "queue"}
	for i := range 1 + r.IntN(3) {
		name := fmt.Sprintf("s%d", i+2)
		b := Sibling{Name: name, Kind: kinds[r.IntN(len(kinds))],
			Scope:  model.Scope{RepositoryID: s.Scope.RepositoryID, SourceRoot: "siblings/" + name, Prefix: "sib-" + name + "/svc"},
			Region: ChaosRegion, Account: emulator.DefaultAccountID}
		switch b.Kind {
		case "region":
			b.Region = SiblingRegion
		case "account":
			b.RoleARN, b.Account = SiblingRole, SiblingAccount
			if r.IntN(2) == 0 {
				b.Region = SiblingRegion
			}
		}
		// Whole-value stems (about a third, fixed for the scenario: the
		// kind may switch between text and binary per revision) and the
		// stem a hand-made secret takes (kept in every revision, since
		// every run names it in adopt).
		whole := map[string]bool{}
		for _, st := range stems {
			whole[st] = r.IntN(3) == 0
		}
		adopted := -1
		if b.Kind == "shared" && r.IntN(3) == 0 {
			adopted = r.IntN(len(stems))
		}
		for range s.Revisions {
			docs := map[string]Doc{}
			keep := r.IntN(len(stems)) // at least one: an empty root is not a directory in the commit
			for k, st := range stems {
				if k != keep && k != adopted && r.IntN(2) == 0 {
					continue
				}
				plain := fmt.Sprintf(`{"value":"v%d","rev":"%s"}`, r.IntN(3), name)
				c, err := canonical.Canonicalize(canonical.JSON, []byte(plain))
				if err != nil {
					return err
				}
				path := b.Scope.SourceRoot + "/" + st + ".sops.json"
				d := Doc{Path: path, Format: canonical.JSON, Plain: []byte(plain), Canon: c}
				if whole[st] {
					f, suffix := canonical.Text, ".sops.txt"
					if r.IntN(2) == 0 {
						f, suffix = canonical.Binary, ".sops.bin"
					}
					v := wholeValue(c, f, wholeStyle{crlf: r.IntN(2) == 0, trailing: r.IntN(3) != 0})
					path = b.Scope.SourceRoot + "/" + st + suffix
					d = Doc{Path: path, Format: f, Plain: v, Canon: v}
					b.Whole++
				}
				docs[path] = d
			}
			b.Docs = append(b.Docs, docs)
		}
		drawSiblingEstate(r, s, &b, adopted, stems)
		s.Siblings = append(s.Siblings, b)
	}
	return nil
}

// drawSiblingEstate gives sibling b the estate features the primary has
// (SPEC §11, §12; out-of-band drift): a third of the siblings configure
// replica-regions (one or two ReplicaPool Regions, on every run, so the
// final state must hold them); in the shared bucket, the stem adopted
// (index into stems, -1 = none; drawScopes kept it in every revision) is
// a secret made by hand before the first run, equal to the first
// revision's document or not, with or without a tag of its own, named in
// adopt on every run; and a third of the shared siblings get an
// out-of-band value change on one of their secrets before one non-final
// run (refused, and recorded so, when the secret is not there yet). Only
// the shared bucket gets drift and hand-made secrets: the harness's own
// client reaches the primary's account and Region alone.
func drawSiblingEstate(r *rand.Rand, s *Scenario, b *Sibling, adopted int, stems []string) {
	if r.IntN(3) == 0 {
		for _, region := range ReplicaPool {
			if r.IntN(2) == 0 && len(b.Replicas) < 2 {
				b.Replicas = append(b.Replicas, model.Replica{Region: region})
			}
		}
		if len(b.Replicas) == 0 {
			b.Replicas = []model.Replica{{Region: ReplicaPool[r.IntN(len(ReplicaPool))]}}
		}
	}
	if b.Kind != "shared" {
		return
	}
	if adopted >= 0 {
		var first Doc
		for _, d := range b.Docs[0] {
			if strings.HasPrefix(d.Path, b.Scope.SourceRoot+"/"+stems[adopted]+".") {
				first = d
			}
		}
		name := SecretName(b.Scope, first.Path)
		v := PreVersion{}
		switch {
		case r.IntN(2) == 0 && first.Format == canonical.Binary:
			v.Binary = append([]byte(nil), first.Canon...)
		case r.IntN(2) == 0 && first.Format != canonical.Binary:
			str := string(first.Canon)
			v.String = &str
		default:
			str := `{"made":"by hand"}`
			v.String = &str
		}
		pre := PreSecret{Name: name, Versions: []PreVersion{v}, Foreign: true, Adoptable: true, Kind: "sibling-adoptable"}
		if r.IntN(2) == 0 {
			pre.Tags = map[string]string{"team": "by-hand"}
		}
		b.Pre = append(b.Pre, pre)
		b.Adopt = []string{name}
	}
	if r.IntN(3) == 0 {
		var nonFinal []int
		for i, run := range s.Runs {
			if !run.Final && i > 0 {
				nonFinal = append(nonFinal, i)
			}
		}
		if len(nonFinal) > 0 {
			i := nonFinal[r.IntN(len(nonFinal))]
			docs := b.Docs[s.Runs[i-1].Revision]
			if len(docs) > 0 {
				paths := sortedKeys(docs)
				s.Runs[i].Drift = append(s.Runs[i].Drift, Drift{Name: SecretName(b.Scope, paths[r.IntN(len(paths))]), Kind: "value"})
				b.Drifted++
			}
		}
	}
}

// scopesConfig is the config file of run i (0-based) of s when s has siblings:
// every per-scope setting (SPEC §10) under its scope, the primary first.
func scopesConfig(s *Scenario, i int) []byte {
	run := s.Runs[i]
	q := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	var b strings.Builder
	fmt.Fprintf(&b, "repository-id: %s\nscopes:\n", q(s.Scope.RepositoryID))
	fmt.Fprintf(&b, "  - name: %s\n    source-root: %s\n    secret-prefix: %s\n    aws-region: %s\n    recovery-window-days: %d\n    allow-empty: %t\n",
		PrimaryScopeName, q(s.Scope.SourceRoot), q(s.PrefixArg), ChaosRegion, s.RecoveryWindowDays, s.AllowEmpty)
	if m := run.Metadata; m != nil {
		if m.KMSKeyID != "" {
			fmt.Fprintf(&b, "    kms-key-id: %s\n", q(m.KMSKeyID))
		}
		if m.Description != "" {
			fmt.Fprintf(&b, "    description: %s\n", q(m.Description))
		}
		if len(m.Tags) > 0 {
			b.WriteString("    tag:\n")
			for _, k := range sortedKeys(m.Tags) {
				fmt.Fprintf(&b, "      %s: %s\n", q(k), q(m.Tags[k]))
			}
		}
	}
	if len(run.Replicas) > 0 {
		fmt.Fprintf(&b, "    replica-regions: %s\n", q(strings.Join(model.ReplicaRegionsOf(run.Replicas), ",")))
	}
	if run.MaxDeletions != nil {
		fmt.Fprintf(&b, "    max-deletions: %d\n", *run.MaxDeletions)
	}
	if len(run.Adopt) > 0 {
		b.WriteString("    adopt:\n")
		for _, n := range run.Adopt {
			fmt.Fprintf(&b, "      - %s\n", q(n))
		}
	}
	for _, sb := range s.Siblings {
		if sb.PS() {
			psConfig(&b, sb, i)
			continue
		}
		fmt.Fprintf(&b, "  - name: %s\n    source-root: %s\n    secret-prefix: %s\n    aws-region: %s\n    recovery-window-days: %d\n",
			sb.Name, q(sb.Scope.SourceRoot), q(sb.Scope.Prefix), sb.Region, s.RecoveryWindowDays)
		if sb.RoleARN != "" {
			fmt.Fprintf(&b, "    role-arn: %s\n", q(sb.RoleARN))
		}
		if len(sb.Replicas) > 0 {
			fmt.Fprintf(&b, "    replica-regions: %s\n", q(strings.Join(model.ReplicaRegionsOf(sb.Replicas), ",")))
		}
		if len(sb.Adopt) > 0 {
			b.WriteString("    adopt:\n")
			for _, n := range sb.Adopt {
				fmt.Fprintf(&b, "      - %s\n", q(n))
			}
		}
	}
	return []byte(b.String())
}

// STSCall is one STS request the recorder forwarded: its Action and, for
// AssumeRole, RoleArn and RoleSessionName.
type STSCall struct {
	Run                   int
	Action, Role, Session string
}

// STSRecorder stands between the CLI and the emulator's STS endpoint
// (AWS_ENDPOINT_URL_STS of a multi-scope run): it forwards every request
// and records what it asked. SOPS shares the process's environment, so a
// planted KMS-role stanza's AssumeRole comes here too; the checker allows
// only the tool's own calls (checkSTS), which keeps the key-service
// canary's power over STS while the tool's role assumptions reach the
// emulator.
type STSRecorder struct {
	*httptest.Server
	mu    sync.Mutex
	run   int
	calls []STSCall
}

// NewSTSRecorder starts one on a loopback port in front of upstream.
func NewSTSRecorder(upstream string) (*STSRecorder, error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return nil, err
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rec := &STSRecorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		_ = req.Body.Close()
		form, _ := url.ParseQuery(string(body))
		rec.mu.Lock()
		rec.calls = append(rec.calls, STSCall{Run: rec.run, Action: form.Get("Action"), Role: form.Get("RoleArn"), Session: form.Get("RoleSessionName")})
		rec.mu.Unlock()
		req.Body = io.NopCloser(strings.NewReader(string(body)))
		req.ContentLength = int64(len(body))
		rp.ServeHTTP(w, req)
	}))
	return rec, nil
}

// Arm makes later requests count for run n (1-based).
func (s *STSRecorder) Arm(n int) { s.mu.Lock(); s.run = n; s.mu.Unlock() }

// Take returns the calls recorded since the last Take.
func (s *STSRecorder) Take() []STSCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.calls
	s.calls = nil
	return c
}

// project returns ev restricted to the primary scope: the siblings'
// secrets (another account, or a name in a sibling's namespace) and the
// calls on them left out, so the single-scope invariants judge the primary
// as if it ran alone.
func project(ev Evidence) Evidence {
	s := ev.Scenario
	if len(s.Siblings) == 0 {
		return ev
	}
	arns := arnNames(ev.Pre, ev.Post)
	sib := func(name string) bool {
		for _, b := range s.Siblings {
			if b.owns(name) {
				return true
			}
		}
		return false
	}
	keep := func(d emulator.StateDump) emulator.StateDump {
		var out emulator.StateDump
		for _, sd := range d.Secrets {
			if (sd.Account == "" || sd.Account == emulator.DefaultAccountID) && !sib(sd.Name) {
				out.Secrets = append(out.Secrets, sd)
			}
		}
		return out
	}
	p := ev
	p.Pre, p.Post = keep(ev.Pre), keep(ev.Post)
	if ev.BeforePurge != nil {
		b := keep(*ev.BeforePurge)
		p.BeforePurge = &b
	}
	if ev.AfterPurge != nil {
		a := keep(*ev.AfterPurge)
		p.AfterPurge = &a
	}
	p.Calls = nil
	for _, c := range ev.Calls {
		if c.Service == "ssm" {
			continue // Parameter Store: only a sibling targets it (checkParameterStore)
		}
		t := c.Target
		if n, ok := arns[t]; ok {
			t = n
		}
		if t != "" && sib(t) {
			continue
		}
		if t == "" && c.Op == "ListSecrets" && c.Region != "" && c.Region != ChaosRegion {
			continue // a sibling's listing in its Region
		}
		p.Calls = append(p.Calls, c)
	}
	return p
}

// scopeVerification checks a multi-scope run's "scope finished" records:
// one per configured scope, each with the verification its status goes
// with, and the report's status and verification each one of the scopes'.
func scopeVerification(rr RunResult) []string {
	var out []string
	var rep struct {
		Status       vocab.Status       `json:"status"`
		Verification vocab.Verification `json:"verification"`
	}
	if jsonUnmarshal(rr.Report, &rep) != nil {
		return nil // report-invalid says it
	}
	statuses, vers := map[vocab.Status]bool{}, map[vocab.Verification]bool{}
	n := 0
	for _, line := range strings.Split(string(rr.Stdout), "\n") {
		var rec struct {
			Msg          string             `json:"msg"`
			Scope        string             `json:"scope"`
			Status       vocab.Status       `json:"status"`
			Verification vocab.Verification `json:"verification"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil || rec.Msg != "scope finished" {
			continue
		}
		n++
		statuses[rec.Status], vers[rec.Verification] = true, true
		want := verificationFor(rec.Status)
		if rr.Run.Command == "plan" {
			want = vocab.VerificationNotRun
		}
		if rec.Verification != want {
			out = append(out, fmt.Sprintf("scope %s: status %s with verification %s, want %s", rec.Scope, rec.Status, rec.Verification, want))
		}
	}
	if n == 0 {
		return out // a run that ended before planning (invalid configuration) finishes no scope
	}
	if !statuses[rep.Status] || !vers[rep.Verification] {
		out = append(out, fmt.Sprintf("report status %s, verification %s: not those of any scope", rep.Status, rep.Verification))
	}
	return out
}

// checkScopes judges what only a multi-scope scenario has (SPEC §10):
// each sibling's namespace converged and owned in its own bucket, no write
// on a sibling's secret signed for another Region, nothing written in any
// scope by a run that ended invalid, conflict or observation-failed (all
// or nothing at planning), and only the tool's own STS calls.
func checkScopes(ev Evidence) []Violation {
	s := ev.Scenario
	if len(s.Siblings) == 0 {
		return nil
	}
	var vs []Violation
	add := func(kind string, run int, secret, detail string) {
		vs = append(vs, Violation{Kind: kind, Run: run, Secret: secret, Detail: detail})
	}
	arns := arnNames(ev.Pre, ev.Post)
	// All or nothing: the report's status is the most severe of the run's
	// scopes, so a planning failure anywhere shows here.
	mutations := map[int]int{}
	for _, c := range ev.Calls {
		if Mutating(c.Op) {
			mutations[c.Run]++
		}
		t := c.Target
		if n, ok := arns[t]; ok {
			t = n
		}
		for _, b := range s.Siblings {
			if b.owns(t) && Mutating(c.Op) && c.Region != "" && c.Region != b.Region {
				add("scope-region", c.Run, t, fmt.Sprintf("%s on scope %s's secret signed for %s, not its Region", c.Op, b.Name, c.Region))
			}
		}
	}
	for i, rr := range ev.Runs {
		if rr.Killed || rr.Report == nil {
			continue
		}
		var st struct {
			Status vocab.Status `json:"status"`
		}
		if jsonUnmarshal(rr.Report, &st) != nil {
			continue
		}
		switch st.Status {
		case vocab.StatusInvalid, vocab.StatusConflict, vocab.StatusObservationFailed:
			if mutations[i+1] > 0 {
				add("all-or-nothing", i+1, "", fmt.Sprintf("status %s with %d mutating calls", st.Status, mutations[i+1]))
			}
		}
	}
	// STS: GetCallerIdentity (the base account) and AssumeRole of a
	// configured role under its scope's session name; anything else was
	// asked by someone else (a planted key-service stanza).
	roles := map[string]string{}
	for _, b := range s.Siblings {
		if b.RoleARN != "" {
			roles["sops-aws-sync-"+b.Name] = b.RoleARN
		}
	}
	for _, c := range ev.STS {
		switch {
		case c.Action == "GetCallerIdentity":
		case c.Action == "AssumeRole" && roles[c.Session] != "" && roles[c.Session] == c.Role:
		default:
			add("sts-foreign", c.Run, "", fmt.Sprintf("STS %s session %q: not the tool's own call", c.Action, c.Session))
		}
	}
	// Each sibling's namespace after the final sync: exactly its desired
	// documents, owned and current; what left it pending deletion.
	final := s.Runs[len(s.Runs)-1].Revision
	converged := false
	for _, rr := range ev.Runs {
		if rr.Run.Final && rr.Run.Command == "sync" && rr.Exit == 0 {
			converged = true
		}
	}
	for _, sd := range ev.Post.Secrets {
		owned := false
		for _, b := range s.Siblings {
			owned = owned || b.owns(sd.Name)
		}
		if sd.Account == SiblingAccount && !owned {
			add("unexpected-secret", 0, sd.Name, "a secret in the sibling account outside every scope's namespace")
		}
	}
	for _, b := range s.Siblings {
		if b.PS() {
			continue // checkParameterStore
		}
		want := b.Desired(final)
		seen := map[string]bool{}
		for _, sd := range ev.Post.Secrets {
			acct := sd.Account
			if acct == "" {
				acct = emulator.DefaultAccountID
			}
			if !b.owns(sd.Name) {
				continue
			}
			if acct == b.Account && sd.Replica && sd.PrimaryRegion == b.Region && slices.Contains(model.ReplicaRegionsOf(b.Replicas), sd.Region) {
				continue // its replica in a configured Region
			}
			if acct != b.Account || sd.Region != b.Region {
				add("scope-bucket", 0, sd.Name, fmt.Sprintf("scope %s's secret in another account or Region (%s)", b.Name, sd.Region))
				continue
			}
			seen[sd.Name] = true
			if sd.Tags[model.TagManagedBy] != model.ManagedByValue || sd.Tags[model.TagScope] != b.Scope.Digest() {
				add("scope-ownership", 0, sd.Name, "a secret in scope "+b.Name+"'s namespace without its ownership tags")
			}
			if !converged {
				continue
			}
			d, ok := want[sd.Name]
			switch {
			case ok && sd.DeletedDate != nil:
				add("scope-convergence", 0, sd.Name, "desired secret pending deletion after the final sync")
			case ok:
				cur := current(sd)
				var same bool
				if len(cur) == 1 && d.Format == canonical.Binary {
					same = cur[0].SecretString == nil && bytes.Equal(cur[0].SecretBinary, d.Canon)
				} else if len(cur) == 1 {
					same = cur[0].SecretBinary == nil && cur[0].SecretString != nil && *cur[0].SecretString == string(d.Canon)
				}
				if !same {
					add("scope-convergence", 0, sd.Name, "current value (or its payload field) differs from the document after the final sync")
				}
				if want := model.ReplicaRegionsOf(b.Replicas); !sameRegions(sd.ReplicaRegions, want) {
					add("scope-replicas", 0, sd.Name, fmt.Sprintf("replica Regions %v after the final sync, configured %v", sd.ReplicaRegions, want))
				}
			case sd.DeletedDate == nil:
				add("scope-convergence", 0, sd.Name, "a secret no longer desired is active after the final sync")
			case len(sd.ReplicaRegions) > 0:
				add("replica-of-deleted", 0, sd.Name, "scope "+b.Name+"'s secret scheduled for deletion still has replicas")
			}
		}
		if converged {
			for n := range want {
				if !seen[n] {
					add("scope-convergence", 0, n, "desired secret missing after the final sync")
				}
			}
		}
	}
	// A secret made by hand in a sibling's namespace (named in its adopt
	// on every run): its first write is TagResource (SPEC §11: ours before
	// anything else is written), and a run that ended conflict never
	// wrote it.
	for _, b := range s.Siblings {
		for _, pre := range b.Pre {
			for _, c := range ev.Calls {
				t := c.Target
				if n, ok := arns[t]; ok {
					t = n
				}
				if t != pre.Name || !Mutating(c.Op) {
					continue
				}
				if c.Op != "TagResource" {
					add("scope-adopt-order", c.Run, t, fmt.Sprintf("%s before TagResource on scope %s's secret made by hand", c.Op, b.Name))
				}
				break
			}
		}
	}
	return vs
}

// sameRegions reports whether got and want hold the same Regions.
func sameRegions(got, want []string) bool {
	a, b := slices.Clone(got), slices.Clone(want)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
