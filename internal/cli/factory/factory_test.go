package factory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/wirefile"
)

// onePort is the port NewPorts builds for one scope named default with
// the AWS options o; its error is NewPorts' first diagnostic.
func onePort(ctx context.Context, o config.AWS) (engine.Port, error) {
	ps, err := NewPorts(ctx, Trail{}, []config.Scope{{Name: model.DefaultScopeName, AWS: o}}, nil, 0)
	if err != nil {
		var ds diag.Diagnostics
		if errors.As(err, &ds) && len(ds) > 0 {
			return nil, ds[0]
		}
		return nil, err
	}
	return ps[0].Port, nil
}

// awsEnv points the SDK's default chain at srv through the standard
// endpoint variable, with static credentials and no shared files.
func awsEnv(t *testing.T, url string) {
	dir := t.TempDir()
	t.Setenv("AWS_ENDPOINT_URL_SECRETS_MANAGER", url)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_DEFAULT_REGION", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
}

// The real SDK client built by NewPorts honours the endpoint variable and
// the retry override: one attempt fails on a scripted 5xx, two succeed.
func TestNewPortsEndpointAndRetryOverride(t *testing.T) {
	srv := emulatortest.Start(t)
	awsEnv(t, srv.URL)
	fault := emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "ListSecrets", Nth: 1, Fault: "error:InternalServiceError"}}}

	srv.SetFaults(t, fault)
	p, err := onePort(context.Background(), config.AWS{MaxAttempts: 1})
	require.NoError(t, err)
	_, err = p.ListCandidates(context.Background(), "0000000000000000000000000000000000000000000000000000000000000000")
	require.Error(t, err)
	var pe *engine.Error
	require.True(t, errors.As(err, &pe), "adapter errors are reduced: %T", err)
	assert.Equal(t, int64(1), srv.Stats(t).Calls["ListSecrets"])

	srv.SetFaults(t, fault)
	p, err = onePort(context.Background(), config.AWS{MaxAttempts: 2})
	require.NoError(t, err)
	_, err = p.ListCandidates(context.Background(), "0000000000000000000000000000000000000000000000000000000000000000")
	require.NoError(t, err)
	st := srv.Stats(t)
	assert.Equal(t, int64(3), st.Calls["ListSecrets"], "one failed + one retried call")
	assert.Equal(t, int64(1), st.Retries["ListSecrets"], "the second attempt is the SDK's retry (Amz-Sdk-Request attempt=2)")
}

// TestConnectionChurnAtHighConcurrency: rounds of 32 concurrent calls must
// reuse their connections. With the SDK's default transport (10 idle
// connections per host) each round after the first reopened 22 (230 for 10
// rounds). A connection goes back to the idle pool just after its answer is
// read, so a call of the next round may occasionally dial a new one: up to
// twice the concurrency is tolerated.
func TestConnectionChurnAtHighConcurrency(t *testing.T) {
	srv := emulatortest.Start(t)
	awsEnv(t, srv.URL)
	srv.SetFaults(t, emulator.Faults{LatencyMS: 20}) // the 32 calls of a round overlap
	const conc, rounds = 32, 10
	p, err := onePort(context.Background(), config.AWS{Concurrency: conc})
	require.NoError(t, err)
	before := srv.Emu.Stats().Connections
	for range rounds {
		var wg sync.WaitGroup
		for i := range conc {
			wg.Go(func() {
				_, err := p.Describe(context.Background(), fmt.Sprintf("app/s%02d", i))
				assert.NoError(t, err)
			})
		}
		wg.Wait()
	}
	opened := srv.Emu.Stats().Connections - before
	assert.LessOrEqual(t, opened, int64(2*conc), "%d rounds of %d concurrent calls opened %d connections", rounds, conc, opened)
	t.Logf("%d rounds of %d concurrent calls opened %d connections", rounds, conc, opened)
	assert.Equal(t, 10, idleConnections(0), "without a concurrency the SDK default stays")
}

func TestNewPortsConfigErrors(t *testing.T) {
	srv := emulatortest.Start(t)
	awsEnv(t, srv.URL)
	_, err := onePort(context.Background(), config.AWS{Profile: "no-such-profile"})
	var ae diag.Diagnostic
	require.True(t, errors.As(err, &ae))
	assert.Equal(t, "aws:config", ae.Class)

	t.Setenv("AWS_REGION", "")
	_, err = onePort(context.Background(), config.AWS{})
	require.True(t, errors.As(err, &ae))
	assert.Equal(t, "aws:no-region", ae.Class)

	p, err := onePort(context.Background(), config.AWS{Region: "eu-west-1"})
	require.NoError(t, err)
	assert.NotNil(t, p)
}

func TestBuildInfoLine(t *testing.T) {
	assert.Equal(t, "sops-aws-sync v1.2.3 (abc) built 2026-01-01", BuildInfo{"v1.2.3", "abc", "2026-01-01"}.Line())
	assert.Equal(t, "sops-aws-sync dev (unknown) built unknown", BuildInfo{}.Line())
}

func TestReadSmallFileIsBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	require.NoError(t, os.WriteFile(p, make([]byte, 3<<20), 0o600))
	b, err := readSmallFile(p)
	require.NoError(t, err)
	assert.Equal(t, 1<<20+1, len(b))
}

// TestRegression_ConfigFileThatIsAFIFO: --config naming a FIFO with no
// writer (or a device) is refused at once as not a regular file; before,
// the read blocked in open and the run never started.
func TestRegression_ConfigFileThatIsAFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, syscall.Mkfifo(p, 0o600))
	for _, name := range []string{p, "/dev/null", t.TempDir()} {
		_, err := readSmallFile(name)
		assert.ErrorIs(t, err, wirefile.ErrNotRegular, name)
	}
}
