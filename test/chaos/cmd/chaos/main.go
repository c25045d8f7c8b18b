// Command chaos runs the reliability campaign (see
// docs/reliability.md): `make chaos SCENARIOS=N SEED=S` builds the binaries
// and calls it. It exits 1 when any invariant is violated, any secret leaks,
// or a scenario fails to converge.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/sops-aws-sync/sops-aws-sync/test/chaos"
)

func main() { os.Exit(run()) }

func run() int {
	cfg := chaos.Config{Gen: chaos.DefaultGenOptions, Progress: os.Stdout}
	flag.IntVar(&cfg.Scenarios, "scenarios", 500, "number of scenarios")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "campaign seed (scenario i is derived from seed and i)")
	flag.IntVar(&cfg.Workers, "workers", 2, "scenarios played in parallel (one emulator process each)")
	flag.IntVar(&cfg.Only, "only", -1, "play only this scenario index (to replay a failure)")
	flag.StringVar(&cfg.CLI, "cli", "bin/sops-aws-sync", "sops-aws-sync binary")
	flag.StringVar(&cfg.Emulator, "emulator", "bin/secretsmanager-emulator", "secretsmanager-emulator binary")
	flag.StringVar(&cfg.SopsCLI, "sops", "", "sops binary for cross-checks (default: sops on PATH)")
	flag.IntVar(&cfg.CrossChecks, "cross-checks", 5, "scenarios whose first document is decrypted with the sops CLI")
	flag.Float64Var(&cfg.Gen.KillShare, "kill-share", cfg.Gen.KillShare, "chance that a fault run gets a SIGKILL plan")
	flag.Float64Var(&cfg.Gen.DotenvShare, "dotenv-share", cfg.Gen.DotenvShare, "chance that a document is dotenv")
	flag.BoolVar(&cfg.Gen.Quotas, "quotas", cfg.Gen.Quotas, "play half of the scenarios, final runs included, under reduced request quotas (5-100% of AWS's, some changing while the CLI runs)")
	flag.BoolVar(&cfg.Gen.Metadata, "metadata", cfg.Gen.Metadata, "configure a KMS key, description and tags of owned secrets in 40% of the scenarios, changing between runs (issue 14)")
	flag.BoolVar(&cfg.Gen.Whole, "whole", cfg.Gen.Whole, "turn some secret names of 50% of the scenarios into whole-value documents (.sops.txt/.sops.bin), switching kind between revisions")
	flag.BoolVar(&cfg.Gen.Adopt, "adopt", cfg.Gen.Adopt, "seed secrets made by hand under desired names in 40% of the scenarios and name them in adopt on every run whose revision maps to them (SPEC §11)")
	flag.BoolVar(&cfg.Gen.Scopes, "scopes", cfg.Gen.Scopes, "run 30% of the scenarios as one scope of two to four in one config file, in shared and separate buckets (SPEC §10)")
	flag.BoolVar(&cfg.Gen.Replicas, "replicas", cfg.Gen.Replicas, "configure replica-regions in 30% of the scenarios, Regions changing between runs, some owned secrets seeded with replicas, some runs with a replication lag or --max-deletions (SPEC §12)")
	flag.BoolVar(&cfg.Gen.ParameterStore, "ps", cfg.Gen.ParameterStore, "run a target parameter-store scope beside 20% of the scenarios (mixed-target runs), with SSM faults, kills, reduced quotas and another writer (SPEC §16)")
	flag.IntVar(&cfg.PSPrimary, "ps-primary", 3, "Parameter Store primary scenarios (SPEC §16: a parameter-store scope alone, by flags, its tier, kms-key-id, description and tags drawn per run, under faults and another writer) played after the others")
	flag.IntVar(&cfg.Accounts, "accounts", 2, "many-accounts scenarios (SPEC §17: 20-40 scopes over three to six accounts of an organization, some accounts unreachable per run, a random --max-unreachable-scopes, kills, a document not encrypted now and then) played after the others")
	flag.IntVar(&cfg.Rotations, "rotations", 4, "rotation scenarios (SPEC §13: a secret whose /password AWS owns, rotation steps interleaved with syncs under ambiguous writes) played after the others")
	flag.StringVar(&cfg.WorkDir, "work", "", "scratch directory (default: a new temp dir, removed at the end)")
	flag.StringVar(&cfg.Artifacts, "artifacts", "bin/chaos/failures", "where failing scenarios are kept")
	flag.BoolVar(&cfg.KeepAll, "keep", false, "keep the artifacts of passing scenarios too")
	flag.BoolVar(&cfg.Verbose, "v", false, "print every run of every scenario")
	summaryPath := flag.String("summary", "bin/chaos/summary.md", "where the summary is written")
	doc := flag.String("doc", "", "Markdown file whose generated section receives the summary (e.g. docs/reliability.md)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "chaos: unexpected argument %q\n", flag.Arg(0))
		return 2
	}
	for _, p := range []*string{&cfg.CLI, &cfg.Emulator} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "chaos:", err)
			return 2
		}
		if _, err := os.Stat(abs); err != nil {
			fmt.Fprintf(os.Stderr, "chaos: %s is missing; run make build\n", abs)
			return 2
		}
		*p = abs
	}
	if cfg.SopsCLI == "" {
		if p, err := exec.LookPath("sops"); err == nil {
			cfg.SopsCLI = p
		}
	}
	if cfg.WorkDir == "" {
		d, err := os.MkdirTemp("", "chaos-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "chaos:", err)
			return 2
		}
		defer os.RemoveAll(d)
		cfg.WorkDir = d
	}
	sum, err := chaos.RunCampaign(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		return 1
	}
	md := sum.Markdown()
	fmt.Print("\n" + md)
	if *summaryPath != "" {
		if err := os.MkdirAll(filepath.Dir(*summaryPath), 0o755); err == nil {
			_ = os.WriteFile(*summaryPath, []byte(md), 0o644)
		}
	}
	if *doc != "" && cfg.Only < 0 {
		if err := chaos.UpdateDoc(*doc, md); err != nil {
			fmt.Fprintln(os.Stderr, "chaos: failed to update the doc:", err)
			return 1
		}
	}
	if sum.Failed() {
		fmt.Fprintln(os.Stderr, "chaos: FAILED: see the findings above and the artifacts directory")
		return 1
	}
	return 0
}
