package emulatorcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// scriptFlag collects repeated --script Operation:nth:fault values.
type scriptFlag []emulator.ScriptedFault

func (s *scriptFlag) String() string { return "" }

func (s *scriptFlag) Set(v string) error {
	parts := strings.SplitN(v, ":", 3)
	if len(parts) != 3 {
		return errors.New("want Operation:nth:fault, e.g. CreateSecret:2:ambiguous-after-apply")
	}
	n, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return fmt.Errorf("nth %q is not a number", parts[1])
	}
	*s = append(*s, emulator.ScriptedFault{Operation: parts[0], Nth: n, Fault: parts[2]})
	return nil
}

// kmsKeyFlag collects repeated --kms-key KEY_ID[=alias/a,alias/b] values.
type kmsKeyFlag []emulator.KMSKey

func (k *kmsKeyFlag) String() string { return "" }

func (k *kmsKeyFlag) Set(v string) error {
	id, aliases, found := strings.Cut(v, "=")
	key := emulator.KMSKey{KeyID: id}
	if found {
		key.Aliases = strings.Split(aliases, ",")
	}
	*k = append(*k, key)
	return nil
}

// kmsFaultFlag collects repeated --kms-key-fault KEY:STATE values (KEY may
// be an ARN, so the state follows the last colon).
type kmsFaultFlag []emulator.KMSKeyFault

func (k *kmsFaultFlag) String() string { return "" }

func (k *kmsFaultFlag) Set(v string) error {
	i := strings.LastIndexByte(v, ':')
	if i < 0 {
		return errors.New("want KEY:STATE, e.g. alias/app:disabled")
	}
	*k = append(*k, emulator.KMSKeyFault{Key: v[:i], State: v[i+1:]})
	return nil
}

// replicaFailureFlag collects repeated --replica-failure REGION[=MESSAGE]
// values.
type replicaFailureFlag []emulator.ReplicaFailure

func (r *replicaFailureFlag) String() string { return "" }

func (r *replicaFailureFlag) Set(v string) error {
	region, msg, _ := strings.Cut(v, "=")
	*r = append(*r, emulator.ReplicaFailure{Region: region, Message: msg})
	return nil
}

// accessKeyFlag collects repeated --access-key KEY=ACCOUNT values.
type accessKeyFlag map[string]string

func (k accessKeyFlag) String() string { return "" }

func (k accessKeyFlag) Set(v string) error {
	key, account, ok := strings.Cut(v, "=")
	if !ok {
		return errors.New("want KEY=ACCOUNT, e.g. AKIAPRODEXAMPLE0001=111111111111")
	}
	k[key] = account
	return nil
}

// Run runs the emulator command with args (without the program name) until
// a value arrives on stop. It returns the process exit code.
func Run(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	fs := flag.NewFlagSet("secretsmanager-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:4566", "address to listen on (port 0 picks a free port)")
	region := fs.String("region", emulator.DefaultRegion, "Region of requests without a SigV4 credential scope (others are served in the Region they are signed for)")
	account := fs.String("account-id", emulator.DefaultAccountID, "account of every access key --access-key does not map")
	logCalls := fs.Bool("log", false, "log one line per API call to stderr (operation, status, error code, fault; never names or values)")
	var f emulator.Faults
	var script scriptFlag
	var kmsKeys kmsKeyFlag
	var kmsFaults kmsFaultFlag
	accessKeys := accessKeyFlag{}
	var replicaFailures replicaFailureFlag
	fs.Int64Var(&f.Seed, "seed", 0, "seed for every random decision (ARN suffixes, fault rolls, jitter)")
	fs.Int64Var(&f.LatencyMS, "latency-ms", 0, "latency added to every API call, milliseconds")
	fs.Int64Var(&f.LatencyJitterMS, "latency-jitter-ms", 0, "extra uniform random latency in [0,n] milliseconds")
	fs.Int64Var(&f.ListLagMS, "list-lag-ms", 0, "ListSecrets answers from the state as it was this many milliseconds ago")
	fs.Int64Var(&f.ListScanLimit, "list-scan-limit", 0, "ListSecrets examines at most this many secrets per call, so filtered pages can be short or empty (0: no limit)")
	fs.Float64Var(&f.ErrorRate, "error-rate", 0, "chance in [0,1] that a call fails with InternalServiceError")
	fs.Float64Var(&f.AmbiguousRate, "ambiguous-rate", 0, "chance in [0,1] that a mutating call loses its response")
	fs.StringVar(&f.AmbiguousKind, "ambiguous-kind", "mixed", "after-apply, before-apply or mixed")
	fs.BoolVar(&f.Quotas, "quotas", false, "enforce AWS request quotas (token buckets per operation family)")
	fs.Float64Var(&f.QuotaScale, "quota-scale", 1, "multiply every quota rate and burst by this factor")
	fs.Var(&script, "script", "scripted fault Operation:nth:fault (repeatable), fault = ambiguous-after-apply | ambiguous-before-apply | error:<Code>[:<Message>]")
	fs.Var(&kmsKeys, "kms-key", "customer managed KMS key KEY_ID[=alias/a,alias/b] the emulator knows (repeatable); aws/secretsmanager is always known")
	fs.Var(&kmsFaults, "kms-key-fault", "make a KMS key unusable KEY:STATE (repeatable), KEY = key id, key ARN, alias name or alias ARN, STATE = disabled | pending-deletion | access-denied")
	fs.Int64Var(&f.ReplicationLagMS, "replication-lag-ms", 0, "a replica stays InProgress this many milliseconds (emulator clock) after each replication or change of its primary, then InSync")
	fs.Var(&replicaFailures, "replica-failure", "make replication to a Region fail REGION[=STATUS_MESSAGE] (repeatable)")
	fs.Var(accessKeys, "access-key", "map an access key id to an account KEY=ACCOUNT (repeatable); ACCOUNT is a 12-digit id or an IAM user or role ARN; other keys belong to --account-id")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "secretsmanager-emulator: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	f.Script = script
	f.KMSKeyFaults = kmsFaults
	f.ReplicaFailures = replicaFailures
	if err := emulator.ValidateFaults(f); err != nil {
		fmt.Fprintf(stderr, "secretsmanager-emulator: invalid fault flags: %v\n", err)
		return 2
	}
	iam := emulator.IAM{}
	if len(accessKeys) > 0 {
		iam.AccessKeys = accessKeys
	}
	if err := emulator.ValidateIAM(iam); err != nil {
		fmt.Fprintf(stderr, "secretsmanager-emulator: invalid --access-key: %v\n", err)
		return 2
	}
	opts := []emulator.Option{emulator.WithRegion(*region), emulator.WithAccountID(*account), emulator.WithFaults(f), emulator.WithIAM(iam)}
	if *logCalls {
		opts = append(opts, emulator.WithLogger(slog.New(slog.NewTextHandler(stderr, nil))))
	}
	emu := emulator.New(opts...)
	for _, k := range kmsKeys {
		if _, err := emu.AddKMSKey(k); err != nil {
			fmt.Fprintf(stderr, "secretsmanager-emulator: invalid --kms-key: %v\n", err)
			return 2
		}
	}

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "secretsmanager-emulator: cannot listen on %s: %v\n", *listen, err)
		return 1
	}
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr().String())
	srv := &http.Server{Handler: emu, ReadHeaderTimeout: 30 * time.Second, ConnState: emu.ConnState}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		fmt.Fprintf(stderr, "secretsmanager-emulator: serve: %v\n", err)
		return 1
	case <-stop:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		_ = srv.Close()
	}
	<-done
	return 0
}
