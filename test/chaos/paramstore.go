package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// PSShare is the chance that a scenario (whose source root is not the
// whole repository) runs a Parameter Store scope beside its own when
// GenOptions.ParameterStore is on (drawParameterStore; SPEC §16).
const PSShare = 0.2

// PSScopeName is the name of the Parameter Store scope in the config file.
const PSScopeName = "ps"

// psStems are the Parameter Store scope's document stems: names Parameter
// Store's rule allows (A–Z a–z 0–9 / _ . -), one nested a level deeper.
var psStems = []string{"db", "api-key", "cache.v2", "team_x/queue", "jobs/nightly"}

// psQuotaOps name one operation of each Parameter Store quota family the
// CLI uses (emulator.Quotas.QuotaScales).
var psQuotaOps = []string{"PutParameter", "GetParameters", "DescribeParameters", "DeleteParameter", "AddTagsToResource"}

var psScriptOps = []string{"PutParameter", "PutParameter", "PutParameter", "DeleteParameter", "AddTagsToResource",
	"GetParameters", "DescribeParameters", "ListTagsForResource"}

var psScriptFaults = []string{"ambiguous-after-apply", "ambiguous-after-apply", "ambiguous-before-apply", "ambiguous-before-apply",
	"error:InternalServerError", "error:ThrottlingException"}

// PSParam is one Parameter Store parameter seeded before the first run:
// Values are written in order (each a new version), as Type (default
// SecureString) with Tags. Foreign parameters are not the scope's and must
// stay as they are.
type PSParam struct {
	Name    string
	Type    string
	Tags    map[string]string
	Values  []string
	Foreign bool
	Kind    string
}

// PSObserved is one parameter as the SDK's SSM client reads it after the
// last run (GetParametersByPath with decryption, ListTagsForResource).
type PSObserved struct {
	Name, Type, Value string
	Version           int64
	Tags              map[string]string
}

// drawParameterStore gives PSShare of the scenarios whose source root is
// not "." a Parameter Store scope (SPEC §16) beside the primary: one more
// sibling, so every such run is a mixed-target run of one config file
// (scopes:), judged all-or-nothing. The scope (source root siblings/ps,
// the primary's prefix or ps-chaos/app: two services, two namespaces)
// holds one to five documents per revision (JSON, YAML, dotenv, .sops.txt;
// never .sops.bin, which Parameter Store refuses), values with canaries;
// it draws what a Parameter Store scope can have and nothing else (no
// replicas, no adopt, no aws-owned, no whole binary value):
//   - the estate of an earlier sync (owned parameters holding the first
//     revision's value, another value, a history, or missing) and foreign
//     parameters (untagged or another scope's in its prefix, a String, one
//     outside the prefix);
//   - tags per run (the final sync and plan share theirs), so
//     AddTagsToResource is called; max-deletions 0–2 on a third of the
//     fault runs;
//   - out-of-band changes (a value overwritten, a parameter deleted by
//     another writer) before a third of the later runs;
//   - faults on Parameter Store calls: scripted lost responses (both
//     directions) and errors on PutParameter, DeleteParameter,
//     AddTagsToResource and the reads, in half of the fault runs without
//     other clients; a SIGKILL at the Nth Parameter Store write (before it
//     is forwarded, or after the emulator applied it) in 40 % of the fault
//     syncs without a kill plan; reduced Parameter Store quotas
//     (QuotaPlan.SSMScales, 10–100 % of AWS's; at least 34 % in the final
//     runs) in every run that has a quota plan and half of the others
//     (none when quotas is false: the -quotas flag turns every quota draw
//     off).
//
// Its own random stream: the scenarios without it are drawn as before.
func drawParameterStore(r *rand.Rand, s *Scenario, quotas bool) error {
	if r.Float64() >= PSShare || cleanRoot(s.Scope.SourceRoot) == "." {
		return nil
	}
	prefix := "ps-chaos/app"
	if r.IntN(2) == 0 {
		prefix = s.Scope.Prefix
	}
	b := Sibling{Name: PSScopeName, Kind: "parameter-store", Region: ChaosRegion, Account: emulator.DefaultAccountID,
		Scope: model.Scope{RepositoryID: s.Scope.RepositoryID, SourceRoot: "siblings/" + PSScopeName, Prefix: prefix, Target: model.TargetParameterStore}}
	objs := map[string]*object{}
	for range s.Revisions {
		docs := map[string]Doc{}
		keep := r.IntN(len(psStems)) // at least one: an empty root is not a directory in the commit
		for k, st := range psStems {
			if k != keep && r.IntN(2) == 0 {
				continue
			}
			o := objs[st]
			if o == nil || r.IntN(3) == 0 {
				o = newObject(r, r.IntN(2) == 0, 0)
				objs[st] = o
			}
			d, err := psDoc(r, b.Scope.SourceRoot+"/"+st, o)
			if err != nil {
				return err
			}
			docs[d.Path] = d
		}
		b.Docs = append(b.Docs, docs)
	}
	// The estate of an earlier sync of the first revision.
	other := func() string { return `{"` + canaryKey(r) + `":"` + canary(r) + `"}` }
	for _, path := range sortedKeys(b.Docs[0]) {
		d := b.Docs[0][path]
		p := PSParam{Name: b.ResourceName(path), Tags: b.Scope.Tags(path), Kind: "ps-synced", Values: []string{string(d.Canon)}}
		switch x := r.IntN(10); {
		case x < 5:
		case x < 7:
			p.Kind, p.Values = "ps-drift-value", []string{string(d.Canon), other()}
		case x < 8:
			p.Kind, p.Values = "ps-history", []string{other(), other(), string(d.Canon)}
		default:
			continue // the earlier sync was killed before creating it
		}
		b.PSPre = append(b.PSPre, p)
	}
	someone := model.Scope{RepositoryID: "someone/else", SourceRoot: b.Scope.SourceRoot, Prefix: prefix, Target: model.TargetParameterStore}
	for i := range 1 + r.IntN(3) {
		stem := fmt.Sprintf("legacy-f%d", i)
		p := PSParam{Name: "/" + prefix + "/" + stem, Foreign: true, Values: []string{other()}}
		switch r.IntN(4) {
		case 0:
			p.Kind = "ps-foreign-untagged"
		case 1:
			p.Kind, p.Tags = "ps-foreign-other-scope", someone.Tags(b.Scope.SourceRoot+"/"+stem+".sops.json")
		case 2:
			p.Kind, p.Type = "ps-foreign-string", "String"
		default:
			p.Kind, p.Name, p.Tags = "ps-foreign-outside", "/ps-elsewhere/"+prefix+"/"+stem, someone.Tags(b.Scope.SourceRoot+"/"+stem+".sops.json")
		}
		if r.IntN(3) == 0 {
			p.Values = append(p.Values, other())
		}
		b.PSPre = append(b.PSPre, p)
	}
	// Tags and max-deletions per run.
	var last map[string]string
	for i, run := range s.Runs {
		if !run.Final || i == 0 || !s.Runs[i-1].Final {
			last = nil
			if r.IntN(2) == 0 {
				last = map[string]string{"team": []string{"payments", "platform"}[r.IntN(2)]}
				if r.IntN(2) == 0 {
					last["cost-center"] = fmt.Sprintf("cc-%d", r.IntN(3))
				}
			}
		}
		b.Tags = append(b.Tags, last)
		var lim *int
		if !run.Final && r.IntN(3) == 0 {
			n := r.IntN(3)
			lim = &n
		}
		b.MaxDeletions = append(b.MaxDeletions, lim)
	}
	// Out-of-band changes by another writer.
	for i := 1; i < len(s.Runs)-1; i++ {
		docs := b.Docs[s.Runs[i-1].Revision]
		if r.IntN(3) != 0 || len(docs) == 0 {
			continue
		}
		paths := sortedKeys(docs)
		d := Drift{Name: b.ResourceName(paths[r.IntN(len(paths))]), Kind: []string{"value", "value", "delete"}[r.IntN(3)]}
		if b.PSDrift == nil {
			b.PSDrift = map[int][]Drift{}
		}
		b.PSDrift[i] = append(b.PSDrift[i], d)
		b.Drifted++
	}
	// Faults on Parameter Store calls.
	for i := range s.Runs {
		run := &s.Runs[i]
		// Other clients (QuotaPlan.Share) send Secrets Manager requests
		// alone, so they shift no Parameter Store call count.
		if !run.Final && r.IntN(2) == 0 {
			for range 1 + r.IntN(2) {
				run.Faults.Script = append(run.Faults.Script, emulator.ScriptedFault{
					Operation: psScriptOps[r.IntN(len(psScriptOps))], Nth: 1 + r.Int64N(3),
					Fault: psScriptFaults[r.IntN(len(psScriptFaults))]})
			}
		}
		if !run.Final && run.Command == "sync" && run.Kill == nil && r.Float64() < 0.4 {
			mode := []string{"mutation-before", "mutation-after"}[r.IntN(2)]
			run.Kill = &KillPlan{Mode: mode, Nth: 1 + r.IntN(2), Service: "ssm"} // runs often write one or two parameters
		}
		lo := 0.1
		if run.Final {
			lo = 0.34 // PutParameter at 1/s at least: the final sync must converge within its timeout
		}
		scale := math.Round(lo*math.Pow(1/lo, r.Float64())*1000) / 1000
		alone := r.IntN(2) == 0
		if !quotas || run.Faults.Quotas {
			continue // -quotas=false, or a fault run's own throttling
		}
		if run.Quotas == nil {
			if !alone {
				continue
			}
			run.Quotas = &QuotaPlan{Scale: 1}
		}
		run.Quotas.SSMScales = map[string]float64{}
		for _, op := range psQuotaOps {
			run.Quotas.SSMScales[op] = scale
		}
	}
	s.Siblings = append(s.Siblings, b)
	return nil
}

// psDoc renders o as a document of stem in a format Parameter Store
// takes: JSON, YAML, dotenv (flat objects only) or whole text (.sops.txt
// around the canonical JSON). A value over the standard tier's 4,096
// bytes is drawn again flat.
func psDoc(r *rand.Rand, stem string, o *object) (Doc, error) {
	fmts := []canonical.Format{canonical.JSON, canonical.YAML, canonical.Text}
	if o.isFlat() {
		fmts = append(fmts, canonical.Dotenv)
	}
	f := fmts[r.IntN(len(fmts))]
	if f == canonical.Text {
		c, err := canonical.Canonicalize(canonical.JSON, renderJSON(o, false))
		if err != nil {
			return Doc{}, err
		}
		v := wholeValue(c, canonical.Text, wholeStyle{crlf: r.IntN(2) == 0, trailing: r.IntN(3) != 0})
		return Doc{Path: stem + ".sops.txt", Format: canonical.Text, Plain: v, Canon: v}, nil
	}
	d, err := makeDoc(r, stem, f, o)
	if err == nil && len(d.Canon) > 4096 {
		return psDoc(r, stem, newObject(r, true, 0))
	}
	return d, err
}

// psConfig writes the Parameter Store scope's entry of run i's config.
func psConfig(w *strings.Builder, b Sibling, i int) {
	q := func(v string) string { j, _ := json.Marshal(v); return string(j) }
	fmt.Fprintf(w, "  - name: %s\n    target: parameter-store\n    source-root: %s\n    secret-prefix: %s\n    aws-region: %s\n",
		b.Name, q(b.Scope.SourceRoot), q(b.Scope.Prefix), b.Region)
	if i < len(b.Tags) && len(b.Tags[i]) > 0 {
		w.WriteString("    tag:\n")
		for _, k := range sortedKeys(b.Tags[i]) {
			fmt.Fprintf(w, "      %s: %s\n", q(k), q(b.Tags[i][k]))
		}
	}
	if i < len(b.MaxDeletions) && b.MaxDeletions[i] != nil {
		fmt.Fprintf(w, "    max-deletions: %d\n", *b.MaxDeletions[i])
	}
}

// psSibling returns the scenario's Parameter Store scope, if any.
func psSibling(s *Scenario) (Sibling, bool) {
	for _, b := range s.Siblings {
		if b.PS() {
			return b, true
		}
	}
	return Sibling{}, false
}

// SeedPS writes pre through the emulator's Parameter Store API: one
// PutParameter per value (the first with the tags, the later ones with
// Overwrite).
func (e *Emu) SeedPS(pre []PSParam) error {
	for _, p := range pre {
		typ := p.Type
		if typ == "" {
			typ = "SecureString"
		}
		for i, v := range p.Values {
			in := map[string]any{"Name": p.Name, "Value": v, "Type": typ}
			if i == 0 && len(p.Tags) > 0 {
				var tags []tag
				for _, k := range sortedKeys(p.Tags) {
					tags = append(tags, tag{k, p.Tags[k]})
				}
				in["Tags"] = tags
			}
			if i > 0 {
				in["Overwrite"] = true
			}
			if err := e.CallSSM("PutParameter", in, nil); err != nil {
				return fmt.Errorf("seed %s: %w", p.Name, err)
			}
		}
	}
	return nil
}

// ApplyPSDrift makes one out-of-band change to a parameter ("value": a
// new version with another value; "delete"); the emulator may refuse it
// (the parameter is not there).
func (e *Emu) ApplyPSDrift(d Drift) error {
	switch d.Kind {
	case "value":
		// Overwrite=true would create a parameter that is not there: an
		// untagged one under a desired name, a real ownership conflict no
		// sync repairs. Another writer changes what exists.
		if err := e.CallSSM("GetParameter", map[string]any{"Name": d.Name}, nil); err != nil {
			return err
		}
		return e.CallSSM("PutParameter", map[string]any{"Name": d.Name, "Value": `{"drift":"` + newToken() + `"}`, "Type": "SecureString", "Overwrite": true}, nil)
	case "delete":
		return e.CallSSM("DeleteParameter", map[string]any{"Name": d.Name}, nil)
	}
	return fmt.Errorf("unknown drift kind %q", d.Kind)
}

// ReadParameters reads every parameter of the campaign's account and
// Region with the SDK's SSM client (an independent reader, not the CLI's
// adapter): GetParametersByPath "/" recursively with decryption, then
// ListTagsForResource per parameter.
func (e *Emu) ReadParameters(ctx context.Context) ([]PSObserved, error) {
	c := ssm.New(ssm.Options{Region: ChaosRegion, BaseEndpoint: aws.String(e.URL),
		Credentials: credentials.NewStaticCredentialsProvider("AKIACHAOSREADER", "chaos-reader", "")})
	var out []PSObserved
	pg := ssm.NewGetParametersByPathPaginator(c, &ssm.GetParametersByPathInput{Path: aws.String("/"), Recursive: aws.Bool(true), WithDecryption: aws.Bool(true)})
	for pg.HasMorePages() {
		page, err := pg.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range page.Parameters {
			o := PSObserved{Name: aws.ToString(p.Name), Type: string(p.Type), Value: aws.ToString(p.Value), Version: p.Version, Tags: map[string]string{}}
			tags, err := c.ListTagsForResource(ctx, &ssm.ListTagsForResourceInput{ResourceType: ssmtypes.ResourceTypeForTaggingParameter, ResourceId: p.Name})
			if err != nil {
				return nil, err
			}
			for _, t := range tags.TagList {
				o.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
			}
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b PSObserved) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// psOwnershipKeys are the tag keys a create must carry (SPEC §4).
var psOwnershipKeys = []string{model.TagManagedBy, model.TagScope, model.TagSource}

// checkParameterStore judges the Parameter Store scope of a scenario
// (drawParameterStore) by the Secrets Manager invariants adapted to a
// parameter: every token starts with "ps-".
func checkParameterStore(ev Evidence) []Violation {
	b, ok := psSibling(ev.Scenario)
	if !ok {
		return nil
	}
	s := ev.Scenario
	var vs []Violation
	add := func(kind string, run int, name, detail string) {
		vs = append(vs, Violation{Kind: kind, Run: run, Secret: name, Detail: detail})
	}
	foreign := map[string]PSParam{}
	for _, p := range b.PSPre {
		if p.Foreign {
			foreign[p.Name] = p
		}
	}
	configured := map[string]bool{}
	for _, t := range b.Tags {
		for k := range t {
			configured[k] = true
		}
	}
	for _, k := range psOwnershipKeys {
		configured[k] = true
	}
	// Calls: writes only in the scope's namespace, never on a foreign
	// parameter, only the operations the adapter uses, a create always
	// ours and SecureString, nothing in a plan, deletions within the limit.
	deletions := map[int]map[string]bool{}
	for _, c := range ev.Calls {
		if c.Service != "ssm" || !MutatingSSM(c.Op) {
			continue
		}
		names := append([]string{c.Target}, c.Names...)
		for _, n := range names {
			if n == "" {
				continue
			}
			if _, f := foreign[n]; f {
				add("ps-foreign-write", c.Run, n, c.Op+" on a parameter the scope does not own")
			} else if !b.owns(n) {
				add("ps-foreign-write", c.Run, n, c.Op+" outside the scope's prefix")
			}
		}
		if c.Run > 0 && c.Run <= len(s.Runs) && s.Runs[c.Run-1].Command == "plan" {
			add("ps-plan-mutated", c.Run, c.Target, c.Op+" in a plan")
		}
		switch c.Op {
		case "PutParameter":
			if c.Type != "SecureString" {
				add("ps-type", c.Run, c.Target, fmt.Sprintf("PutParameter of type %q", c.Type))
			}
			if !c.Overwrite {
				for _, k := range psOwnershipKeys {
					if !slices.Contains(c.TagKeys, k) {
						add("ps-create-untagged", c.Run, c.Target, "a create without the ownership tag "+k)
					}
				}
			}
		case "AddTagsToResource":
			for _, k := range c.TagKeys {
				if !configured[k] {
					add("ps-forbidden-operation", c.Run, c.Target, "AddTagsToResource with a key no run configured")
				}
			}
		case "DeleteParameter", "DeleteParameters":
			if deletions[c.Run] == nil {
				deletions[c.Run] = map[string]bool{}
			}
			for _, n := range names {
				if n != "" {
					deletions[c.Run][n] = true
				}
			}
		default:
			add("ps-forbidden-operation", c.Run, c.Target, c.Op+" is not a write the tool makes")
		}
	}
	for run, d := range deletions {
		if run < 1 || run > len(b.MaxDeletions) {
			continue
		}
		if lim := b.MaxDeletions[run-1]; lim != nil && len(d) > *lim {
			add("ps-deletion-limit", run, "", fmt.Sprintf("%d parameters deleted with max-deletions %d", len(d), *lim))
		}
	}
	// Foreign parameters: byte for byte as seeded (value, version, type,
	// tags), by the emulator's dump.
	pre, post := paramsByName(ev.Pre), paramsByName(ev.Post)
	for n := range foreign {
		a, okA := pre[n]
		z, okZ := post[n]
		switch {
		case !okA:
		case !okZ:
			add("ps-foreign-changed", 0, n, "a foreign parameter is gone")
		case a.Value != z.Value || a.Version != z.Version || a.Type != z.Type || !mapsEqual(a.Tags, z.Tags):
			add("ps-foreign-changed", 0, n, fmt.Sprintf("a foreign parameter changed (version %d → %d)", a.Version, z.Version))
		}
	}
	for n, z := range post {
		if _, ok := pre[n]; !ok && !b.owns(n) && z.Account == emulator.DefaultAccountID {
			add("ps-unexpected", 0, n, "a parameter appeared outside the scope's prefix")
		}
		if b.owns(n) && (z.Account != b.Account || z.Region != b.Region) {
			add("ps-bucket", 0, n, "the scope's parameter in another account or Region")
		}
	}
	// The final state, read with the SDK's SSM client after the final
	// sync: exactly the final documents, SecureString, byte-equal,
	// ours, with the final runs' tags; nothing else of ours.
	converged := false
	for _, rr := range ev.Runs {
		if rr.Run.Final && rr.Run.Command == "sync" && rr.Exit == 0 {
			converged = true
		}
	}
	if !converged {
		return vs
	}
	finalIdx := len(s.Runs) - 1
	want := b.Desired(s.Runs[finalIdx].Revision)
	seen := map[string]bool{}
	for _, o := range ev.PSFinal {
		if !b.owns(o.Name) {
			continue
		}
		if _, f := foreign[o.Name]; f {
			continue
		}
		seen[o.Name] = true
		d, ok := want[o.Name]
		if !ok {
			if o.Tags[model.TagScope] == b.Scope.Digest() {
				add("ps-not-deleted", 0, o.Name, "a parameter of ours no document desires after the final sync")
			}
			continue
		}
		if o.Type != "SecureString" {
			add("ps-type", 0, o.Name, "desired parameter of type "+o.Type)
		}
		if o.Value != string(d.Canon) {
			add("ps-value", 0, o.Name, fmt.Sprintf("value %s, document %s", short([]byte(o.Value)), short(d.Canon)))
		}
		if o.Tags[model.TagManagedBy] != model.ManagedByValue || o.Tags[model.TagScope] != b.Scope.Digest() || o.Tags[model.TagSource] == "" {
			add("ps-ownership", 0, o.Name, "a desired parameter without the scope's ownership tags")
		}
		for k, v := range b.Tags[finalIdx] {
			if o.Tags[k] != v {
				add("ps-tags", 0, o.Name, "configured tag "+k+" missing or wrong after the final sync")
			}
		}
		for k := range o.Tags {
			if !configured[k] {
				add("ps-tags", 0, o.Name, "a tag key no run configured: "+k)
			}
		}
	}
	for n := range want {
		if !seen[n] {
			add("ps-missing", 0, n, "desired parameter missing after the final sync")
		}
	}
	return vs
}

func paramsByName(d emulator.StateDump) map[string]emulator.ParameterDump {
	m := map[string]emulator.ParameterDump{}
	for _, p := range d.Parameters {
		if p.Account == emulator.DefaultAccountID && p.Region == ChaosRegion {
			m[p.Name] = p
		} else if _, ok := m[p.Name]; !ok {
			m[p.Name] = p
		}
	}
	return m
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// psLimited reports whether the Parameter Store scope configures
// max-deletions in run i (0-based): its gate may block the whole run.
func psLimited(s *Scenario, i int) bool {
	b, ok := psSibling(s)
	return ok && i < len(b.MaxDeletions) && b.MaxDeletions[i] != nil
}

// psOutcome fills the Parameter Store figures of o.
func psOutcome(s *Scenario, ev *Evidence, o *Outcome) {
	b, ok := psSibling(s)
	if !ok {
		return
	}
	o.PS = true
	for _, c := range ev.Calls {
		if c.Service == "ssm" {
			o.PSCalls++
		}
	}
	for op, n := range o.Stats.Throttled {
		if slices.Contains(psScriptOps, op) || MutatingSSM(op) || op == "GetParameter" || op == "GetParametersByPath" {
			o.PSThrottled += n
		}
	}
	for _, run := range s.Runs {
		for _, f := range run.Faults.Script {
			if slices.Contains(psScriptOps, f.Operation) {
				o.PSScripted++
			}
		}
	}
	o.PSParams = int64(len(b.Docs[s.Runs[len(s.Runs)-1].Revision]))
}
