package factory

import (
	"context"
	"io"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go/logging"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/desired"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run"
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

// Factory is the CLI's dependency set: one provider per dependency, each
// with its production value from New. Tests replace a provider (a clock,
// the Sources of a run over an emulator), never the composition: a run is
// always run.Execute over the engine.
type Factory struct {
	IOStreams IOStreams
	Build     BuildInfo
	// Host is the process the command runs in: its environment and the
	// --config file (Process in production).
	Host Host
	// Clock is the run's clock: its duration and the loading progress
	// records (engine.SystemClock).
	Clock engine.Clock
	// Sources is what a run reads from outside itself: the AWS ports, the
	// revision, the desired state (Sources: NewPorts, desired.Resolve,
	// desired.Open).
	Sources run.Sources
}

// New returns the production Factory over the process's streams.
func New(b BuildInfo) *Factory {
	return &Factory{
		IOStreams: IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr},
		Build:     b,
		Host:      Process{},
		Clock:     engine.SystemClock{},
		Sources:   Sources{Trail: TrailOf(os.Environ(), b.Version)},
	}
}

// Sources is the production run.Sources: the ports of NewPorts (the AWS
// SDK's default chain, STS per role), the revision of desired.Resolve and
// the desired state of desired.Open (Git, SOPS).
type Sources struct {
	// Trail names the run in every AWS call (TrailOf the process's
	// environment and the build's version).
	Trail Trail
}

// Ports is NewPorts with s's trail.
func (s Sources) Ports(ctx context.Context, scopes, configured []config.Scope, parallel int) ([]run.ScopePort, error) {
	return NewPorts(ctx, s.Trail, scopes, configured, parallel)
}

// Revision is desired.Resolve.
func (Sources) Revision(o config.Desired) (string, error) { return desired.Resolve(o) }

// Open is desired.Open.
func (Sources) Open(ctx context.Context, o config.Desired) (run.Load, error) {
	l, err := desired.Open(ctx, o)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Host is what a command reads of the process it runs in, besides its
// flags.
type Host interface {
	// Environ returns the environment snapshot ("KEY=value").
	Environ() []string
	// ReadFile reads the --config file; an error is the file system's
	// (the command reports it as a configuration error).
	ReadFile(name string) ([]byte, error)
}

// Process is the production Host: os.Environ and a small regular file.
type Process struct{}

// Environ is os.Environ.
func (Process) Environ() []string { return os.Environ() }

// ReadFile is readSmallFile.
func (Process) ReadFile(name string) ([]byte, error) { return readSmallFile(name) }

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
