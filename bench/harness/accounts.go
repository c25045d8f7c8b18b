package harness

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/organizations"
	orgtypes "github.com/aws/aws-sdk-go-v2/service/organizations/types"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
)

// Many-accounts rows (SPEC §17; docs/benchmarks.md, "Many accounts"):
// one run over A scopes, one per account (each its own (account, Region)
// bucket), each scope's role assumed through STS, n secrets per scope.

// The many-accounts scenarios: a no-op sync over every account, and the
// same with U of the accounts unreachable (STS refuses their roles) and
// --max-unreachable-scopes U.
const (
	AccountsNoop        Kind = "no-op sync, many accounts"
	AccountsUnreachable Kind = "no-op sync, many accounts, some unreachable"
	// OrgGenerate is `scopes generate --from-organizations` over an
	// organization of many accounts in several OUs (not a sync: N is the
	// accounts, the calls are Organizations').
	OrgGenerate Kind = "scopes generate"
)

// ManyAccounts reports whether k is a many-accounts sync scenario.
func (k Kind) ManyAccounts() bool { return k == AccountsNoop || k == AccountsUnreachable }

// AccountsScenario is the shape of a many-accounts run (Scenario.Accounts).
type AccountsScenario struct {
	// Accounts is how many scopes the run holds, one per account, all in
	// one Region; Unreachable how many of those accounts STS refuses.
	Accounts, Unreachable int
	// Parallel is --parallel-scopes as resolved by the CLI (buckets
	// worked on at once).
	Parallel int
	// OUs is, for OrgGenerate, the OUs the N accounts are spread over.
	OUs int
}

// PerAccount is the desired documents of one scope of s.
func (s Scenario) PerAccount() int {
	if s.Accounts.Accounts <= 0 {
		return s.N
	}
	return s.N / s.Accounts.Accounts
}

// Reachable is how many of s's accounts can be reached.
func (s Scenario) Reachable() int { return s.Accounts.Accounts - s.Accounts.Unreachable }

// AccountID is the 12-digit id of the i-th benchmark account.
func AccountID(i int) string { return fmt.Sprintf("%012d", 200000000000+i) }

// AccountRole is the role the benchmark assumes in account i.
func AccountRole(i int) string { return "arn:aws:iam::" + AccountID(i) + ":role/bench-sync" }

// AccountKey is the access key id the harness seeds account i with
// (mapped to the account by the emulator's IAM configuration).
func AccountKey(i int) string { return fmt.Sprintf("AKIDBENCHACCT%04d", i) }

// AccountsIAM is the emulator's identity configuration for accounts
// 0..n-1: each AccountKey mapped to its account; no role listed, so STS
// lets the base credentials assume any role (docs/emulator.md, STS).
func AccountsIAM(n int) map[string]string {
	keys := map[string]string{}
	for i := range n {
		keys[AccountKey(i)] = AccountID(i)
	}
	return keys
}

// accountsBound is LowerBound for the many-accounts kinds. Each reachable
// bucket needs its role's AssumeRole (one STS call, Ls) before its
// observation obs(n) (the single-scope formula at n documents and C calls
// in flight); at most P buckets are worked on at once, so the buckets
// take at least ⌈(A − U)/P⌉ waves of Ls + obs(n). A refused AssumeRole
// costs Ls in a slot too, which the waves can hide: it is left out of a
// lower bound. Decryption and process start-up are excluded, as in every
// bound of the harness.
func (m Model) accountsBound(s Scenario) (time.Duration, string) {
	n := s.PerAccount()
	obs := m.Observe(n, n, n, s.Concurrency)
	waves := ceilDiv(s.Reachable(), max(1, s.Accounts.Parallel))
	return time.Duration(waves) * (m.STSLatency + obs), "⌈(A − U)/P⌉·(Lₛ + obs(n))"
}

// The tool's own STS pace (internal/pace: STSReads, 100 calls a second,
// a burst of an eighth of a second's worth): a sixth of STS's quota.
const (
	STSPaceRate  = 100
	STSPaceBurst = STSPaceRate / 8
)

// PacedSTS is the least time of the tool's algorithm (internal/cli/factory
// NewPorts): every role assumed before the first scope is read, at most P
// at once, the AssumeRoles paced at 100/s with a burst of 12; then the
// buckets in waves:
//
//	max(⌈A/P⌉·Ls, (A − 12)/100 s + Ls) + ⌈(A − U)/P⌉·obs(n)
//
// It is above the lower bound by design (the pace, and the assumptions not
// overlapping the reads).
func (m Model) PacedSTS(s Scenario) time.Duration {
	n, a, p := s.PerAccount(), s.Accounts.Accounts, max(1, s.Accounts.Parallel)
	obs := m.Observe(n, n, n, s.Concurrency)
	sts := max(time.Duration(ceilDiv(a, p))*m.STSLatency, quotaWait(a+STSPaceRate-STSPaceBurst, STSPaceRate)+m.STSLatency)
	return sts + time.Duration(ceilDiv(s.Reachable(), p))*obs
}

// accountsExpected is ExpectedCalls for the many-accounts kinds: one
// AssumeRole per role (refused ones included: STS's AccessDenied is not
// retried) and the no-op observation of every reachable scope; no
// GetCallerIdentity (every scope names a role).
func accountsExpected(s Scenario) Calls {
	n, k := s.PerAccount(), int64(s.Reachable())
	out := Calls{"AssumeRole": int64(s.Accounts.Accounts), "ListSecrets": k * int64(max(1, ceilDiv(n, ListPageSize))), "DescribeSecret": k * int64(n)}
	if b := ceilDiv(n, ValueBatch); b > 0 {
		out["BatchGetSecretValue"] = k * int64(b)
	}
	return out
}

// NewClientAs is NewClient signing with access key id key (the emulator
// routes the calls to the key's account).
func NewClientAs(url, key string) *secretsmanager.Client {
	return secretsmanager.New(secretsmanager.Options{
		Region:       benchRegion,
		Credentials:  credentials.NewStaticCredentialsProvider(key, "bench-secret", ""),
		BaseEndpoint: aws.String(url),
		HTTPClient:   seedHTTPClient(),
	})
}

// SeedAccounts creates, in account i, the owned secrets of corpora[i]
// (exactly what Seed creates), through a client signing with AccountKey(i).
// Run it with the emulator's faults off and AccountsIAM set.
func SeedAccounts(ctx context.Context, url string, corpora []Corpus) error {
	type job struct{ acct, doc int }
	var jobs []job
	for i, c := range corpora {
		for j := range c.Docs {
			jobs = append(jobs, job{i, j})
		}
	}
	clients := make([]*secretsmanager.Client, len(corpora))
	for i := range corpora {
		clients[i] = NewClientAs(url, AccountKey(i))
	}
	return parallel(ctx, len(jobs), func(ctx context.Context, k int) error {
		c := corpora[jobs[k].acct]
		d := c.Docs[jobs[k].doc]
		tags := c.Tags(d)
		var tt []types.Tag
		for _, key := range slices.Sorted(maps.Keys(tags)) {
			tt = append(tt, types.Tag{Key: aws.String(key), Value: aws.String(tags[key])})
		}
		_, err := clients[jobs[k].acct].CreateSecret(ctx, &secretsmanager.CreateSecretInput{
			Name: aws.String(d.Name), SecretString: aws.String(string(d.Value)), Tags: tt,
		})
		if err != nil {
			return fmt.Errorf("seed account %d CreateSecret %d: %w", jobs[k].acct, jobs[k].doc, err)
		}
		return nil
	})
}

// AccountsConfig is the config file of a many-accounts run: one scope per
// corpus, named a000…, in account i through AccountRole(i), us-east-1.
func AccountsConfig(corpora []Corpus) string {
	var b strings.Builder
	fmt.Fprintf(&b, "repository-id: %s\nscopes:\n", corpora[0].Scope.RepositoryID)
	for i, c := range corpora {
		fmt.Fprintf(&b, "  - name: a%03d\n    source-root: %s\n    secret-prefix: %s\n    aws-region: %s\n    role-arn: %s\n",
			i, c.Scope.SourceRoot, c.Scope.Prefix, benchRegion, AccountRole(i))
	}
	return b.String()
}

// DelayProxy is a reverse proxy that forwards every request to the
// emulator after Delay: the per-call latency of STS, which the emulator
// does not inject into STS calls (docs/emulator.md, STS).
type DelayProxy struct {
	URL  string
	srv  *http.Server
	done chan struct{}
}

// StartDelayProxy serves on a free loopback port and forwards to target
// after d per request.
func StartDelayProxy(target string, d time.Duration) (*DelayProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
		rp.ServeHTTP(w, r)
	})
	ln, err := listenLoopback()
	if err != nil {
		return nil, err
	}
	p := &DelayProxy{URL: "http://" + ln.Addr().String(), srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, done: make(chan struct{})}
	go func() { defer close(p.done); _ = p.srv.Serve(ln) }()
	return p, nil
}

func listenLoopback() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

// Close stops the proxy.
func (p *DelayProxy) Close() {
	_ = p.srv.Close()
	<-p.done
}

// OrgShape is the organization of the scopes generate row: Accounts
// member accounts spread evenly over OUs organizational units under the
// root (plus the management account in the root).
type OrgShape struct{ Accounts, OUs int }

// OrgGenerateMinimum is the Organizations calls `scopes generate` must
// make at least over o with pages of 20 (docs/many-accounts.md): one
// ListRoots; one ListOrganizationalUnitsForParent page per unit (the root
// and each OU, none holding more than 20 OUs); ⌈accounts/20⌉ (at least
// one) ListAccountsForParent pages per unit. No tag is read (no
// --account-tag).
func OrgGenerateMinimum(o OrgShape) Calls {
	accPages := 1 // the root: the management account alone
	for k := range o.OUs {
		accPages += max(1, ceilDiv(ouAccounts(o, k), 20))
	}
	return Calls{"organizations:ListRoots": 1, "organizations:ListOrganizationalUnitsForParent": int64(1 + o.OUs),
		"organizations:ListAccountsForParent": int64(accPages)}
}

// ouAccounts is how many accounts OU k of o holds.
func ouAccounts(o OrgShape, k int) int {
	n := o.Accounts / o.OUs
	if k < o.Accounts%o.OUs {
		n++
	}
	return n
}

// OrgReadRate is the emulator's quota of the Organizations reads
// (requests per second, one bucket shared by every read; docs/emulator.md,
// Organizations: AWS publishes no rate for most of them) and the pace of
// the tool's reads.
const OrgReadRate = 10

// orgBound is LowerBound for OrgGenerate: the minimum's calls, each at
// least L, under the reads' quota of 10/s with a bucket of one second's
// worth: max(L, (k − 10)/10 s + L) for k calls (the listing of one unit
// follows the other, but the units could be read at once).
func (m Model) orgBound(s Scenario) (time.Duration, string) {
	k := int(OrgGenerateMinimum(OrgShape{Accounts: s.N, OUs: s.Accounts.OUs}).Total())
	return quotaWait(k, OrgReadRate) + m.Latency, "(k − 10)/10 s + L"
}

// BuildOrganization makes, in the emulator at url, an organization whose
// management account is the harness's default identity, with o.OUs OUs
// under the root (ou-00 …) and o.Accounts accounts (acct-000 …) created
// by CreateAccount and moved into them round-robin. Run it with faults
// off.
func BuildOrganization(ctx context.Context, url string, o OrgShape) error {
	c := organizations.New(organizations.Options{Region: benchRegion, BaseEndpoint: aws.String(url), Credentials: benchCredentials, HTTPClient: seedHTTPClient()})
	if _, err := c.CreateOrganization(ctx, &organizations.CreateOrganizationInput{FeatureSet: orgtypes.OrganizationFeatureSetAll}); err != nil {
		return fmt.Errorf("CreateOrganization: %w", err)
	}
	roots, err := c.ListRoots(ctx, &organizations.ListRootsInput{})
	if err != nil || len(roots.Roots) != 1 {
		return fmt.Errorf("ListRoots: %v", err)
	}
	root := aws.ToString(roots.Roots[0].Id)
	ous := make([]string, o.OUs)
	for k := range o.OUs {
		out, err := c.CreateOrganizationalUnit(ctx, &organizations.CreateOrganizationalUnitInput{ParentId: aws.String(root), Name: aws.String(fmt.Sprintf("ou-%02d", k))})
		if err != nil {
			return fmt.Errorf("CreateOrganizationalUnit: %w", err)
		}
		ous[k] = aws.ToString(out.OrganizationalUnit.Id)
	}
	return parallel(ctx, o.Accounts, func(ctx context.Context, i int) error {
		name := fmt.Sprintf("acct-%03d", i)
		out, err := c.CreateAccount(ctx, &organizations.CreateAccountInput{AccountName: aws.String(name), Email: aws.String(name + "@example.com")})
		if err != nil {
			return fmt.Errorf("CreateAccount %d: %w", i, err)
		}
		st, err := c.DescribeCreateAccountStatus(ctx, &organizations.DescribeCreateAccountStatusInput{CreateAccountRequestId: out.CreateAccountStatus.Id})
		if err != nil || st.CreateAccountStatus.State != orgtypes.CreateAccountStateSucceeded {
			return fmt.Errorf("DescribeCreateAccountStatus %d: %v", i, err)
		}
		_, err = c.MoveAccount(ctx, &organizations.MoveAccountInput{AccountId: st.CreateAccountStatus.AccountId,
			SourceParentId: aws.String(root), DestinationParentId: aws.String(ous[i%o.OUs])})
		if err != nil {
			return fmt.Errorf("MoveAccount %d: %w", i, err)
		}
		return nil
	})
}

// The many-accounts targets (docs/benchmarks.md, "Many accounts").
const (
	// AccountsNoopLimit is the wall/bound allowed to the no-op sync over
	// every account, AccountsUnreachableLimit to the run with some
	// unreachable.
	AccountsNoopLimit        = 1.2
	AccountsUnreachableLimit = 1.3
	// AccountsRSSLimitKiB is the peak RSS allowed to a many-accounts run
	// (300 MiB).
	AccountsRSSLimitKiB = 300 * 1024
)

// JudgeAccounts is one verdict per many-accounts or scopes generate row:
// wall within its limit of the bound, peak RSS ≤ 300 MiB, exactly one
// AssumeRole per role, and the outcome the row must end with (its
// Problems, set by the runner, empty); for scopes generate the
// Organizations calls equal to the page-count minimum.
func JudgeAccounts(rows []*Row) []Verdict {
	var out []Verdict
	for _, r := range rows {
		s := r.Scenario
		var v Verdict
		switch s.Kind {
		case OrgGenerate:
			v.Target = fmt.Sprintf("scopes generate over %d accounts in %d OUs: Organizations calls = the page-count minimum", s.N, s.Accounts.OUs)
		case AccountsNoop:
			v.Target = fmt.Sprintf("no-op sync, %d accounts × %d secrets, --parallel-scopes %d: wall ≤ %.1f× bound, peak RSS ≤ 300 MiB, 1 AssumeRole per role, exit 0",
				s.Accounts.Accounts, s.PerAccount(), s.Accounts.Parallel, AccountsNoopLimit)
		case AccountsUnreachable:
			v.Target = fmt.Sprintf("the same with %d accounts unreachable, --max-unreachable-scopes %d: the other %d converge, exit 5, wall ≤ %.1f× bound",
				s.Accounts.Unreachable, s.Accounts.Unreachable, s.Reachable(), AccountsUnreachableLimit)
		default:
			continue
		}
		if r.Skipped != "" {
			out = append(out, v)
			continue
		}
		v.Known = true
		sent := r.Delta.Sent()
		if s.Kind == OrgGenerate {
			want := OrgGenerateMinimum(OrgShape{Accounts: s.N, OUs: s.Accounts.OUs})
			got := Calls{}
			for op, n := range sent {
				if strings.HasPrefix(op, "organizations:") {
					got[op] = n
				}
			}
			v.Pass = maps.Equal(got, want) && len(r.Problems) == 0
			v.Detail = fmt.Sprintf("%d calls (%s), minimum %d; wall %s (bound %s, the reads' 10/s quota)", got.Total(), FormatCalls(got), want.Total(),
				FormatDuration(r.Wall), FormatDuration(r.Bound))
		} else {
			limit := AccountsNoopLimit
			if s.Kind == AccountsUnreachable {
				limit = AccountsUnreachableLimit
			}
			okWall, okRSS := r.Ratio() <= limit, r.MaxRSSKiB <= AccountsRSSLimitKiB
			okSTS := sent["AssumeRole"] == int64(s.Accounts.Accounts)
			v.Pass = okWall && okRSS && okSTS && len(r.Problems) == 0
			v.Detail = fmt.Sprintf("%s / %s = %.2f %s; peak RSS %.0f MiB %s; AssumeRole %d for %d roles %s; CPU %s; exit %d, %s",
				FormatDuration(r.Wall), FormatDuration(r.Bound), r.Ratio(), mark(okWall), float64(r.MaxRSSKiB)/1024, mark(okRSS),
				sent["AssumeRole"], s.Accounts.Accounts, mark(okSTS), FormatDuration(r.CPU), r.ExitCode, r.Status)
		}
		if len(r.Problems) > 0 {
			v.Detail += "; " + strings.Join(r.Problems, "; ")
		}
		out = append(out, v)
	}
	return out
}

// AccountsTable renders many-accounts and scopes generate rows: wall,
// CPU (user + system) and what the CLI logged of its phases beside the
// bound, the tool's own floor (floor, e.g. Model.PacedSTS; "—" for
// scopes generate) and the calls.
func AccountsTable(rows []*Row, floor func(Scenario) time.Duration) string {
	var b strings.Builder
	b.WriteString("| scenario | accounts × secrets | --parallel-scopes | wall | CPU (user + sys) | desired state loaded | lower bound | wall / bound | the tool's floor | AssumeRole | API calls | calls by operation | throttled | peak RSS | load (1 min) | result |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|---|\n")
	for _, r := range rows {
		s := r.Scenario
		shape := fmt.Sprintf("%d × %d", s.Accounts.Accounts, s.PerAccount())
		par := fmt.Sprint(s.Accounts.Parallel)
		if s.Kind == OrgGenerate {
			shape, par = fmt.Sprintf("%d accounts in %d OUs", s.N, s.Accounts.OUs), "—"
		} else if s.Accounts.Unreachable > 0 {
			shape += fmt.Sprintf(" (%d unreachable)", s.Accounts.Unreachable)
		}
		if r.ConcurrencyLabel != "" && s.Kind != OrgGenerate {
			par = r.ConcurrencyLabel
		}
		fl := "—"
		if s.Kind.ManyAccounts() && floor != nil {
			fl = FormatDuration(floor(s))
		}
		if r.Skipped != "" {
			fmt.Fprintf(&b, "| %s | %s | %s | — | — | — | %s | — | %s | — | — | — | — | — | — | not run: %s |\n", s.Kind, shape, par, FormatDuration(r.Bound), fl, r.Skipped)
			continue
		}
		result := fmt.Sprintf("exit %d, %s", r.ExitCode, r.Status)
		if r.Counts != "" {
			result += " (" + r.Counts + ")"
		}
		if len(r.Problems) > 0 {
			result += "; **" + strings.Join(r.Problems, "; ") + "**"
		}
		sent := r.Delta.Sent()
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %.2f | %s | %d | %d | %s | %d | %.0f MiB | %s | %s |\n",
			s.Kind, shape, par, FormatDuration(r.Wall), FormatDuration(r.CPU), FormatDuration(r.Decrypt()), FormatDuration(r.Bound), r.Ratio(), fl,
			sent["AssumeRole"], r.Delta.Calls.Total(), FormatCalls(r.Delta.Calls), r.Delta.Throttled.Total(), float64(r.MaxRSSKiB)/1024, r.Load+" → "+r.LoadAfter, result)
	}
	return b.String()
}
