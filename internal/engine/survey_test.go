package engine_test

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// surveyPort makes the real adapter a Surveyor as Parameter Store's adapter
// is one: its scope listing carries each entry's observation (what
// Describe answers, with only the managed-by and scope tags: a listing
// cannot show the source tag), and Present lists every name under the
// prefix whatever its tags. The listing's own reads are not counted: only
// the observer's describes are.
type surveyPort struct {
	Port
	client *secretsmanager.Client

	othersErr error // what Others answers instead of listing, when set
	// describeErr is what the observer's Describe of an id containing
	// failName answers, when set.
	failName    string
	describeErr error

	mu        sync.Mutex
	describes []string
	presents  int
}

func (s *surveyPort) Describe(ctx context.Context, id string) (plan.ObservedSecret, error) {
	s.mu.Lock()
	s.describes = append(s.describes, id)
	s.mu.Unlock()
	if s.describeErr != nil && strings.Contains(id, s.failName) {
		return plan.ObservedSecret{}, s.describeErr
	}
	return s.Port.Describe(ctx, id)
}

func (s *surveyPort) ListScope(ctx context.Context, each func(engine.Candidate)) ([]engine.Candidate, error) {
	cands, err := s.Port.ListCandidates(ctx, testScope.Digest())
	if err != nil {
		return nil, err
	}
	for i := range cands {
		obs, err := s.Port.Describe(ctx, cands[i].ARN)
		if err != nil {
			return nil, err
		}
		obs.Tags = map[string]string{model.TagManagedBy: obs.Tags[model.TagManagedBy], model.TagScope: obs.Tags[model.TagScope]}
		cands[i].Listed = &obs
		each(cands[i])
	}
	return cands, nil
}

func (s *surveyPort) Others(ctx context.Context, own map[string]bool) ([]engine.Candidate, error) {
	if s.othersErr != nil {
		return nil, s.othersErr
	}
	all, err := s.Port.ListCandidates(ctx, "")
	if err != nil {
		return nil, err
	}
	var others []engine.Candidate
	for _, c := range all {
		if !own[c.Name] {
			others = append(others, c)
		}
	}
	return others, nil
}

func (s *surveyPort) Present(ctx context.Context) (map[string]bool, error) {
	s.mu.Lock()
	s.presents++
	s.mu.Unlock()
	present := map[string]bool{}
	p := secretsmanager.NewListSecretsPaginator(s.client, &secretsmanager.ListSecretsInput{})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, e := range page.SecretList {
			if n := *e.Name; strings.HasPrefix(n, testScope.Prefix+"/") {
				present[n] = true
			}
		}
	}
	return present, nil
}

// counted returns the observer's describes and Present listings so far and
// starts counting afresh.
func (s *surveyPort) counted() (describes []string, presents int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	describes, presents = s.describes, s.presents
	s.describes, s.presents = nil, 0
	return describes, presents
}

// A Surveyor's listed entries of converged desired names are taken as
// listed: a no-op run describes none of them (observation in the fewest
// calls the API allows, SPEC §16), and plans them unchanged although the
// listing shows no source tag.
func TestSurveyor_ConvergedNamesAreTakenWithoutADescribe(t *testing.T) {
	e := newEnv(t)
	st := state(doc{"a", "1"}, doc{"b", "2"}, doc{"c", "3"})
	e.sync(t, 2, st)
	sp := &surveyPort{Port: e.port, client: e.client}
	before := e.calls(t)
	got := e.runPort(t, e.cfg(engine.ModeSync, 2), st, sp)
	wantResult(t, got, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 3})
	if n := mutations(before, e.calls(t)); n != 0 {
		t.Fatalf("a converged scope took %d writes", n)
	}
	if d, _ := sp.counted(); len(d) != 0 {
		t.Fatalf("converged listed names were described: %v", d)
	}
}

// A listed entry whose decision is anything but unchanged is described
// directly before the plan is made (confirm): the changed document's name
// once, the converged ones not at all; the write then lands.
func TestSurveyor_ChangedListedNameIsDescribedBeforeItIsWritten(t *testing.T) {
	e := newEnv(t)
	e.sync(t, 2, state(doc{"a", "1"}, doc{"b", "2"}, doc{"c", "3"}))
	sp := &surveyPort{Port: e.port, client: e.client}
	got := e.runPort(t, e.cfg(engine.ModeSync, 2), state(doc{"a", "1"}, doc{"b", "two"}, doc{"c", "3"}), sp)
	if got.Status != vocab.StatusConverged || got.Counts.Update != 1 || got.Counts.Unchanged != 2 {
		t.Fatalf("result = %+v, want converged with 1 update and 2 unchanged", got)
	}
	if v := current(e.secret(t, nameOf("b"))); v != "two" {
		t.Fatalf("app/b holds %q, want two", v)
	}
	// The plan's describes of app/b are its confirmation (by ARN) and the
	// write's precondition; none of the converged names.
	d, _ := sp.counted()
	for _, id := range d {
		if !strings.Contains(id, nameOf("b")) {
			t.Fatalf("a converged listed name was described: %v", d)
		}
	}
	if len(d) == 0 {
		t.Fatal("the changed listed name was never described directly")
	}
}

// The desired names a Surveyor's listing did not show are described one by
// one while they are at most one more than the listing's pages of 50
// (len(listed)/50 + 1), and told absent or present by one Present listing
// beyond that.
func TestSurveyor_UnlistedNamesAreDescribedUpToOnePerPagePlusOne(t *testing.T) {
	for _, tc := range []struct {
		name              string
		existing, fresh   []string
		describes, listed int
	}{
		// No listed entry: the bound is 1.
		{"one new name, nothing listed", nil, []string{"n1"}, 1, 0},
		{"two new names, nothing listed", nil, []string{"n1", "n2"}, 0, 1},
		// One listed entry: 1/50 + 1 is still 1 (a bound of 1*50+1 or of
		// 1/50-1 would tell).
		{"three new names, one listed", []string{"a"}, []string{"n1", "n2", "n3"}, 0, 1},
		{"one new name, one listed", []string{"a"}, []string{"n1"}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			var docs []doc
			for _, b := range tc.existing {
				docs = append(docs, doc{b, "v-" + b})
			}
			if len(docs) > 0 {
				e.sync(t, 2, state(docs...))
			}
			for _, b := range tc.fresh {
				docs = append(docs, doc{b, "v-" + b})
			}
			sp := &surveyPort{Port: e.port, client: e.client}
			got := e.runPort(t, e.cfg(engine.ModePlan, 2), state(docs...), sp)
			if got.Counts.Create != len(tc.fresh) || got.Counts.Unchanged != len(tc.existing) {
				t.Fatalf("counts = %+v, want %d creates and %d unchanged", got.Counts, len(tc.fresh), len(tc.existing))
			}
			d, p := sp.counted()
			if len(d) != tc.describes || p != tc.listed {
				t.Fatalf("%d describes %v and %d Present listings, want %d and %d", len(d), d, p, tc.describes, tc.listed)
			}
		})
	}
}

// A desired name the listing did not show (not this scope's) but Present
// finds is described, alone, and judged from that observation: a secret of
// another owner under the name is a conflict, and the run writes nothing.
func TestSurveyor_UnlistedPresentNameIsDescribedAndNotOverwritten(t *testing.T) {
	e := newEnv(t)
	e.seed(t, nameOf("n2"), aws.String("theirs"), nil, nil)
	sp := &surveyPort{Port: e.port, client: e.client}
	before := e.calls(t)
	got := e.runPort(t, e.cfg(engine.ModeSync, 2), state(doc{"n1", "1"}, doc{"n2", "2"}, doc{"n3", "3"}), sp)
	if got.Status != vocab.StatusConflict || got.Counts.Conflicts != 1 {
		t.Fatalf("result = %+v, want conflict with 1 conflict", got)
	}
	if n := mutations(before, e.calls(t)); n != 0 {
		t.Fatalf("a conflicting run took %d writes", n)
	}
	if d, p := sp.counted(); len(d) != 1 || d[0] != nameOf("n2") || p != 1 {
		t.Fatalf("describes %v and %d Present listings, want [%s] and 1", d, p, nameOf("n2"))
	}
}

// The first observation lists every managed secret, with a Surveyor or
// without: a secret another scope owns whose source is a document of this
// commit (left by a change of --repository-id) is warned about as an
// orphan and never touched; a listing of the other scopes that fails
// fails the observation.
func TestOrphanOfAnotherScopeIsWarnedAboutByTheFirstObservation(t *testing.T) {
	old := model.Scope{RepositoryID: "acme/old", SourceRoot: testScope.SourceRoot, Prefix: testScope.Prefix}
	for _, surveyor := range []bool{false, true} {
		t.Run(map[bool]string{false: "Port", true: "Surveyor"}[surveyor], func(t *testing.T) {
			e := newEnv(t)
			e.seed(t, nameOf("x"), aws.String("old"), nil, old.Tags(pathOf("a")))
			var p engine.Port = e.port
			if surveyor {
				p = &surveyPort{Port: e.port, client: e.client}
			}
			res := e.runPort(t, e.cfg(engine.ModePlan, 2), state(doc{"a", "1"}), p)
			if res.Counts != (vocab.Counts{Create: 1}) {
				t.Fatalf("counts = %+v, want 1 create", res.Counts)
			}
			i := slices.IndexFunc(res.Diagnostics, func(d diag.Diagnostic) bool { return d.Class == diag.WarningOrphans })
			if i < 0 {
				t.Fatalf("diagnostics %+v: want %s", res.Diagnostics, diag.WarningOrphans)
			}
			if got := res.Diagnostics[i].Summary; !strings.HasPrefix(got, "1 secret this tool owns in another scope holds a document") {
				t.Fatalf("orphan summary %q: want the singular", got)
			}
			if strings.Contains(e.logs.String(), "outside the secret prefix") {
				t.Fatalf("a run with no entry outside the prefix warned about one:\n%s", e.logs.String())
			}
		})
	}
	t.Run("Surveyor's listing of other scopes fails", func(t *testing.T) {
		e := newEnv(t)
		p := &surveyPort{Port: e.port, client: e.client, othersErr: &engine.Error{Operation: "DescribeParameters", Code: "InternalServerError", Fault: engine.FaultServer}}
		res := e.runPort(t, e.cfg(engine.ModePlan, 2), state(doc{"a", "1"}), p)
		if res.Status != vocab.StatusObservationFailed {
			t.Fatalf("status %s, want %s", res.Status, vocab.StatusObservationFailed)
		}
	})
}

// The listing cannot show the source tag, so a listed entry of this scope
// is judged from a direct describe whenever the listing alone would write
// it: a secret of this scope whose source tag names another document is a
// conflict (judged from the describe), not an update; a describe that
// fails fails the observation.
func TestSurveyor_ConfirmJudgesFromTheDirectDescribe(t *testing.T) {
	t.Run("source tag of another document", func(t *testing.T) {
		e := newEnv(t)
		e.seed(t, nameOf("b"), aws.String("x"), nil, testScope.Tags(pathOf("other")))
		sp := &surveyPort{Port: e.port, client: e.client}
		res := e.runPort(t, e.cfg(engine.ModePlan, 2), state(doc{"b", "2"}), sp)
		if res.Counts != (vocab.Counts{Conflicts: 1}) {
			t.Fatalf("counts = %+v, want 1 conflict", res.Counts)
		}
	})
	for _, operation := range []string{"DescribeParameters", ""} {
		t.Run("describe fails: "+cmp.Or(operation, "operation not named"), func(t *testing.T) {
			e := newEnv(t)
			e.sync(t, 2, state(doc{"b", "1"}))
			sp := &surveyPort{Port: e.port, client: e.client, failName: nameOf("b"),
				describeErr: &engine.Error{Operation: operation, Code: "InternalServerError", Fault: engine.FaultServer}}
			res := e.runPort(t, e.cfg(engine.ModePlan, 2), state(doc{"b", "2"}), sp)
			if res.Status != vocab.StatusObservationFailed {
				t.Fatalf("status %s, want %s", res.Status, vocab.StatusObservationFailed)
			}
			// The record names the IAM actions the call needs (vocab.IAMActions);
			// an operation with none in the table gets no iam_actions field,
			// never an empty one.
			want := `"iam_actions":"ssm:DescribeParameters"`
			if operation == "" {
				want = `"request_id":""}`
			}
			if !strings.Contains(e.logs.String(), `"msg":"observation failed"`) || !strings.Contains(e.logs.String(), want) {
				t.Fatalf("the observation failure's record lacks %s:\n%s", want, e.logs)
			}
		})
	}
}

// shortValues answers one value fewer than asked for: a batch answered
// short fails the observation (a server fault), it is never read past
// its end or planned from.
type shortValues struct{ Port }

func (s shortValues) GetCurrentValues(ctx context.Context, reqs []engine.ValueRequest) ([]plan.CurrentValue, error) {
	vs, err := s.Port.GetCurrentValues(ctx, reqs)
	if err != nil || len(vs) == 0 {
		return vs, err
	}
	return vs[:len(vs)-1], nil
}

func TestValueBatchAnsweredShortFailsTheObservation(t *testing.T) {
	e := newEnv(t)
	st := state(doc{"a", "1"}, doc{"b", "2"})
	e.sync(t, 2, st)
	res := e.runPort(t, e.cfg(engine.ModePlan, 2), st, shortValues{e.port})
	if res.Status != vocab.StatusObservationFailed {
		t.Fatalf("status %s, want %s", res.Status, vocab.StatusObservationFailed)
	}
}
