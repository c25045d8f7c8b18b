package chaos

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// GenOptions tune the scenario mix.
type GenOptions struct {
	// KillShare is the chance that a fault run of a scenario gets a SIGKILL
	// plan (0..1).
	KillShare float64
	// DotenvShare is the chance that a document is dotenv (SPEC §3.1
	// [beyond]); 0 disables dotenv.
	DotenvShare float64
	// Quotas makes QuotaShare of the scenarios play every run (the final
	// ones included) under reduced request quotas (drawQuotas).
	// The draw has its own random stream: turning it on changes nothing
	// else in a scenario.
	Quotas bool
	// Metadata makes MetadataShare of the scenarios configure metadata of
	// owned secrets (KMS key, description, tags) that changes
	// between runs (drawMetadata). Its own random stream too.
	Metadata bool
	// Whole makes WholeShare of the scenarios turn the documents of some
	// secret names into whole values, .sops.txt or .sops.bin, switching
	// kind between revisions (drawWhole; SPEC §3.1). Its own random stream.
	Whole bool
	// Replicas makes ReplicaShare of the scenarios configure replica-regions
	// on every run (a Region set drawn per run, the final runs sharing
	// theirs), seed some owned secrets with replicas, add a replication lag
	// to some fault runs and a --max-deletions to some (drawReplicas; SPEC
	// §12). Its own random stream.
	Replicas bool
	// Adopt makes AdoptShare of the scenarios seed hand-made secrets (no
	// tags of ours) under names a document maps to, and name them in adopt
	// on every run whose revision maps to them (drawAdopt; SPEC §11). Its
	// own random stream.
	Adopt bool
	// Scopes makes ScopesShare of the scenarios one scope of two to four
	// in one config file (drawScopes; SPEC §10). Its own random stream.
	Scopes bool
	// ParameterStore makes PSShare of the scenarios run a Parameter Store
	// scope beside their own (drawParameterStore; SPEC §16). Its own
	// random stream.
	ParameterStore bool
}

// AdoptShare is the chance that a scenario seeds hand-made secrets to adopt
// when GenOptions.Adopt is on.
const AdoptShare = 0.4

// ReplicaShare is the chance that a scenario configures replica-regions
// when GenOptions.Replicas is on.
const ReplicaShare = 0.3

// ReplicaPool are the Regions a scenario draws its replica Regions from
// (the scope's own Region is ChaosRegion).
var ReplicaPool = []string{"ap-south-1", "eu-west-1", "us-west-2"}

// MetadataShare is the chance that a scenario configures metadata when
// GenOptions.Metadata is on.
const MetadataShare = 0.4

// ChaosKMSKeyID is the customer managed key the campaign's emulator knows
// (alias ChaosKMSAlias); the metadata draw configures it in either form.
const (
	ChaosKMSKeyID = "c4a05000-0000-4000-8000-000000000001"
	ChaosKMSAlias = "alias/chaos"
)

// QuotaShare is the chance that a scenario plays under reduced quotas when
// GenOptions.Quotas is on.
const QuotaShare = 0.5

// DefaultGenOptions are the campaign's defaults.
var DefaultGenOptions = GenOptions{KillShare: 0.4, DotenvShare: 0.1, Quotas: true, Metadata: true, Whole: true, Replicas: true, Adopt: true, Scopes: true, ParameterStore: true}

// entry is a logical document while a history is generated.
type entry struct {
	stem   string // path without suffix
	format canonical.Format
	obj    *object
	doc    Doc
}

type generator struct {
	r   *rand.Rand
	opt GenOptions
	sc  model.Scope
	// used holds every stem ever used, so that foreign names never collide.
	used map[string]bool
}

var (
	prefixes    = []string{"app/prod", "chaos", "team-a/svc/", "org/x-y_z", "p"}
	roots       = []string{"secrets", "secrets", "secrets", "deploy/secrets", "."}
	dirs        = []string{"", "", "app/", "db/", "team_x/", "a/b/", "jobs.nightly/"}
	bases       = []string{"db", "api", "svc-config", "db-backup", "payments", "x+y=z", "user@host", "cache.v2", "token_A", "web-frontend", "queue", "smtp"}
	foreignBase = []string{"legacy", "manual", "console-made", "other-team", "svc", "db"}
)

// Generate derives scenario index of the campaign seeded by seed. The same
// (seed, index, opt) always gives the same scenario.
func Generate(seed uint64, index int, opt GenOptions) (*Scenario, error) {
	g := &generator{r: rand.New(rand.NewPCG(seed, uint64(index)+0x9e3779b97f4a7c15)), opt: opt, used: map[string]bool{}}
	r := g.r
	s := &Scenario{Index: index, Seed: seed, Changes: map[string]int{}}
	g.sc = model.Scope{
		RepositoryID: fmt.Sprintf("chaos-org/repo-%d", r.IntN(3)),
		SourceRoot:   roots[r.IntN(len(roots))],
		Prefix:       prefixes[r.IntN(len(prefixes))],
	}
	// The CLI gets the prefix as a user would type it (one trailing "/" is
	// allowed); the scope holds it trimmed, as config passes it on.
	s.PrefixArg = g.sc.Prefix
	g.sc.Prefix = cleanPrefix(g.sc.Prefix)
	s.Scope = g.sc
	s.RecoveryWindowDays = 7 + r.IntN(24)
	s.ShowResourceNames = r.IntN(4) == 0
	s.AllowEmpty = r.IntN(20) == 0

	// C0: the commit the Pre state was synced from.
	c0 := map[string]*entry{}
	for range 1 + r.IntN(5) {
		e, err := g.newEntry()
		if err != nil {
			return nil, err
		}
		c0[e.stem] = e
	}
	// Graveyard: owned secrets deleted by an earlier sync (pending).
	grave := map[string]*entry{}
	for range r.IntN(3) {
		e, err := g.newEntry()
		if err != nil {
			return nil, err
		}
		grave[e.stem] = e
	}
	c1, err := g.evolve(c0, grave, s)
	if err != nil {
		return nil, err
	}
	hist := []map[string]*entry{c0, c1}
	if r.IntN(5) == 0 {
		c2, err := g.evolve(c1, nil, s)
		if err != nil {
			return nil, err
		}
		hist = append(hist, c2)
	}
	for _, h := range hist {
		rev, err := g.revision(h)
		if err != nil {
			return nil, err
		}
		s.Revisions = append(s.Revisions, rev)
	}

	s.Pre = append(g.owned(c0, grave), g.foreign()...)
	if r.IntN(25) == 0 {
		s.Pre = append(s.Pre, g.bulk()...)
	}
	countChanges(s, 1)
	g.runs(s)
	g.drift(s)
	if opt.Quotas {
		drawQuotas(rand.New(rand.NewPCG(seed^0x71756f746173, uint64(index))), s)
	}
	if opt.Metadata {
		drawMetadata(rand.New(rand.NewPCG(seed^0x6d657461, uint64(index))), s)
	}
	drawPlanted(rand.New(rand.NewPCG(seed^0x6b657973, uint64(index))), s)
	if opt.Whole {
		drawWhole(rand.New(rand.NewPCG(seed^0x77686f6c65, uint64(index))), s)
	}
	if opt.Replicas {
		drawReplicas(rand.New(rand.NewPCG(seed^0x7265706c, uint64(index))), s)
	}
	if opt.Adopt {
		drawAdopt(rand.New(rand.NewPCG(seed^0x61646f7074, uint64(index))), s)
	}
	if opt.Scopes {
		if err := drawScopes(rand.New(rand.NewPCG(seed^0x73636f706573, uint64(index))), s); err != nil {
			return nil, err
		}
	}
	if opt.ParameterStore {
		if err := drawParameterStore(rand.New(rand.NewPCG(seed^0x7073746f7265, uint64(index))), s, opt.Quotas); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// drawAdopt gives AdoptShare of the scenarios secrets made by hand under
// names the final revision maps to and no earlier sync created (SPEC §11):
// each untagged or with a tag of its own, holding the final document's
// value ("adoptable-equal"), another value ("adoptable-differs"), the
// document's object with a key only AWS holds ("adoptable-extra-key", key
// and value canaries, so a leak of either is found), or a binary value
// ("adoptable-binary"). Every run names them in adopt when its revision
// maps to them, beside a few owned names (no-op entries). Each is a clean
// adoption (no rotation, replica, pending deletion), so the final sync
// converges; drifts aimed at them are dropped (a deletion by hand would be
// the adopt-deleted conflict, which the e2e tests cover).
func drawAdopt(r *rand.Rand, s *Scenario) {
	if r.Float64() >= AdoptShare {
		return
	}
	seeded := map[string]bool{}
	for _, p := range s.Pre {
		seeded[p.Name] = true
	}
	final := s.FinalRevision().Desired(s.Scope)
	adopt := map[string]bool{}
	for _, n := range sortedKeys(final) {
		if seeded[n] {
			if r.IntN(4) == 0 {
				adopt[n] = true // owned already: a no-op entry
			}
			continue
		}
		if r.IntN(2) == 0 && len(adopt) > 0 {
			continue
		}
		d := final[n]
		p := PreSecret{Name: n, Foreign: true, Adoptable: true}
		if r.IntN(2) == 0 {
			p.Tags = map[string]string{"team": "hand-made"}
		}
		str := func(b []byte) PreVersion { v := string(b); return PreVersion{String: &v} }
		variant := []string{"equal", "differs", "extra-key", "binary"}[r.IntN(4)]
		var extra map[string]any
		if variant == "extra-key" && (d.Format == canonical.Text || d.Format == canonical.Binary || json.Unmarshal(d.Canon, &extra) != nil) {
			variant = "differs"
		}
		switch variant {
		case "equal":
			if d.Format == canonical.Binary {
				p.Versions = []PreVersion{{Binary: append([]byte(nil), d.Canon...)}}
			} else {
				p.Versions = []PreVersion{str(d.Canon)}
			}
		case "differs":
			p.Versions = []PreVersion{str([]byte(`{"` + canaryKey(r) + `":"` + canary(r) + `"}`))}
		case "extra-key":
			extra[canaryKey(r)] = canary(r)
			b, _ := json.Marshal(extra)
			p.Versions = []PreVersion{str(b)}
		case "binary":
			p.Versions = []PreVersion{{Binary: []byte(canary(r) + "\x00\xff")}}
		}
		p.Kind = "adoptable-" + variant
		s.Pre = append(s.Pre, p)
		adopt[n] = true
	}
	for i := range s.Runs {
		run := &s.Runs[i]
		desired := s.Revisions[run.Revision].Desired(s.Scope)
		run.Adopt = nil
		for _, n := range sortedKeys(adopt) {
			if _, ok := desired[n]; ok {
				run.Adopt = append(run.Adopt, n)
			}
		}
		kept := run.Drift[:0:0]
		for _, d := range run.Drift {
			if !isAdoptable(s, d.Name) {
				kept = append(kept, d)
			}
		}
		run.Drift = kept
	}
}

// isAdoptable reports whether name is a hand-made secret of the scenario
// that runs may adopt.
func isAdoptable(s *Scenario, name string) bool {
	for _, p := range s.Pre {
		if p.Adoptable && p.Name == name {
			return true
		}
	}
	return false
}

// drawReplicas gives ReplicaShare of the scenarios replica-regions (SPEC
// §12): every run configures a non-empty set of ReplicaPool Regions (so no
// replica is ever a replication conflict), the final sync and plan sharing
// one draw, which the checker then requires on every desired secret; half
// of the active owned secrets start with replicas of their own draw (so
// runs add and drop Regions); a third of the fault runs add a replication
// lag of 0.2–2 s and a third get --max-deletions 0–2 (a removal counts as
// a deletion). Replica failures and same-name secrets in a replica Region
// are left to the e2e and engine tests: neither converges without an
// operator.
func drawReplicas(r *rand.Rand, s *Scenario) {
	if r.Float64() >= ReplicaShare {
		return
	}
	subset := func() []string {
		var out []string
		for _, region := range ReplicaPool {
			if r.IntN(2) == 0 {
				out = append(out, region)
			}
		}
		if len(out) == 0 {
			out = []string{ReplicaPool[r.IntN(len(ReplicaPool))]}
		}
		return out
	}
	for i := range s.Pre {
		p := &s.Pre[i]
		if !p.Foreign && p.DeleteWindowDays == 0 && r.IntN(2) == 0 {
			p.Replicas = subset()
		}
	}
	var last []model.Replica
	for i := range s.Runs {
		run := &s.Runs[i]
		if !run.Final || i == 0 || !s.Runs[i-1].Final {
			last = nil
			for _, region := range subset() {
				last = append(last, model.Replica{Region: region})
			}
		}
		run.Replicas = last
		if run.Final {
			continue
		}
		if r.IntN(3) == 0 {
			run.Faults.ReplicationLagMS = 200 + r.Int64N(1800)
		}
		if r.IntN(3) == 0 {
			n := r.IntN(3)
			run.MaxDeletions = &n
		}
	}
}

// drawPlanted plants a disallowed key-service stanza (Doc.Planted) into
// about one document in five, of every revision, from its own random
// stream so that the rest of the scenario is what the seed always gave.
// Documents are drawn in path order, so the draw is deterministic.
func drawPlanted(r *rand.Rand, s *Scenario) {
	kinds := []string{PlantedVault, PlantedKMSRole}
	for i := range s.Revisions {
		for _, docs := range []map[string]Doc{s.Revisions[i].Docs, s.Revisions[i].Outside} {
			for _, path := range sortedKeys(docs) {
				if r.IntN(5) == 0 {
					d := docs[path]
					d.Planted = kinds[r.IntN(len(kinds))]
					docs[path] = d
				}
			}
		}
	}
}

var (
	metaDescriptions = []string{"", "from chaos-org", "moved to chaos-org/other"}
	metaKMS          = []string{"", ChaosKMSKeyID, ChaosKMSAlias, "alias/aws/secretsmanager"}
	metaTagKeys      = []string{"team", "env", "cost-center", "Owner Name"}
	metaTagValues    = []string{"", "a", "platform", "prod/eu-1", "x=y@z"}
)

// drawMetadata gives MetadataShare of the scenarios configured metadata:
// each run draws a KMS key reference (or none), a description (or none) and
// 0–3 tags, so metadata changes between runs; the final sync and plan share
// the last draw, which the checker then requires on every desired secret.
func drawMetadata(r *rand.Rand, s *Scenario) {
	if r.Float64() >= MetadataShare {
		return
	}
	draw := func() *model.Metadata {
		m := &model.Metadata{KMSKeyID: metaKMS[r.IntN(len(metaKMS))], Description: metaDescriptions[r.IntN(len(metaDescriptions))]}
		for _, k := range metaTagKeys {
			if r.IntN(3) == 0 {
				if m.Tags == nil {
					m.Tags = map[string]string{}
				}
				m.Tags[k] = metaTagValues[r.IntN(len(metaTagValues))]
			}
		}
		return m
	}
	var last *model.Metadata
	for i := range s.Runs {
		if !s.Runs[i].Final || i == 0 || !s.Runs[i-1].Final {
			last = draw() // the final sync draws afresh; the final plan shares it
		}
		s.Runs[i].Metadata = last
	}
}

// drawQuotas gives every run of QuotaShare of the scenarios a QuotaPlan:
// a scale log-uniform between 5 % and 100 % of AWS's quotas, so each CLI
// invocation meets another one, and for a third of the runs a second scale
// from an early call on (the quota changes while the CLI runs); in half of
// the runs other clients first empty the buckets and then spend 30–90 %
// of each quota meanwhile (20–50 % in the final runs; never in runs with
// scripted faults, whose call counts their requests would shift). A fault run that draws its own throttling fault keeps it
// instead.
func drawQuotas(r *rand.Rand, s *Scenario) {
	if r.Float64() >= QuotaShare {
		return
	}
	calls := 4 + 3*len(s.FinalRevision().Docs)
	for i := range s.Runs {
		run := &s.Runs[i]
		if run.Faults.Quotas {
			continue
		}
		q := &QuotaPlan{Scale: drawScale(r)}
		if r.IntN(3) == 0 {
			q.ChangeAtCall = 1 + r.IntN(calls)
			q.ChangeTo = drawScale(r)
		}
		share := 0.3 + 0.6*r.Float64()
		if run.Final {
			share = 0.2 + 0.3*r.Float64() // the final sync must converge within --run-timeout 60s
		}
		if r.IntN(2) == 0 && len(run.Faults.Script) == 0 {
			q.Share = math.Round(share*100) / 100
		}
		run.Quotas = q
	}
}

// drawScale is log-uniform in [0.05, 1], rounded to 0.001.
func drawScale(r *rand.Rand) float64 {
	return math.Round(0.05*math.Pow(20, r.Float64())*1000) / 1000
}

// newEntry makes a document with a fresh stem.
func (g *generator) newEntry() (*entry, error) {
	r := g.r
	var stem string
	for {
		stem = dirs[r.IntN(len(dirs))] + bases[r.IntN(len(bases))]
		if r.IntN(3) == 0 {
			stem += fmt.Sprint(r.IntN(10))
		}
		if !g.used[stem] {
			break
		}
	}
	g.used[stem] = true
	f := g.format(true)
	e := &entry{stem: stem, format: f, obj: newObject(r, f == canonical.Dotenv, 0)}
	return e, g.render(e)
}

// format picks a format; dotenv only when allowed.
func (g *generator) format(dotenvOK bool) canonical.Format {
	if dotenvOK && g.r.Float64() < g.opt.DotenvShare {
		return canonical.Dotenv
	}
	if g.r.IntN(2) == 0 {
		return canonical.JSON
	}
	return canonical.YAML
}

func (g *generator) fullStem(stem string) string {
	root := cleanRoot(g.sc.SourceRoot)
	if root == "." {
		return stem
	}
	return root + "/" + stem
}

func (g *generator) render(e *entry) error {
	d, err := makeDoc(g.r, g.fullStem(e.stem), e.format, e.obj)
	if err != nil {
		return err
	}
	e.doc = d
	return nil
}

// evolve returns the next commit's entries: keeps, updates, removals,
// renames, format changes, reformats, new documents and re-adds of grave.
func (g *generator) evolve(prev, grave map[string]*entry, s *Scenario) (map[string]*entry, error) {
	r := g.r
	next := map[string]*entry{}
	for _, stem := range sortedKeys(prev) {
		e := *prev[stem]
		switch x := r.IntN(100); {
		case x < 40: // keep, byte for byte
		case x < 60: // update the value
			e.obj = e.obj.mutated(r, e.format == canonical.Dotenv)
			if err := g.render(&e); err != nil {
				return nil, err
			}
			s.Changes["doc-update"]++
		case x < 72: // removal
			s.Changes["doc-remove"]++
			continue
		case x < 78: // rename: new stem, same content
			n, err := g.newEntry()
			if err != nil {
				return nil, err
			}
			e.stem = n.stem
			if err := g.render(&e); err != nil {
				return nil, err
			}
			s.Changes["doc-rename"]++
		case x < 90: // format change, same content (must not churn)
			f := g.format(e.obj.isFlat())
			if f == e.format {
				f = map[canonical.Format]canonical.Format{canonical.JSON: canonical.YAML, canonical.YAML: canonical.JSON, canonical.Dotenv: canonical.YAML}[f]
			}
			e.format = f
			if err := g.render(&e); err != nil {
				return nil, err
			}
			s.Changes["doc-format"]++
		default: // re-spelled: member order and layout (must not churn)
			e.obj = e.obj.shuffled(r)
			if err := g.render(&e); err != nil {
				return nil, err
			}
			s.Changes["doc-reformat"]++
		}
		next[e.stem] = &e
	}
	for range r.IntN(3) {
		e, err := g.newEntry()
		if err != nil {
			return nil, err
		}
		next[e.stem] = e
		s.Changes["doc-add"]++
	}
	for _, stem := range sortedKeys(grave) {
		if r.IntN(3) == 0 {
			continue
		}
		e := *grave[stem]
		if r.IntN(2) == 0 {
			e.obj = e.obj.mutated(r, e.format == canonical.Dotenv)
		}
		if err := g.render(&e); err != nil {
			return nil, err
		}
		next[e.stem] = &e
		s.Changes["doc-readd"]++
	}
	if len(next) == 0 && !s.AllowEmpty {
		e, err := g.newEntry()
		if err != nil {
			return nil, err
		}
		next[e.stem] = e
		s.Changes["doc-add"]++
	}
	return next, nil
}

// revision turns entries into a commit, with ignored files and documents
// outside the source root.
func (g *generator) revision(es map[string]*entry) (Revision, error) {
	r := g.r
	rev := Revision{Docs: map[string]Doc{}, Plain: map[string][]byte{}, Outside: map[string]Doc{}}
	for _, e := range es {
		rev.Docs[e.doc.Path] = e.doc
	}
	root := cleanRoot(g.sc.SourceRoot)
	under := func(p string) string {
		if root == "." {
			return p
		}
		return root + "/" + p
	}
	// Files the tool must ignore: other suffixes (case-sensitive).
	rev.Plain[under("README.md")] = []byte("# secrets\n" + canary(r) + "\n")
	rev.Plain[under("notes.json")] = []byte(`{"k":"` + canary(r) + `"}` + "\n")
	rev.Plain[under("UPPER.sops.JSON")] = []byte(`{"k":"` + canary(r) + `"}` + "\n")
	rev.Plain[under("draft.sops.json.bak")] = []byte(`{"k":"` + canary(r) + `"}` + "\n")
	if root != "." {
		// A valid document outside the source root: must never be synced.
		o := newObject(r, false, 0)
		d, err := makeDoc(r, "outside/"+path.Base(bases[r.IntN(len(bases))]), canonical.JSON, o)
		if err != nil {
			return Revision{}, err
		}
		rev.Outside[d.Path] = d
	}
	return rev, nil
}

// owned seeds the secrets an earlier sync of c0 left, with drift.
func (g *generator) owned(c0, grave map[string]*entry) []PreSecret {
	r := g.r
	var out []PreSecret
	str := func(b []byte) PreVersion { s := string(b); return PreVersion{String: &s} }
	other := func() PreVersion {
		o := newObject(r, false, 0)
		c, _ := canonical.Canonicalize(canonical.JSON, renderJSON(o, false))
		return str(c)
	}
	for _, stem := range sortedKeys(c0) {
		e := c0[stem]
		p := PreSecret{Name: SecretName(g.sc, e.doc.Path), Tags: g.sc.Tags(e.doc.Path), Kind: "synced"}
		switch x := r.IntN(100); {
		case x < 62:
			p.Versions = []PreVersion{str(e.doc.Canon)}
		case x < 72: // changed in the console since the last sync
			p.Kind = "drift-value"
			p.Versions = []PreVersion{str(e.doc.Canon), other()}
		case x < 76: // someone stored a binary value
			p.Kind = "binary"
			p.Versions = []PreVersion{str(e.doc.Canon), {Binary: []byte(canary(r))}}
		case x < 84: // several earlier syncs
			p.Kind = "history"
			p.Versions = []PreVersion{other(), other(), str(e.doc.Canon)}
		case x < 92: // the earlier sync was killed before creating it
			continue
		default: // scheduled for deletion by hand
			p.Kind = "pending"
			p.Versions = []PreVersion{str(e.doc.Canon)}
			p.DeleteWindowDays = 7 + r.IntN(24)
		}
		if r.IntN(4) == 0 {
			p.Description = "managed " + fmt.Sprint(r.IntN(100))
		}
		out = append(out, p)
	}
	for _, stem := range sortedKeys(grave) {
		e := grave[stem]
		out = append(out, PreSecret{
			Name: SecretName(g.sc, e.doc.Path), Tags: g.sc.Tags(e.doc.Path), Kind: "graveyard",
			Versions: []PreVersion{str(e.doc.Canon)}, DeleteWindowDays: 7 + r.IntN(24),
		})
	}
	return out
}

// foreign seeds secrets the scope does not own, some in its prefix.
func (g *generator) foreign() []PreSecret {
	r := g.r
	var out []PreSecret
	prefix := cleanPrefix(g.sc.Prefix)
	other := model.Scope{RepositoryID: "someone/else", SourceRoot: g.sc.SourceRoot, Prefix: g.sc.Prefix}
	for i := range 1 + r.IntN(4) {
		var stem string
		for {
			stem = foreignBase[r.IntN(len(foreignBase))] + fmt.Sprintf("-f%d", r.IntN(100))
			if r.IntN(3) == 0 {
				stem = foreignBase[r.IntN(len(foreignBase))] // may be a desired name minus "-config"
			}
			if !g.used[stem] {
				break
			}
		}
		g.used[stem] = true
		p := PreSecret{Name: prefix + "/" + stem, Foreign: true, Tags: map[string]string{}}
		switch r.IntN(6) {
		case 0:
			p.Kind = "foreign-untagged"
		case 1:
			p.Kind = "foreign-other-scope"
			p.Tags = other.Tags(g.fullStem(stem) + ".sops.json")
		case 2:
			p.Kind = "foreign-other-tool"
			p.Tags = map[string]string{"managed-by": "terraform", "team": "payments"}
		case 3:
			p.Kind = "foreign-scope-only" // our scope tag without managed-by
			p.Tags = map[string]string{model.TagScope: g.sc.Digest(), model.TagSource: model.SourceDigest(g.fullStem(stem) + ".sops.json")}
		case 4:
			p.Kind = "foreign-managed-by-case"
			p.Tags = map[string]string{model.TagManagedBy: strings.ToUpper(model.ManagedByValue), model.TagScope: g.sc.Digest()}
		default:
			p.Kind = "foreign-other-prefix"
			p.Name = "elsewhere/" + prefix + "/" + stem
			p.Tags = other.Tags(g.fullStem(stem) + ".sops.json")
		}
		if i%2 == 1 {
			p.Description = "hand-made"
		}
		for range 1 + r.IntN(3) {
			if r.IntN(5) == 0 {
				p.Versions = append(p.Versions, PreVersion{Binary: []byte(canary(r))})
			} else {
				s := `{"` + canaryKey(r) + `":"` + canary(r) + `"}`
				p.Versions = append(p.Versions, PreVersion{String: &s})
			}
		}
		if r.IntN(5) == 0 {
			p.DeleteWindowDays = 7 + r.IntN(24)
		}
		out = append(out, p)
	}
	return out
}

// bulk seeds more than a ListSecrets page (100) of owned secrets pending
// deletion that no revision desires: they must stay as they are.
func (g *generator) bulk() []PreSecret {
	var out []PreSecret
	prefix := cleanPrefix(g.sc.Prefix)
	for i := range 100 + g.r.IntN(30) {
		path := g.fullStem(fmt.Sprintf("bulk/b%03d", i)) + ".sops.json"
		v := `{"` + canaryKey(g.r) + `":"` + canary(g.r) + `"}`
		out = append(out, PreSecret{
			Name: prefix + fmt.Sprintf("/bulk/b%03d", i), Tags: g.sc.Tags(path), Kind: "bulk-pending",
			Versions: []PreVersion{{String: &v}}, DeleteWindowDays: 7 + g.r.IntN(24),
		})
	}
	return out
}

// drift adds out-of-band changes before some runs (never before the final
// plan): value changes, deletions and restores of owned names.
func (g *generator) drift(s *Scenario) {
	r := g.r
	var names []string
	for _, p := range s.Pre {
		if !p.Foreign && p.Kind != "bulk-pending" {
			names = append(names, p.Name)
		}
	}
	names = append(names, sortedKeys(s.EverDesired())...)
	if len(names) == 0 {
		return
	}
	for i := 1; i < len(s.Runs)-1; i++ {
		if r.IntN(5) != 0 {
			continue
		}
		for range 1 + r.IntN(2) {
			d := Drift{Name: names[r.IntN(len(names))], Kind: []string{"value", "value", "delete", "restore"}[r.IntN(4)]}
			if d.Kind == "delete" {
				d.Window = 7 + r.IntN(24)
			}
			s.Runs[i].Drift = append(s.Runs[i].Drift, d)
		}
	}
}

// runs plans the fault runs and the two final clean runs.
func (g *generator) runs(s *Scenario) {
	r := g.r
	last := len(s.Revisions) - 1
	n := 1 + r.IntN(2)
	if last == 2 && n == 1 && r.IntN(2) == 0 {
		n = 2
	}
	for i := range n {
		rev := 1
		if last == 2 && i == n-1 {
			rev = 2
		}
		run := Run{Command: "sync", Revision: rev, Faults: g.faults(), Concurrency: 1 + r.IntN(8)}
		if r.IntN(3) == 0 {
			run.MaxAttempts = 1
		}
		if r.IntN(10) == 0 {
			run.Command = "plan"
		} else if r.Float64() < g.opt.KillShare {
			run.Kill = g.kill(s.Mutations(), len(s.Revisions[rev].Docs))
		}
		s.Runs = append(s.Runs, run)
	}
	s.Runs = append(s.Runs,
		Run{Command: "sync", Revision: last, Concurrency: 1 + r.IntN(8), Final: true},
		Run{Command: "plan", Revision: last, Concurrency: 8, Final: true},
	)
}

var scriptOps = []string{"CreateSecret", "CreateSecret", "PutSecretValue", "PutSecretValue", "DeleteSecret", "RestoreSecret",
	"DescribeSecret", "GetSecretValue", "ListSecrets", "BatchGetSecretValue"}

var scriptFaults = []string{"ambiguous-after-apply", "ambiguous-after-apply", "ambiguous-before-apply",
	"error:InternalServiceError", "error:ThrottlingException", "error:ResourceNotFoundException",
	"error:AccessDeniedException", "error:LimitExceededException"}

// faults draws one to three fault kinds with small parameters.
func (g *generator) faults() emulator.Faults {
	r := g.r
	f := emulator.Faults{Seed: r.Int64()}
	kinds := 1 + r.IntN(3)
	for range kinds {
		switch r.IntN(7) {
		case 0:
			f.ListLagMS = 100 + r.Int64N(1900)
		case 1:
			f.LatencyMS = 1 + r.Int64N(4)
			f.LatencyJitterMS = r.Int64N(8)
		case 2:
			f.ErrorRate = 0.02 + r.Float64()*0.2
		case 3, 4:
			f.AmbiguousRate = 0.1 + r.Float64()*0.4
			f.AmbiguousKind = []string{"mixed", "after-apply", "before-apply"}[r.IntN(3)]
		case 5:
			f.Quotas = true
			f.QuotaScale = 0.02 + r.Float64()*0.08
		default:
			for range 1 + r.IntN(4) {
				f.Script = append(f.Script, emulator.ScriptedFault{
					Operation: scriptOps[r.IntN(len(scriptOps))],
					Nth:       1 + r.Int64N(4),
					Fault:     scriptFaults[r.IntN(len(scriptFaults))],
				})
			}
		}
	}
	return f
}

// kill aims a kill plan at the apply phase: muts is the number of
// mutations the first run plans, docs the number of desired documents.
func (g *generator) kill(muts, docs int) *KillPlan {
	r := g.r
	switch x := r.IntN(100); {
	case x < 35:
		return &KillPlan{Mode: "mutation-before", Nth: 1 + r.IntN(max(1, muts))}
	case x < 70:
		return &KillPlan{Mode: "mutation-after", Nth: 1 + r.IntN(max(1, muts))}
	case x < 85:
		return &KillPlan{Mode: "call", Nth: 1 + r.IntN(4+3*docs)}
	default:
		return &KillPlan{Mode: "delay", DelayMS: 20 + r.IntN(400)}
	}
}

// countChanges fills the operation counts that SPEC §5 plans for revision
// rev against Pre.
func countChanges(s *Scenario, rev int) {
	want := s.Revisions[rev].Desired(s.Scope)
	pre := map[string]PreSecret{}
	for _, p := range s.Pre {
		if !p.Foreign {
			pre[p.Name] = p
		}
	}
	for n, d := range want {
		p, ok := pre[n]
		switch {
		case !ok:
			s.Changes["create"]++
		case p.DeleteWindowDays > 0:
			s.Changes["restore"]++
			if !p.currentIs(d.Canon) {
				s.Changes["update"]++
			}
		case !p.currentIs(d.Canon):
			s.Changes["update"]++
		}
	}
	for n, p := range pre {
		if _, ok := want[n]; !ok && p.DeleteWindowDays == 0 {
			s.Changes["delete"]++
		}
	}
}

// currentIs reports whether the last version holds exactly the string v.
func (p PreSecret) currentIs(v []byte) bool {
	if len(p.Versions) == 0 {
		return false
	}
	c := p.Versions[len(p.Versions)-1]
	return c.String != nil && *c.String == string(v)
}
