package factory

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go/logging"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awssm"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/desired"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/internal/wirefile"
)

// IOStreams are the process's standard streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer // log records, help, version
	ErrOut io.Writer // usage and configuration diagnostics only
}

// BuildInfo is set at link time (-ldflags -X main.version=… etc.).
type BuildInfo struct {
	Version string
	Commit  string
	Date    string
}

// Line is the version line of SPEC §2:
// "sops-aws-sync <version> (<commit>) built <date>".
func (b BuildInfo) Line() string {
	v, c, d := b.Version, b.Commit, b.Date
	if v == "" {
		v = "dev"
	}
	if c == "" {
		c = "unknown"
	}
	if d == "" {
		d = "unknown"
	}
	return "sops-aws-sync " + v + " (" + c + ") built " + d
}

// idleConnections is how many connections to Secrets Manager the client
// keeps open between calls: the engine has at most Concurrency calls in
// flight (internal/engine), plus one of slack for a connection that is
// still on its way back to the pool when the next call starts. The SDK's
// default transport keeps only 10 idle connections per host
// (aws/transport/http DefaultHTTPTransportMaxIdleConnsPerHost), so at
// --concurrency 32 every burst of answers closed 22 connections and the next
// burst opened 22 new ones: a TCP and TLS handshake per call in the worst
// case. docs/benchmarks.md has the figures.
func idleConnections(concurrency int) int {
	return max(concurrency+1, awshttp.DefaultHTTPTransportMaxIdleConnsPerHost)
}

// Factory is the CLI's dependency set. Every field has a production default
// from New; tests replace fields.
type Factory struct {
	IOStreams IOStreams
	Build     BuildInfo
	// Environ returns the environment snapshot ("KEY=value").
	Environ func() []string
	// ReadFile reads the --config file.
	ReadFile func(name string) ([]byte, error)
	// Now is the clock used for durations.
	Now func() time.Time
	// After is time.After, the clock of the loading progress records
	// (nil = time.After).
	After func(d time.Duration) <-chan time.Time
	// LoadDesired reads, decrypts and validates the desired state
	// (desired.Load). Errors: diag.Diagnostics; an interrupted load also
	// errors.Is context.Canceled/DeadlineExceeded.
	LoadDesired func(ctx context.Context, o config.Desired) (model.State, error)
	// OpenDesired is the first step of a load (desired.Open: revision,
	// tree walk, structural checks; the outline), whose Decrypt the run
	// calls while the first observation reads AWS; nil = LoadDesired, the
	// whole state at once (test factories). Errors: as LoadDesired's.
	OpenDesired func(ctx context.Context, o config.Desired) (*desired.Loading, error)
	// NewPort builds the AWS port (SDK client + adapter). Errors: a
	// diag.Diagnostic of class aws:config or aws:no-region.
	NewPort func(ctx context.Context, o config.AWS) (engine.Port, error)
	// NewPorts builds the port of every scope of a run, the overlap rule
	// checked over configured, every scope of the configuration (NewPorts;
	// errors there). nil = NewPort per scope (Factory.Ports), as test
	// factories that only fake NewPort have it.
	NewPorts func(ctx context.Context, scopes, configured []config.Scope) ([]ScopePort, error)
	// RunEngine is engine.Run.
	RunEngine func(ctx context.Context, cfg engine.Config, want model.State, sm engine.Port, log *slog.Logger) engine.Result
	// RunScopes is engine.RunScopes (SPEC §10: every scope planned before
	// any is applied). nil = RunEngine for each scope in order (test
	// factories that fake only RunEngine; see RunAll).
	RunScopes func(ctx context.Context, scopes []engine.ScopeRun, log *slog.Logger) []engine.Result
	// ResolveRevision resolves the revision to its commit once per run
	// (desired.Resolve), so every scope is loaded at one commit. nil = each
	// load resolves the revision itself (test factories).
	ResolveRevision func(o config.Desired) (string, error)
}

// RunAll runs the scopes of one run: f.RunScopes, else f.RunEngine for
// each scope in order, with its whole desired state (a scope given an
// outline waits for its values first; no shared plan-then-apply: test
// factories only).
// One Result per scope, in order.
func (f *Factory) RunAll(ctx context.Context, scopes []engine.ScopeRun, log *slog.Logger) []engine.Result {
	if f.RunScopes != nil {
		return f.RunScopes(ctx, scopes, log)
	}
	out := make([]engine.Result, len(scopes))
	for i, s := range scopes {
		want := s.Want
		if s.Values != nil {
			// Want is an outline: RunEngine takes the whole state, so it
			// waits for it (no overlap on this path); a rejected or
			// interrupted load runs nothing (the caller reports it).
			st, err := s.Values.Wait(ctx)
			if err != nil {
				out[i] = engine.Result{Status: vocab.StatusInvalid, Verification: vocab.VerificationNotRun}
				if ctx.Err() != nil {
					out[i].Status = vocab.StatusInterrupted
				}
				continue
			}
			want = st
		}
		out[i] = f.RunEngine(ctx, s.Config, want, s.Port, s.Log)
	}
	return out
}

// New returns the production Factory over the process's streams.
func New(b BuildInfo) *Factory {
	return &Factory{
		IOStreams:       IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr},
		Build:           b,
		Environ:         os.Environ,
		ReadFile:        readSmallFile,
		Now:             time.Now,
		After:           time.After,
		LoadDesired:     desired.Load,
		OpenDesired:     desired.Open,
		NewPort:         NewAWSPort,
		NewPorts:        NewPorts,
		RunEngine:       engine.Run,
		RunScopes:       engine.RunScopes,
		ResolveRevision: desired.Resolve,
	}
}

// Ports builds the port of every scope of scopes: f.NewPorts when set (the
// overlap rule over configured, every scope of the configuration), else
// f.NewPort for each scope's AWS options, each scope then its own bucket
// (its name) and Region as configured. Errors are those of the function
// called.
func (f *Factory) Ports(ctx context.Context, scopes, configured []config.Scope) ([]ScopePort, error) {
	if f.NewPorts != nil {
		return f.NewPorts(ctx, scopes, configured)
	}
	out := make([]ScopePort, 0, len(scopes))
	for _, sc := range scopes {
		p, err := f.NewPort(ctx, sc.AWS)
		if err != nil {
			return nil, err
		}
		out = append(out, ScopePort{Name: sc.Name, Region: sc.AWS.Region, Bucket: sc.Name, Port: p})
	}
	return out, nil
}

// readSmallFile reads at most 1 MiB + 1 byte (the config parser rejects
// anything larger) of a regular file: a FIFO or a device given to --config
// is refused at once (wirefile.OpenRegular), never waited on.
func readSmallFile(name string) ([]byte, error) {
	f, err := wirefile.OpenRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 1<<20+1))
}

// NewAWSPort builds the Secrets Manager client from the SDK's default chain
// (config.LoadDefaultConfig) with the Region/profile overrides and the retry
// overrides (> 0 only) and an HTTP client that keeps a connection per
// concurrent call (idleConnections), and wraps it in the awssm adapter with
// the per-call operation timeout. AWS_ENDPOINT_URL_SECRETS_MANAGER / AWS_ENDPOINT_URL are
// honoured by the SDK itself.
func NewAWSPort(ctx context.Context, o config.AWS) (engine.Port, error) {
	// The SDK's default logger writes raw library text to stderr (e.g. a
	// warning about an undiscarded response body, with local addresses);
	// SPEC §7.3 reserves stderr for usage and configuration diagnostics, and
	// AWS failures reach the user only as the adapter's reduced errors.
	idle := idleConnections(o.Concurrency)
	client := awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConnsPerHost = idle
		t.MaxIdleConns = max(t.MaxIdleConns, idle)
	})
	lo := loadOptions(o, client)
	if o.Region != "" {
		lo = append(lo, awsconfig.WithRegion(o.Region))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, lo...)
	if err != nil {
		return nil, diag.New(diag.AWSConfig, diag.Subject{})
	}
	if cfg.Region == "" {
		return nil, diag.New(diag.AWSNoRegion, diag.Subject{})
	}
	return awssm.New(secretsmanager.NewFromConfig(cfg), awssm.Options{OperationTimeout: o.OperationTimeout}), nil
}

// loadOptions are the options of the SDK's default chain every client of
// a run shares: no SDK logger, the HTTP client, the profile and the retry
// overrides (> 0 only).
func loadOptions(o config.AWS, client *awshttp.BuildableClient) []func(*awsconfig.LoadOptions) error {
	lo := []func(*awsconfig.LoadOptions) error{awsconfig.WithLogger(logging.Nop{}), awsconfig.WithHTTPClient(client)}
	if o.Profile != "" {
		lo = append(lo, awsconfig.WithSharedConfigProfile(o.Profile))
	}
	if o.MaxAttempts > 0 || o.MaxBackoff > 0 {
		lo = append(lo, awsconfig.WithRetryer(func() aws.Retryer {
			var r aws.Retryer = retry.NewStandard()
			if o.MaxAttempts > 0 {
				r = retry.AddWithMaxAttempts(r, o.MaxAttempts)
			}
			if o.MaxBackoff > 0 {
				r = retry.AddWithMaxBackoffDelay(r, o.MaxBackoff)
			}
			return r
		}))
	}
	return lo
}
