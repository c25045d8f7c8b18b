package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// mutatingTargets are the Secrets Manager operations that change state.
var mutatingTargets = map[string]bool{
	"secretsmanager.CreateSecret": true, "secretsmanager.PutSecretValue": true, "secretsmanager.UpdateSecret": true,
	"secretsmanager.DeleteSecret": true, "secretsmanager.RestoreSecret": true, "secretsmanager.TagResource": true,
	"secretsmanager.UntagResource": true,
}

// accessKeyOf returns the access key id of a SigV4-signed request (the
// Credential= field of its Authorization header), or "".
func accessKeyOf(r *http.Request) string {
	_, after, ok := strings.Cut(r.Header.Get("Authorization"), "Credential=")
	if !ok {
		return ""
	}
	key, _, _ := strings.Cut(after, "/")
	return key
}

// applyBarrier is a loopback proxy in front of the emulator that holds
// every mutating call until each of the callers (told apart by the access
// key id they sign with, one per process) has sent one, then lets them
// all through. A sync sends its first mutating call only after its whole
// plan is built, so the processes started together plan against the same
// (empty) scope however late one of them starts or however slowly its
// reads run: a deterministic race, no sleeps. Holding only ListSecrets was
// not enough: it released both runs when the later one began discovery,
// and on a loaded machine the earlier run's creates reached names the
// later one had not described yet (CI saw 58 of 60 creates planned).
func applyBarrier(t *testing.T, target string, keys ...string) string {
	t.Helper()
	u, err := url.Parse(target)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(u)
	var (
		mu      sync.Mutex
		arrived = map[string]bool{}
		all     = make(chan struct{})
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if mutatingTargets[r.Header.Get("X-Amz-Target")] {
			mu.Lock()
			k := accessKeyOf(r)
			if slices.Contains(keys, k) && !arrived[k] {
				arrived[k] = true
				if len(arrived) == len(keys) {
					close(all)
				}
			}
			mu.Unlock()
			select {
			case <-all:
			case <-time.After(2 * time.Minute): // a guard against a hung test, not synchronisation
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestConcurrentSyncsOneScope_NoApplyFailed (issue 15, finding 3): two sync
// processes of one commit start at once on an empty scope and both plan the
// same 60 creates. Neither ends apply-failed (exit 5): each create that
// meets the other's secret is re-observed and accepted. One converges, the
// other converges or exits 6; every secret holds its value in exactly one
// version, the two runs' creates add up to 60, and a re-run is a converged
// no-op.
func TestConcurrentSyncsOneScope_NoApplyFailed(t *testing.T) {
	const n = 60
	f := newFixture(t)
	e := startEmulator(t)
	for i := range n {
		v := fmt.Sprintf("CANARY-c%02d-%s", i, token(4))
		rel := fmt.Sprintf("secrets/c%02d.sops.json", i)
		f.writeDoc(rel, `{"v":"`+v+`"}`, "")
		f.Values = append(f.Values, v)
		f.Names = append(f.Names, f.nameOf(rel))
	}
	f.commit("sixty documents")

	// Two access keys of the default account tell the processes apart.
	proxyURL := applyBarrier(t, e.URL, "AKIDE2EA", "AKIDE2EB")
	a := f.start(e, runOpts{Env: []string{"AWS_ENDPOINT_URL_SECRETS_MANAGER=" + proxyURL, "AWS_ACCESS_KEY_ID=AKIDE2EA"}}, f.args("sync")...)
	b := f.start(e, runOpts{Env: []string{"AWS_ENDPOINT_URL_SECRETS_MANAGER=" + proxyURL, "AWS_ACCESS_KEY_ID=AKIDE2EB"}}, f.args("sync")...)
	ra, rb := a.wait(), b.wait()

	creates := 0
	converged := 0
	for _, r := range []result{ra, rb} {
		require.NotNil(t, r.Report, "no report\nstdout:\n%s", r.Stdout)
		t.Logf("exit %d, status %s, counts %+v", r.Code, r.Report.Status, r.Report.Counts)
		assert.NotEqual(t, vocab.ExitApply, r.Code, "exit 5 on a concurrent create\nstdout:\n%s", r.Stdout)
		require.Contains(t, []int{vocab.ExitOK, vocab.ExitVerify}, r.Code, "stdout:\n%s", r.Stdout)
		if r.Code == 0 {
			converged++
			assert.Equal(t, n, r.Report.Counts.Create+r.Report.Counts.Unchanged, "a converged run accounts for every secret")
		}
		planned := findRecord(r.records(t), func(m map[string]any) bool { return m["msg"] == "plan built" })
		require.NotNil(t, planned)
		require.EqualValues(t, n, planned["count"], "both runs planned every create: the race happened")
		creates += r.Report.Counts.Create
	}
	assert.GreaterOrEqual(t, converged, 1, "at least one of the two syncs converges")
	assert.Equal(t, n, creates, "each secret was created by exactly one of the runs, and only that one counts it")
	for i, name := range f.Names {
		s := e.secret(name)
		require.NotNil(t, s, name)
		assert.Len(t, s.Versions, 1, "secret %d written more than once", i)
		assert.Equal(t, `{"v":"`+f.Values[i]+`"}`, e.currentValue(name))
	}

	before := e.mutatingCalls()
	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: n})
	assert.Equal(t, before, e.mutatingCalls(), "the re-run is a no-op")
}
