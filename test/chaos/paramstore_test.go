package chaos

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// The Parameter Store draw: about PSShare of the scenarios that can take
// another scope, only what a Parameter Store scope can have (no .sops.bin,
// replicas, adopt), names Parameter Store's rule accepts, a config the
// loader resolves with target parameter-store, SSM kills, scripts and
// quotas; a scenario without it is drawn exactly as with the draw off.
func TestGenerateParameterStore(t *testing.T) {
	off := DefaultGenOptions
	off.ParameterStore = false
	var ps, eligible, kills, scripts, scaled, drift, tags, limits int
	for i := range 300 {
		s, err := Generate(1, i, DefaultGenOptions)
		if err != nil {
			t.Fatal(err)
		}
		o, _ := Generate(1, i, off)
		if cleanRoot(s.Scope.SourceRoot) != "." {
			eligible++
		}
		b, ok := psSibling(s)
		if !ok {
			ja, _ := json.Marshal(s)
			jb, _ := json.Marshal(o)
			if string(ja) != string(jb) {
				t.Fatalf("scenario %d: the draw changed a scenario it did not pick", i)
			}
			continue
		}
		ps++
		if b.Kind != "parameter-store" || len(b.Replicas) > 0 || len(b.Pre) > 0 || len(b.Adopt) > 0 || b.Whole > 0 {
			t.Fatalf("scenario %d: the Parameter Store scope drew what it cannot have: %+v", i, b)
		}
		for rev := range b.Docs {
			for name, d := range b.Desired(rev) {
				if d.Format == canonical.Binary || strings.HasSuffix(d.Path, ".sops.bin") || len(d.Canon) > 4096 {
					t.Fatalf("scenario %d: document %s not storable as a standard parameter", i, d.Path)
				}
				if err := model.ValidateParameterName(name); err != nil || !b.owns(name) {
					t.Fatalf("scenario %d: name %s: %v", i, name, err)
				}
				if !strings.Contains(string(d.Canon), CanaryMarker) {
					t.Fatalf("scenario %d: document %s without a canary: a leak of it would go unseen", i, d.Path)
				}
			}
		}
		for ri, run := range s.Runs {
			body := scopesConfig(s, ri)
			res, err := config.Resolve(config.Input{Command: run.Command, Flags: map[string]string{config.ConfigFile: "cfg.yaml"},
				ReadFile: func(string) ([]byte, error) { return body, nil }})
			if err != nil {
				t.Fatalf("scenario %d run %d: %v\n%s", i, ri, err, body)
			}
			last := res.Scopes[len(res.Scopes)-1]
			if last.Name != PSScopeName || last.Identity().Digest() != b.Scope.Digest() {
				t.Fatalf("scenario %d: the config's last scope is %s, digest %s, want the draw's %s", i, last.Name, last.Identity().Digest(), b.Scope.Digest())
			}
			if k := run.Kill; k != nil && k.Service == "ssm" {
				kills++
				if run.Final || run.Command != "sync" {
					t.Fatalf("scenario %d run %d: an SSM kill plan on a final run or a plan", i, ri)
				}
			}
			if slices.ContainsFunc(run.Faults.Script, func(f emulator.ScriptedFault) bool { return slices.Contains(psScriptOps, f.Operation) }) {
				scripts++
			}
			if q := run.Quotas; q != nil && len(q.SSMScales) > 0 {
				scaled++
				if v := q.SSMScales["PutParameter"]; v < 0.1 || v > 1 || (run.Final && v < 0.34) {
					t.Fatalf("scenario %d run %d: PutParameter scale %v", i, ri, v)
				}
			}
			if b.MaxDeletions[ri] != nil {
				limits++
				if run.Final {
					t.Fatalf("scenario %d: max-deletions on a final run", i)
				}
			}
			if len(b.Tags[ri]) > 0 {
				tags++
			}
		}
		drift += len(b.PSDrift)
	}
	if ps < eligible/10 || ps > eligible*3/10 {
		t.Fatalf("%d of %d eligible scenarios drew a Parameter Store scope", ps, eligible)
	}
	if kills == 0 || scripts == 0 || scaled == 0 || drift == 0 || tags == 0 || limits == 0 {
		t.Fatalf("kills %d, scripts %d, scaled %d, drift %d, tags %d, limits %d", kills, scripts, scaled, drift, tags, limits)
	}
}

// psEvidence is a converged two-run scenario with a Parameter Store scope
// that keeps its promises: the tests below break one promise each.
func psEvidence() Evidence {
	sc := model.Scope{RepositoryID: "r", SourceRoot: "siblings/ps", Prefix: "app", Target: model.TargetParameterStore}
	d := Doc{Path: "siblings/ps/db.sops.json", Format: canonical.JSON, Canon: []byte(`{"k":"v"}`)}
	one := 1
	b := Sibling{Name: PSScopeName, Kind: "parameter-store", Scope: sc, Region: ChaosRegion, Account: emulator.DefaultAccountID,
		Docs:         []map[string]Doc{{d.Path: d}},
		Tags:         []map[string]string{{"team": "a"}, {"team": "a"}, {"team": "a"}},
		MaxDeletions: []*int{&one, nil, nil},
		PSPre:        []PSParam{{Name: "/app/legacy", Foreign: true, Values: []string{"x"}, Kind: "ps-foreign-untagged"}}}
	s := &Scenario{Revisions: []Revision{{}}, Siblings: []Sibling{b},
		Runs: []Run{{Command: "sync"}, {Command: "sync", Final: true}, {Command: "plan", Final: true}}}
	tags := sc.Tags(d.Path)
	tags["team"] = "a"
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range tags {
			if !yield(k) {
				return
			}
		}
	})
	foreign := emulator.ParameterDump{Account: emulator.DefaultAccountID, Region: ChaosRegion, Name: "/app/legacy", Type: "SecureString", Value: "x", Version: 1}
	ours := emulator.ParameterDump{Account: emulator.DefaultAccountID, Region: ChaosRegion, Name: "/app/db", Type: "SecureString", Value: `{"k":"v"}`, Version: 1, Tags: tags}
	return Evidence{Scenario: s,
		Pre:  emulator.StateDump{Parameters: []emulator.ParameterDump{foreign}},
		Post: emulator.StateDump{Parameters: []emulator.ParameterDump{foreign, ours}},
		Calls: []Call{
			{Run: 1, Service: "ssm", Op: "DescribeParameters"},
			{Run: 1, Service: "ssm", Op: "PutParameter", Target: "/app/db", Type: "SecureString", TagKeys: keys},
		},
		Runs:    []RunResult{{Run: s.Runs[0]}, {Run: s.Runs[1], Exit: 0}, {Run: s.Runs[2]}},
		PSFinal: []PSObserved{{Name: "/app/db", Type: "SecureString", Value: `{"k":"v"}`, Version: 1, Tags: tags}, {Name: "/app/legacy", Type: "SecureString", Value: "x", Version: 1}},
	}
}

func TestCheckParameterStore(t *testing.T) {
	if vs := checkParameterStore(psEvidence()); len(vs) != 0 {
		t.Fatalf("a scenario that kept every promise: %v", vs)
	}
	cases := map[string]func(ev *Evidence){
		"ps-foreign-write": func(ev *Evidence) {
			ev.Calls = append(ev.Calls, Call{Run: 1, Service: "ssm", Op: "PutParameter", Target: "/app/legacy", Overwrite: true, Type: "SecureString"})
		},
		"ps-foreign-write/outside": func(ev *Evidence) {
			ev.Calls = append(ev.Calls, Call{Run: 1, Service: "ssm", Op: "DeleteParameters", Names: []string{"/other/x"}})
		},
		"ps-plan-mutated": func(ev *Evidence) {
			ev.Calls = append(ev.Calls, Call{Run: 3, Service: "ssm", Op: "AddTagsToResource", Target: "/app/db", TagKeys: []string{"team"}})
		},
		"ps-deletion-limit": func(ev *Evidence) {
			ev.Calls = append(ev.Calls, Call{Run: 1, Service: "ssm", Op: "DeleteParameter", Target: "/app/a"},
				Call{Run: 1, Service: "ssm", Op: "DeleteParameters", Names: []string{"/app/b"}})
		},
		"ps-create-untagged": func(ev *Evidence) { ev.Calls[1].TagKeys = []string{model.TagManagedBy} },
		"ps-type":            func(ev *Evidence) { ev.Calls[1].Type = "String" },
		"ps-forbidden-operation": func(ev *Evidence) {
			ev.Calls = append(ev.Calls, Call{Run: 1, Service: "ssm", Op: "LabelParameterVersion", Target: "/app/db"})
		},
		"ps-foreign-changed": func(ev *Evidence) { ev.Post.Parameters[0].Version = 2 },
		"ps-unexpected": func(ev *Evidence) {
			ev.Post.Parameters = append(ev.Post.Parameters, emulator.ParameterDump{Account: emulator.DefaultAccountID, Region: ChaosRegion, Name: "/elsewhere/x"})
		},
		"ps-value":       func(ev *Evidence) { ev.PSFinal[0].Value = `{"k":"w"}` },
		"ps-missing":     func(ev *Evidence) { ev.PSFinal = ev.PSFinal[1:] },
		"ps-ownership":   func(ev *Evidence) { ev.PSFinal[0].Tags = map[string]string{"team": "a"} },
		"ps-tags":        func(ev *Evidence) { ev.PSFinal[0].Tags["owner"] = "x" },
		"ps-not-deleted": func(ev *Evidence) { p := ev.PSFinal[0]; p.Name = "/app/gone"; ev.PSFinal = append(ev.PSFinal, p) },
	}
	for name, breakIt := range cases {
		t.Run(name, func(t *testing.T) {
			ev := psEvidence()
			breakIt(&ev)
			want, _, _ := strings.Cut(name, "/")
			var got []string
			for _, v := range checkParameterStore(ev) {
				got = append(got, v.Kind)
			}
			if !slices.Contains(got, want) {
				t.Fatalf("findings %v do not include %s", got, want)
			}
		})
	}
	// A scenario without a Parameter Store scope is not judged here, and
	// the primary's judge never sees an SSM call.
	ev := psEvidence()
	ev.Scenario.Siblings = nil
	if vs := checkParameterStore(ev); len(vs) != 0 {
		t.Fatalf("no Parameter Store scope: %v", vs)
	}
	ev = psEvidence()
	for _, c := range project(ev).Calls {
		if c.Service == "ssm" {
			t.Fatalf("project kept an SSM call: %+v", c)
		}
	}
}

// The proxy records a Parameter Store request: its operation without the
// AmazonSSM. prefix, service, name, names, Overwrite, type and tag keys.
func TestMutatingSSM(t *testing.T) {
	for _, op := range []string{"PutParameter", "DeleteParameter", "DeleteParameters", "AddTagsToResource", "RemoveTagsFromResource", "LabelParameterVersion"} {
		if !Mutating(op) || !MutatingSSM(op) {
			t.Errorf("%s must count as a write", op)
		}
	}
	for _, op := range []string{"GetParameters", "DescribeParameters", "ListTagsForResource", "GetParametersByPath", "CreateSecret"} {
		if MutatingSSM(op) {
			t.Errorf("%s is not a Parameter Store write", op)
		}
	}
}

// TestProxyRecordsParameterStoreCalls: a Parameter Store request through
// the proxy is recorded with its service, operation, name(s), Overwrite,
// type and tag keys, and a kill plan aimed at SSM writes counts them
// alone (the Secrets Manager write before it does not count).
func TestProxyRecordsParameterStoreCalls(t *testing.T) {
	srv, px, c := proxied(t)
	ctx := context.Background()
	sc := ssm.New(ssm.Options{Region: ChaosRegion, BaseEndpoint: aws.String(px.URL), RetryMaxAttempts: 1,
		Credentials: credentials.NewStaticCredentialsProvider("AKIATEST", "secret", "")})
	var killed atomic.Int32
	px.Arm(1, &KillPlan{Mode: "mutation-before", Nth: 2, Service: "ssm"}, func() { killed.Add(1) })
	if _, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("p/a"), SecretString: aws.String("{}")}); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.PutParameter(ctx, &ssm.PutParameterInput{Name: aws.String("/p/a"), Value: aws.String("v"), Type: ssmtypes.ParameterTypeSecureString,
		Tags: []ssmtypes.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.GetParameters(ctx, &ssm.GetParametersInput{Names: []string{"/p/a", "/p/b"}}); err != nil {
		t.Fatal(err)
	}
	if killed.Load() != 0 {
		t.Fatal("killed before the second Parameter Store write")
	}
	if _, err := sc.PutParameter(ctx, &ssm.PutParameterInput{Name: aws.String("/p/a"), Value: aws.String("w"), Type: ssmtypes.ParameterTypeSecureString, Overwrite: aws.Bool(true)}); err == nil {
		t.Fatal("the killed write was answered")
	}
	if killed.Load() != 1 {
		t.Fatal("the kill plan did not fire at the second Parameter Store write")
	}
	calls := px.Calls()
	if len(calls) != 4 {
		t.Fatalf("%d calls, want 4: %+v", len(calls), calls)
	}
	if p := calls[1]; p.Service != "ssm" || p.Op != "PutParameter" || p.Target != "/p/a" || p.Overwrite || p.Type != "SecureString" || !slices.Equal(p.TagKeys, []string{"k"}) || p.Status != 200 {
		t.Fatalf("create recorded as %+v", p)
	}
	if g := calls[2]; g.Op != "GetParameters" || !slices.Equal(g.Names, []string{"/p/a", "/p/b"}) {
		t.Fatalf("GetParameters recorded as %+v", g)
	}
	if w := calls[3]; !w.Overwrite || !w.Lost {
		t.Fatalf("the killed overwrite recorded as %+v", w)
	}
	if calls[0].Service != "" {
		t.Fatalf("a Secrets Manager call recorded as %+v", calls[0])
	}
	_ = srv
}
