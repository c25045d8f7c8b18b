package command

import (
	"context"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run"
)

// noDecryptFlag is validate's --no-decrypt. It is a flag of the command,
// not a setting (internal/config): it chooses what validate checks, not
// how the tool reaches anything, and no other command has it.
const noDecryptFlag = "no-decrypt"

var validateSpec = spec{
	name:  "validate",
	short: "Check the committed documents without AWS (no Secrets Manager, no STS)",
	long: "Check every document of every scope at one commit by every rule that needs no AWS: the\n" +
		"structure, names and collisions, and, with the documents' keys, decryption and the plaintext\n" +
		"rules, as plan checks them. With --no-decrypt (or when no key opens any document) only the\n" +
		"checks that need no key run, and the output says which were skipped. Exit 0 or 3.",
	mode: engine.ModePlan,
}

// validate runs one validate with resolved options (SPEC §15), as
// reconcile runs a plan: the outputs resolved and probed, run.Validate
// over the factory's Sources (never a port: no AWS call), the overlap
// rule and the scopes' Regions judged offline (factory.OfflineOverlaps,
// factory.OfflineRegions), the ending concluded and
// written by the same outputs as plan's (log records, --plan-file with
// the diagnostics, --report-file, the text rendering).
func validate(parent context.Context, f *factory.Factory, opts *Options, start time.Time) error {
	ctx, cancel := context.WithTimeoutCause(parent, opts.Config.Run.Timeout, errRunTimeout)
	defer cancel()
	// validate may read the index as a tree (git write-tree): the
	// pre-commit hook checks what is staged, before any commit holds it.
	opts.Config.Desired.AllowTree = true
	for i := range opts.Config.Scopes {
		opts.Config.Scopes[i].Desired.AllowTree = true
	}
	req, outs := resolve(f, opts)
	outs.pointer = false
	if opts.SourceRootsFile != "" {
		outs.sourceRoots = outs.sourceRootsOutput(opts.SourceRootsFile)
	}
	got := run.Stopped(outs.probe())
	if len(got.Run.Diagnostics) == 0 {
		got = run.Validate(ctx, f.Sources, req, run.Check{
			Structural: opts.NoDecrypt,
			Overlap:    factory.OfflineOverlaps(ctx, opts.Config.Configured),
			Regions:    factory.OfflineRegions(ctx, opts.Config.Scopes),
		})
	}
	h := how{durationMS: since(f, start)}
	if ctx.Err() != nil {
		h.cause = context.Cause(ctx)
	}
	return outs.write(conclude(got, h))
}
