package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/organizations"
	orgtypes "github.com/aws/aws-sdk-go-v2/service/organizations/types"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Many-accounts scenarios (SPEC §17): one config file of 20–40 scopes
// spread over three to six accounts of an organization (each reached
// through its OrganizationAccountAccessRole) and up to three Regions, run
// several times with some accounts unreachable (STS refusing the role,
// STS silent, the account suspended), a random --max-unreachable-scopes,
// SIGKILLs at random points and, now and then, a document that is not
// encrypted. The invariant: the reachable scopes converge, or nothing is
// applied anywhere; never a silent skip beyond N (CheckAccounts).

// The ways an account is made unreachable for a run (docs/emulator.md,
// Organizations): STS answers AccessDenied for its roles
// (sts_refuse_accounts), STS never answers (sts_silent_accounts), or the
// account is SUSPENDED (account-status control).
const (
	AccRefuse    = "refuse"
	AccSilent    = "silent"
	AccSuspended = "suspended"
)

// accRegions are the Regions a many-accounts scope is drawn in.
var accRegions = []string{ChaosRegion, "eu-west-1", "ap-southeast-2"}

// AccScope is one scope of a many-accounts scenario: its account (an
// index into the scenario's accounts), Region, scope and documents per
// revision (the same stems in every revision, values changing).
type AccScope struct {
	Name    string
	Account int
	Region  string
	Scope   model.Scope
	Docs    []map[string]Doc
}

// AccRun is one sync of a many-accounts scenario. Revision indexes the
// scenario's commits (Broken: the commit holding a document that is not
// encrypted); Unreachable maps an account index to how it is made
// unreachable for the run; Max is --max-unreachable-scopes; Kill, when
// set, SIGKILLs the CLI (the proxy's plans, or a delay). Final runs have
// no kill and must end as the table of CheckAccounts says.
type AccRun struct {
	Revision    int
	Broken      bool
	Unreachable map[int]string
	Max         int
	Kill        *KillPlan
	Final       bool
}

// AccScenario is one seeded many-accounts scenario, pure data: Accounts
// member accounts (created in the emulator's organization, in order),
// the scopes, Revisions good revisions (commits 0..Revisions−1) and,
// when a run is broken, one more commit (index Revisions): the last
// revision with a document that is not encrypted in the first scope.
type AccScenario struct {
	Index     int
	Accounts  int
	Revisions int
	Scopes    []AccScope
	Runs      []AccRun
}

// GenerateAccounts draws many-accounts scenario index of the campaign
// seed (its own stream): three to six accounts, 20–40 scopes (every
// account at least one, one to two JSON documents each, two revisions),
// three or four runs each drawing up to two unreachable accounts (at most
// one silent), a --max-unreachable-scopes below, at or above the scopes
// those accounts hold, a broken commit a sixth of the time, and a kill
// plan (at a write, a call or a delay) for half of the runs that apply
// and a tenth of the others; then two final runs of the last revision: one with one
// account unreachable and --max-unreachable-scopes equal to its scopes
// (must end exit 5 with every other scope converged), one with every
// account reachable (must end exit 0). Pure.
func GenerateAccounts(seed uint64, index int) (AccScenario, error) {
	r := rand.New(rand.NewPCG(seed^0x616363, uint64(index)))
	s := AccScenario{Index: index, Accounts: 3 + r.IntN(4), Revisions: 2}
	n := 20 + r.IntN(21)
	stems := []string{"db", "api"}
	for j := range n {
		acct := j
		if j >= s.Accounts {
			acct = r.IntN(s.Accounts)
		}
		name := fmt.Sprintf("s%02d", j)
		sc := AccScope{Name: name, Account: acct, Region: accRegions[r.IntN(len(accRegions))],
			Scope: model.Scope{RepositoryID: "chaos/accounts", SourceRoot: "accounts/" + name, Prefix: "acc/" + name}}
		mine := stems[:1+r.IntN(2)]
		var prev map[string]Doc
		for rev := range s.Revisions {
			docs := map[string]Doc{}
			for _, st := range mine {
				path := sc.Scope.SourceRoot + "/" + st + ".sops.json"
				if d, ok := prev[path]; ok && r.IntN(2) == 0 {
					docs[path] = d
					continue
				}
				plain := fmt.Sprintf(`{"password": %q, "rev": %d}`, canary(r), rev)
				c, err := canonical.Canonicalize(canonical.JSON, []byte(plain))
				if err != nil {
					return s, err
				}
				docs[path] = Doc{Path: path, Format: canonical.JSON, Plain: []byte(plain), Canon: c}
			}
			sc.Docs = append(sc.Docs, docs)
			prev = docs
		}
		s.Scopes = append(s.Scopes, sc)
	}
	modes := []string{AccRefuse, AccSilent, AccSuspended}
	unreachable := func(k int) map[int]string {
		out := map[int]string{}
		silent := false
		for range k {
			a := r.IntN(s.Accounts)
			m := modes[r.IntN(len(modes))]
			if m == AccSilent && silent {
				m = AccRefuse
			}
			silent = silent || m == AccSilent
			if _, ok := out[a]; !ok {
				out[a] = m
			}
		}
		return out
	}
	rev := 0
	for i := range 3 + r.IntN(2) {
		run := AccRun{Revision: rev, Unreachable: unreachable(r.IntN(3))}
		if i > 0 && rev < s.Revisions-1 && r.IntN(2) == 0 {
			rev++
			run.Revision = rev
		}
		u := s.UnreachableScopes(run)
		switch r.IntN(4) {
		case 0:
			run.Max = 0
		case 1:
			run.Max = max(0, u-1)
		case 2:
			run.Max = u
		default:
			run.Max = u + r.IntN(3)
		}
		if r.IntN(6) == 0 {
			run.Broken = true
		}
		// Kills where they can land on writes: half of the runs that apply
		// (nothing unreachable beyond N, no content error), a tenth of the
		// others (whose writes must be none, killed or not).
		applies := u <= run.Max && !run.Broken
		if applies && r.IntN(2) == 0 || !applies && r.IntN(10) == 0 {
			switch r.IntN(4) {
			case 0:
				run.Kill = &KillPlan{Mode: "mutation-before", Nth: 1 + r.IntN(8)}
			case 1:
				run.Kill = &KillPlan{Mode: "mutation-after", Nth: 1 + r.IntN(8)}
			case 2:
				run.Kill = &KillPlan{Mode: "call", Nth: 1 + r.IntN(40)}
			default:
				run.Kill = &KillPlan{Mode: "delay", DelayMS: 50 + r.IntN(700)}
			}
		}
		s.Runs = append(s.Runs, run)
	}
	last := s.Revisions - 1
	one := unreachable(1)
	s.Runs = append(s.Runs, AccRun{Revision: last, Unreachable: one, Final: true},
		AccRun{Revision: last, Unreachable: map[int]string{}, Final: true})
	s.Runs[len(s.Runs)-2].Max = s.UnreachableScopes(s.Runs[len(s.Runs)-2])
	return s, nil
}

// UnreachableScopes is how many of s's scopes run's unreachable accounts
// hold.
func (s AccScenario) UnreachableScopes(run AccRun) int {
	n := 0
	for _, sc := range s.Scopes {
		if _, ok := run.Unreachable[sc.Account]; ok {
			n++
		}
	}
	return n
}

// brokenPath is the document of the broken commit that is not encrypted.
func (s AccScenario) brokenPath() string { return s.Scopes[0].Scope.SourceRoot + "/broken.sops.json" }

// accConfig is the config file of s's runs: every scope through the
// OrganizationAccountAccessRole of its account (ids[Account]).
func accConfig(s AccScenario, ids []string) []byte {
	var b strings.Builder
	b.WriteString("repository-id: chaos/accounts\nscopes:\n")
	for _, sc := range s.Scopes {
		fmt.Fprintf(&b, "  - name: %s\n    source-root: %s\n    secret-prefix: %s\n    aws-region: %s\n    role-arn: arn:aws:iam::%s:role/OrganizationAccountAccessRole\n",
			sc.Name, sc.Scope.SourceRoot, sc.Scope.Prefix, sc.Region, ids[sc.Account])
	}
	return []byte(b.String())
}

// AccEvidence is what a played many-accounts scenario left: the account
// ids (by index), each run's result, the emulator's secrets after each
// run (States[0] before the first), and the calls the proxy saw.
type AccEvidence struct {
	IDs    []string
	Runs   []RunResult
	States []emulator.StateDump
	Calls  []Call
	STS    []STSCall
}

// PlayAccounts plays s against a fresh emulator process: it builds the
// organization (CreateOrganization by the CLI's base identity, one
// CreateAccount per account), writes the revisions, and runs each sync
// through the recording proxy (Secrets Manager) and the STS recorder,
// making the run's accounts unreachable just before it and reachable
// again after.
func PlayAccounts(cli, emuBin string, enc *Encrypter, dir string, s AccScenario) (AccEvidence, error) {
	var ev AccEvidence
	emu, err := StartEmulator(emuBin)
	if err != nil {
		return ev, err
	}
	defer emu.Close()
	ctx := context.Background()
	const key, secret = "AKIACHAOSACCOUNTS", "chaos-accounts-secret"
	if ev.IDs, err = buildOrganization(ctx, emu.URL, key, secret, s.Accounts); err != nil {
		return ev, err
	}
	revs := make([]map[string]Doc, s.Revisions)
	for i := range revs {
		revs[i] = map[string]Doc{}
		for _, sc := range s.Scopes {
			for p, d := range sc.Docs[i] {
				revs[i][p] = d
			}
		}
	}
	var plain []map[string][]byte
	if slices.ContainsFunc(s.Runs, func(r AccRun) bool { return r.Broken }) {
		revs = append(revs, revs[s.Revisions-1])
		plain = make([]map[string][]byte, len(revs))
		plain[s.Revisions] = map[string][]byte{s.brokenPath(): []byte(`{"password": "` + CanaryMarker + `plain"}`)}
	}
	repo, shas, err := commitRevisions(enc, dir, revs, plain)
	if err != nil {
		return ev, err
	}
	cfg := filepath.Join(dir, "scopes.yaml")
	if err := os.WriteFile(cfg, accConfig(s, ev.IDs), 0o600); err != nil {
		return ev, err
	}
	proxy, err := NewProxy(emu.URL)
	if err != nil {
		return ev, err
	}
	defer proxy.Close()
	sts, err := NewSTSRecorder(emu.URL)
	if err != nil {
		return ev, err
	}
	defer sts.Close()
	st, err := emu.State(ctx)
	if err != nil {
		return ev, err
	}
	ev.States = append(ev.States, st)
	home := filepath.Join(dir, "home")
	for i, run := range s.Runs {
		faults := emulator.Faults{}
		for a, m := range run.Unreachable {
			switch m {
			case AccRefuse:
				faults.STSRefuseAccounts = append(faults.STSRefuseAccounts, ev.IDs[a])
			case AccSilent:
				faults.STSSilentAccounts = append(faults.STSSilentAccounts, ev.IDs[a])
			case AccSuspended:
				if err := emu.SetAccountStatus(ctx, emulator.AccountStatus{AccountID: ev.IDs[a], Status: "SUSPENDED"}); err != nil {
					return ev, err
				}
			}
		}
		if err := emu.SetFaults(ctx, faults); err != nil {
			return ev, err
		}
		rev := run.Revision
		if run.Broken {
			rev = s.Revisions
		}
		report := filepath.Join(dir, fmt.Sprintf("report-%d.json", i+1))
		args := []string{"sync", "--repository", repo, "--revision", shas[rev], "--config", cfg, "--report-file", report,
			"--log-level", "debug", "--aws-max-backoff", "50ms", "--max-unreachable-scopes", strconv.Itoa(run.Max)}
		if run.Final {
			args = append(args, "--run-timeout", "90s", "--verification-timeout", "20s", "--operation-timeout", "3s")
		} else {
			args = append(args, "--run-timeout", "30s", "--verification-timeout", "5s", "--operation-timeout", "2s")
		}
		env := cliEnv(home, enc, key, secret, "AWS_ENDPOINT_URL_SECRETS_MANAGER="+proxy.URL, "AWS_ENDPOINT_URL_STS="+sts.URL,
			"AWS_SDK_UA_APP_ID="+RunAppID(i+1))
		sts.Arm(i + 1)
		var timer *time.Timer
		rr, err := execCLI(cli, args, env, report, func(kill func()) {
			var plan *KillPlan
			if k := run.Kill; k != nil && k.Mode == "delay" {
				timer = time.AfterFunc(time.Duration(k.DelayMS)*time.Millisecond, kill)
			} else {
				plan = run.Kill
			}
			proxy.Arm(i+1, plan, kill)
		})
		if timer != nil {
			timer.Stop()
		}
		proxy.Drain()
		proxy.Arm(0, nil, nil)
		if err != nil {
			return ev, err
		}
		rr.Revision = shas[rev]
		ev.Runs = append(ev.Runs, rr)
		if err := emu.SetFaults(ctx, emulator.Faults{}); err != nil {
			return ev, err
		}
		for a, m := range run.Unreachable {
			if m == AccSuspended {
				if err := emu.SetAccountStatus(ctx, emulator.AccountStatus{AccountID: ev.IDs[a], Status: "ACTIVE"}); err != nil {
					return ev, err
				}
			}
		}
		if st, err = emu.State(ctx); err != nil {
			return ev, err
		}
		ev.States = append(ev.States, st)
	}
	ev.Calls = proxy.Calls()
	ev.STS = sts.Take()
	return ev, nil
}

// buildOrganization makes the organization of a many-accounts scenario:
// the identity of key (the emulator's default account) creates it and n
// member accounts (acct-0 …), each with the role
// OrganizationAccountAccessRole trusting the management account; it
// returns their ids in order.
func buildOrganization(ctx context.Context, url, key, secret string, n int) ([]string, error) {
	c := organizations.New(organizations.Options{Region: ChaosRegion, BaseEndpoint: aws.String(url),
		Credentials: credentials.NewStaticCredentialsProvider(key, secret, "")})
	if _, err := c.CreateOrganization(ctx, &organizations.CreateOrganizationInput{FeatureSet: orgtypes.OrganizationFeatureSetAll}); err != nil {
		return nil, fmt.Errorf("CreateOrganization: %w", err)
	}
	var ids []string
	for i := range n {
		name := fmt.Sprintf("acct-%d", i)
		out, err := c.CreateAccount(ctx, &organizations.CreateAccountInput{AccountName: aws.String(name), Email: aws.String(name + "@example.com")})
		if err != nil {
			return nil, fmt.Errorf("CreateAccount: %w", err)
		}
		st, err := c.DescribeCreateAccountStatus(ctx, &organizations.DescribeCreateAccountStatusInput{CreateAccountRequestId: out.CreateAccountStatus.Id})
		if err != nil || st.CreateAccountStatus.State != orgtypes.CreateAccountStateSucceeded {
			return nil, fmt.Errorf("DescribeCreateAccountStatus: %v", err)
		}
		ids = append(ids, aws.ToString(st.CreateAccountStatus.AccountId))
	}
	return ids, nil
}

// accLive is the live (not scheduled for deletion) secrets of one scope
// in state: name → current SecretString and whether it carries the
// scope's ownership tags.
func accLive(st emulator.StateDump, account, region string, sc model.Scope) map[string]accSecret {
	out := map[string]accSecret{}
	for _, d := range st.Secrets {
		if d.Account != account || d.Region != region || !strings.HasPrefix(d.Name, sc.Prefix+"/") || d.DeletedDate != nil {
			continue
		}
		x := accSecret{owned: d.Tags[model.TagManagedBy] == model.ManagedByValue && d.Tags[model.TagScope] == sc.Digest()}
		for _, v := range d.Versions {
			if slices.Contains(v.Stages, "AWSCURRENT") && v.SecretString != nil {
				x.value = *v.SecretString
			}
		}
		out[d.Name] = x
	}
	return out
}

type accSecret struct {
	value string
	owned bool
}

// accountState is every secret of account in st, name and Region → its
// versions' ids and stages, for "nothing changed there".
func accountState(st emulator.StateDump, account string) string {
	var parts []string
	for _, d := range st.Secrets {
		if d.Account != account {
			continue
		}
		var vs []string
		for _, v := range d.Versions {
			vs = append(vs, v.VersionID+":"+strings.Join(v.Stages, "+"))
		}
		del := ""
		if d.DeletedDate != nil {
			del = " deleted"
		}
		parts = append(parts, d.Region+"/"+d.Name+del+" "+strings.Join(vs, ","))
	}
	slices.Sort(parts)
	return strings.Join(parts, "\n")
}

// CheckAccounts judges a played many-accounts scenario (pure). For each
// run i, with U the scopes its unreachable accounts hold and N its
// --max-unreachable-scopes:
//   - acc-applied-beyond-max: a run with U > N, or of the broken commit,
//     made a mutating call (killed or not): nothing is applied anywhere;
//   - acc-unreachable-written: a secret of an account unreachable for
//     the run changed during it;
//   - acc-crash, acc-report-missing (a run not killed without a report),
//     acc-exit-status (the exit code is not the report's status's);
//   - acc-silent-skip: the report of a run not killed leaves out a scope,
//     lists a scope of an unreachable account as converged or drift, lists
//     more scopes unreachable than N, or a reachable account's scope as
//     unreachable;
//   - acc-unexpected-outcome: a run not killed of a good commit ends other
//     than exit 0 converged (U = 0), exit 5 unreachable with exactly the
//     U scopes unreachable (0 < U ≤ N), or exit 5 observation-failed (U >
//     N); of the broken commit, other than exit 3 invalid or (U > N) exit
//     5;
//   - acc-not-converged: after a run that ended converged or
//     unreachable, a reachable scope does not hold exactly its documents
//     (names, current values, ownership tags) in its account and Region;
//   - acc-no-convergence: a final run does not end as above;
//   - acc-leak: an output holds a plaintext canary, SOPS ciphertext, an
//     age identity, a secret name or an account id.
func CheckAccounts(s AccScenario, ev AccEvidence) []Violation {
	var vs []Violation
	add := func(kind string, run int, detail string) {
		vs = append(vs, Violation{Kind: kind, Run: run, Detail: detail})
	}
	mutations := map[int]int{}
	for _, c := range ev.Calls {
		if Mutating(c.Op) {
			mutations[c.Run]++
		}
	}
	names := []Needle{}
	for _, sc := range s.Scopes {
		for _, docs := range sc.Docs {
			for p := range docs {
				names = append(names, Needle{Kind: "name", Text: SecretName(sc.Scope, p)})
			}
		}
	}
	var ids []Needle
	for _, id := range ev.IDs {
		ids = append(ids, Needle{Kind: "account-id", Text: id})
	}
	for i, rr := range ev.Runs {
		n := i + 1
		run := s.Runs[i]
		u := s.UnreachableScopes(run)
		tooMany := u > run.Max
		if (tooMany || run.Broken) && mutations[n] > 0 {
			add("acc-applied-beyond-max", n, fmt.Sprintf("%d mutating calls with %d scopes unreachable, --max-unreachable-scopes %d, broken %v", mutations[n], u, run.Max, run.Broken))
		}
		if i+1 < len(ev.States) {
			for a := range run.Unreachable {
				if accountState(ev.States[i], ev.IDs[a]) != accountState(ev.States[i+1], ev.IDs[a]) {
					add("acc-unreachable-written", n, fmt.Sprintf("account %d (%s) changed while unreachable", a, run.Unreachable[a]))
				}
			}
		}
		for _, l := range ScanRuns([]RunResult{rr}, append(append([]Needle{}, FixedNeedles...), ids...), names, false) {
			add("acc-leak", n, l.Kind+" in "+l.Where)
		}
		if crashed(append(append([]byte{}, rr.Stdout...), rr.Stderr...)) {
			add("acc-crash", n, fmt.Sprintf("exit %d with a Go panic", rr.Exit))
			continue
		}
		if rr.Killed {
			continue
		}
		var rep struct {
			Status vocab.Status `json:"status"`
			Scopes []struct {
				Name   string       `json:"name"`
				Status vocab.Status `json:"status"`
			} `json:"scopes"`
		}
		if rr.Report == nil || json.Unmarshal(rr.Report, &rep) != nil {
			add("acc-report-missing", n, fmt.Sprintf("exit %d without a readable report", rr.Exit))
			continue
		}
		if want := vocab.ExitCode(rep.Status, false); want != rr.Exit {
			add("acc-exit-status", n, fmt.Sprintf("status %s means exit %d, got %d", rep.Status, want, rr.Exit))
		}
		listed := map[string]vocab.Status{}
		for _, x := range rep.Scopes {
			listed[x.Name] = x.Status
		}
		skipped := 0
		for _, sc := range s.Scopes {
			st, ok := listed[sc.Name]
			_, down := run.Unreachable[sc.Account]
			switch {
			case !ok:
				add("acc-silent-skip", n, fmt.Sprintf("scope %s is not in the report", sc.Name))
			case st == vocab.StatusUnreachable && !down:
				add("acc-silent-skip", n, fmt.Sprintf("scope %s of a reachable account reported unreachable", sc.Name))
			case down && (st == vocab.StatusConverged || st == vocab.StatusDrift):
				add("acc-silent-skip", n, fmt.Sprintf("scope %s of an unreachable account reported %s", sc.Name, st))
			}
			if st == vocab.StatusUnreachable {
				skipped++
			}
		}
		if skipped > run.Max {
			add("acc-silent-skip", n, fmt.Sprintf("%d scopes skipped as unreachable, more than --max-unreachable-scopes %d", skipped, run.Max))
		}
		wantExit, wantStatus := 0, vocab.StatusConverged
		switch {
		case run.Broken && tooMany:
			wantExit, wantStatus = -1, ""
		case run.Broken:
			wantExit, wantStatus = 3, vocab.StatusInvalid
		case tooMany:
			wantExit, wantStatus = 5, vocab.StatusObservationFailed
		case u > 0:
			wantExit, wantStatus = 5, vocab.StatusUnreachable
		}
		kind := "acc-unexpected-outcome"
		if run.Final {
			kind = "acc-no-convergence"
		}
		switch {
		case wantExit == -1:
			if rr.Exit != 3 && rr.Exit != 5 {
				add(kind, n, fmt.Sprintf("broken commit with too many unreachable: exit %d, want 3 or 5", rr.Exit))
			}
		case rr.Exit != wantExit || rep.Status != wantStatus:
			add(kind, n, fmt.Sprintf("exit %d %s, want exit %d %s (%d scopes unreachable, --max-unreachable-scopes %d, broken %v)",
				rr.Exit, rep.Status, wantExit, wantStatus, u, run.Max, run.Broken))
		case wantStatus == vocab.StatusUnreachable && skipped != u:
			add(kind, n, fmt.Sprintf("%d scopes reported unreachable, want %d", skipped, u))
		}
		if rep.Status != vocab.StatusConverged && rep.Status != vocab.StatusUnreachable || i+1 >= len(ev.States) {
			continue
		}
		for _, sc := range s.Scopes {
			if _, down := run.Unreachable[sc.Account]; down {
				continue
			}
			live := accLive(ev.States[i+1], ev.IDs[sc.Account], sc.Region, sc.Scope)
			want := sc.Docs[run.Revision]
			bad := len(live) != len(want)
			for p, d := range want {
				x, ok := live[SecretName(sc.Scope, p)]
				bad = bad || !ok || !x.owned || x.value != string(d.Canon)
			}
			if bad {
				add("acc-not-converged", n, fmt.Sprintf("scope %s does not hold its revision's documents after %s", sc.Name, rep.Status))
			}
		}
	}
	return vs
}
