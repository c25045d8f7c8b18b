package emulatortest

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/organizations"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// Server is a running emulator: URL is its base URL (http://127.0.0.1:port),
// Emu the emulator itself for direct Go access.
type Server struct {
	URL string
	Emu *emulator.Emulator
}

// Start serves a new emulator built with opts on 127.0.0.1 until the test
// ends.
func Start(t testing.TB, opts ...emulator.Option) *Server {
	t.Helper()
	emu := emulator.New(opts...)
	ts := httptest.NewUnstartedServer(emu)
	ts.Config.ConnState = emu.ConnState
	ts.Start()
	t.Cleanup(ts.Close)
	return &Server{URL: ts.URL, Emu: emu}
}

// Client returns the real aws-sdk-go-v2 Secrets Manager client for this
// server: static credentials of the default account, the emulator's default
// Region (us-east-1 unless WithRegion), BaseEndpoint = URL, the SDK's
// default (standard) retryer. optFns run last and may change anything.
func (s *Server) Client(t testing.TB, optFns ...func(*secretsmanager.Options)) *secretsmanager.Client {
	t.Helper()
	return s.ClientIn(t, s.Emu.Region(), DefaultAccessKey, optFns...)
}

// DefaultAccessKey is the access key id of Server.Client: a key no IAM
// configuration maps, so it belongs to the default account.
const DefaultAccessKey = "AKIDEMULATOR0000DEFAULT"

// ClientIn returns the real Secrets Manager client for this server signing
// in region with the static access key id accessKey (the emulator maps it
// to an account, see emulator.IAM), as Client otherwise.
func (s *Server) ClientIn(t testing.TB, region, accessKey string, optFns ...func(*secretsmanager.Options)) *secretsmanager.Client {
	t.Helper()
	return s.ClientWith(t, region, credentials.NewStaticCredentialsProvider(accessKey, "emulator-secret", ""), optFns...)
}

// ClientWith returns the real Secrets Manager client for this server
// signing in region with creds (e.g. an STS assume-role provider).
func (s *Server) ClientWith(t testing.TB, region string, creds aws.CredentialsProvider, optFns ...func(*secretsmanager.Options)) *secretsmanager.Client {
	t.Helper()
	o := secretsmanager.Options{
		Region:       region,
		Credentials:  creds,
		BaseEndpoint: aws.String(s.URL),
	}
	return secretsmanager.New(o, optFns...)
}

// SSMClient returns the real aws-sdk-go-v2 Systems Manager client for this
// server (Parameter Store on the same listener), with the same credentials,
// Region and endpoint as Client.
func (s *Server) SSMClient(t testing.TB, optFns ...func(*ssm.Options)) *ssm.Client {
	t.Helper()
	return s.SSMClientIn(t, s.Emu.Region(), DefaultAccessKey, optFns...)
}

// SSMClientIn returns the real Systems Manager client signing in region
// with the static access key id accessKey, as ClientIn.
func (s *Server) SSMClientIn(t testing.TB, region, accessKey string, optFns ...func(*ssm.Options)) *ssm.Client {
	t.Helper()
	o := ssm.Options{
		Region:       region,
		Credentials:  credentials.NewStaticCredentialsProvider(accessKey, "emulator-secret", ""),
		BaseEndpoint: aws.String(s.URL),
	}
	return ssm.New(o, optFns...)
}

// OrganizationsClient returns the real aws-sdk-go-v2 Organizations client
// for this server (BaseEndpoint = URL, as AWS_ENDPOINT_URL_ORGANIZATIONS
// would set it) signing in the emulator's default Region with the static
// access key id accessKey ("" for DefaultAccessKey: the default account,
// which becomes the management account when it creates the organization).
func (s *Server) OrganizationsClient(t testing.TB, accessKey string, optFns ...func(*organizations.Options)) *organizations.Client {
	t.Helper()
	if accessKey == "" {
		accessKey = DefaultAccessKey
	}
	return s.OrganizationsClientWith(t, credentials.NewStaticCredentialsProvider(accessKey, "emulator-secret", ""), optFns...)
}

// OrganizationsClientWith returns the real Organizations client signing
// with creds (e.g. an STS assume-role provider of a read role).
func (s *Server) OrganizationsClientWith(t testing.TB, creds aws.CredentialsProvider, optFns ...func(*organizations.Options)) *organizations.Client {
	t.Helper()
	o := organizations.Options{Region: s.Emu.Region(), Credentials: creds, BaseEndpoint: aws.String(s.URL)}
	return organizations.New(o, optFns...)
}

// Control is the control API client of this server.
func (s *Server) Control() Control { return Control{URL: s.URL} }

// State returns GET /_emulator/state.
func (s *Server) State(t testing.TB) emulator.StateDump {
	t.Helper()
	return s.Control().Must(t).State()
}

// Stats returns GET /_emulator/stats.
func (s *Server) Stats(t testing.TB) emulator.Stats {
	t.Helper()
	return s.Control().Must(t).Stats()
}

// SetFaults does PUT /_emulator/faults (replacing the whole configuration).
func (s *Server) SetFaults(t testing.TB, f emulator.Faults) {
	t.Helper()
	s.Control().Must(t).SetFaults(f)
}

// SetQuotas does PUT /_emulator/quotas (the quotas alone; see
// emulator.Quotas).
func (s *Server) SetQuotas(t testing.TB, q emulator.Quotas) {
	t.Helper()
	s.Control().Must(t).SetQuotas(q)
}

// SetConditions does POST /_emulator/conditions.
func (s *Server) SetConditions(t testing.TB, c emulator.Conditions) {
	t.Helper()
	s.Control().Must(t).SetConditions(c)
}

// Rotate does POST /_emulator/rotation (one step of a rotation) and
// returns the pending version's id.
func (s *Server) Rotate(t testing.TB, rot emulator.Rotation) string {
	t.Helper()
	return s.Control().Must(t).Rotate(rot)
}

// AdvanceClock does POST /_emulator/clock {"advance_seconds": d}.
func (s *Server) AdvanceClock(t testing.TB, d time.Duration) {
	t.Helper()
	s.Control().Must(t).AdvanceClock(d)
}

// Reset does POST /_emulator/reset (state and stats).
func (s *Server) Reset(t testing.TB) {
	t.Helper()
	s.Control().Must(t).Reset()
}

// STSClient returns the real aws-sdk-go-v2 STS client for this server
// (BaseEndpoint = URL, as AWS_ENDPOINT_URL_STS would set it) signing in
// region with creds (nil: the default account's static key, as Client).
func (s *Server) STSClient(t testing.TB, region string, creds aws.CredentialsProvider, optFns ...func(*sts.Options)) *sts.Client {
	t.Helper()
	if creds == nil {
		creds = credentials.NewStaticCredentialsProvider(DefaultAccessKey, "emulator-secret", "")
	}
	return sts.New(sts.Options{Region: region, Credentials: creds, BaseEndpoint: aws.String(s.URL)}, optFns...)
}
