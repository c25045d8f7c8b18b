package e2e

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

// emu is one running secretsmanager-emulator process and its control API
// client (emulatortest.Control, failing the test on any error).
type emu struct {
	t   *testing.T
	URL string
	ctl emulatortest.Must
	raw emulatortest.Control
}

// mutating lists the Secrets Manager operations that change state.
var mutating = []string{
	"CreateSecret", "PutSecretValue", "UpdateSecret", "DeleteSecret", "RestoreSecret",
	"TagResource", "UntagResource", "UpdateSecretVersionStage",
}

// startEmulator starts the emulator binary on a free loopback port
// (--seed 1, then args) and stops it (SIGTERM, then wait) when the test ends.
func startEmulator(t *testing.T, args ...string) *emu {
	t.Helper()
	var stderr bytes.Buffer
	p, err := emulatortest.StartProcess(context.Background(), emulatorBin, &stderr, append([]string{"--seed", "1"}, args...)...)
	if err != nil { // stderr is read only once the process failed to start: it is still being written
		require.NoError(t, err, "emulator; stderr: %s", stderr.String())
	}
	t.Cleanup(func() { _ = p.Stop() })
	return &emu{t: t, URL: p.URL, ctl: p.Control().Must(t), raw: p.Control()}
}

// in is e for test t (a subtest of the one that started it): its
// failures are t's.
func (e *emu) in(t *testing.T) *emu { return &emu{t: t, URL: e.URL, ctl: e.raw.Must(t), raw: e.raw} }

func (e *emu) state() emulator.StateDump { e.t.Helper(); return e.ctl.State() }

func (e *emu) stats() emulator.Stats { e.t.Helper(); return e.ctl.Stats() }

func (e *emu) setFaults(f emulator.Faults) { e.t.Helper(); e.ctl.SetFaults(f) }

// setQuotas changes the quotas alone, also while the CLI runs.
func (e *emu) setQuotas(q emulator.Quotas) { e.t.Helper(); e.ctl.SetQuotas(q) }

func (e *emu) conditions(c emulator.Conditions) { e.t.Helper(); e.ctl.SetConditions(c) }

// mutatingCalls is the number of state-changing calls the emulator has seen.
func (e *emu) mutatingCalls() int64 {
	st := e.stats()
	var n int64
	for _, op := range mutating {
		n += st.Calls[op]
	}
	return n
}

// observationReads are the calls of a first observation (SPEC §4): the
// only calls a run whose desired state is rejected while it decrypts may
// have made, since reads overlap decryption (SPEC §3.2).
var observationReads = map[string]bool{"ListSecrets": true, "DescribeSecret": true, "BatchGetSecretValue": true, "GetSecretValue": true}

// onlyReads asserts that the emulator has seen no call but observation
// reads: nothing written, no STS, no other operation.
func (e *emu) onlyReads(msgAndArgs ...any) {
	e.t.Helper()
	for op, n := range e.stats().Calls {
		if n > 0 && !observationReads[op] {
			assert.Failf(e.t, "a call other than an observation read", "%s ×%d; %s", op, n, fmt.Sprint(msgAndArgs...))
		}
	}
}

// secret returns the secret named name from the emulator state, or nil.
func (e *emu) secret(name string) *emulator.SecretDump {
	for _, s := range e.state().Secrets {
		if s.Name == name {
			s := s
			return &s
		}
	}
	return nil
}

// currentValue is the AWSCURRENT SecretString of name ("" if none).
func (e *emu) currentValue(name string) string {
	s := e.secret(name)
	if s == nil {
		return ""
	}
	for _, v := range s.Versions {
		for _, st := range v.Stages {
			if st == "AWSCURRENT" && v.SecretString != nil {
				return *v.SecretString
			}
		}
	}
	return ""
}

// sdk returns a real aws-sdk-go-v2 client on the emulator, used by tests to
// play an out-of-band writer or a foreign owner.
func (e *emu) sdk() *secretsmanager.Client {
	return secretsmanager.New(secretsmanager.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(e.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDE2E", "e2e-secret", ""),
	})
}

func (e *emu) putValue(name, value string) {
	e.t.Helper()
	_, err := e.sdk().PutSecretValue(context.Background(), &secretsmanager.PutSecretValueInput{
		SecretId: aws.String(name), SecretString: aws.String(value),
	})
	require.NoError(e.t, err, "out-of-band PutSecretValue")
}

func (e *emu) String() string { return fmt.Sprintf("emulator at %s", e.URL) }
