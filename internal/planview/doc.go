// Package planview turns plan data into what a reviewer reads: the view
// model, which is also the content of the plan file (schema
// sops-aws-sync/plan/v3: one section per scope, SPEC §7.4 and §10, each
// bound to its source tree, settings and observations by digests, SPEC
// §14; v2 and v1 files are still read, v1 as one scope), its text
// (terminal) and Markdown (job summary, pull request) renderings, one
// section per scope, and the comparison of a reviewed plan with a run's
// own (Compare, pure).
//
// Invariants:
//   - Redaction happens once, in Build: it turns Input (plain plan data,
//     with real names and full key-level summaries) and a model.Redaction
//     into a View. Everything downstream — the plan file, Text, Markdown —
//     takes only a View, so no output can show what another hides.
//   - A View names only what is in cleartext in the commit, and only when
//     names are shown: secret names (model.Redaction.Label) and key paths
//     of the desired document. A key that exists only in the observed AWS
//     value is counted, never named. A View never holds a value, a length,
//     a hash or a token. Validate (run by Marshal, WriteFile and Parse)
//     rejects a View that breaks the rule's shape: key_paths without
//     names_shown, a resource that is not an ordinal label when names are
//     hidden, more named paths than counted.
//   - A scope's counts are derived from its operations, never set by hand;
//     the run's status is derived from its scopes' (View.Outcome).
//   - Renderers print every data string through model.QuotePath, so a
//     crafted key name cannot forge lines or terminal escapes, nor look
//     like another through a character that renders as nothing (a
//     default-ignorable code point is escaped), and Markdown
//     puts them in fenced code blocks, so it cannot inject markup or
//     mentions.
//   - The package is pure apart from the atomic file write and read; it
//     never reaches SOPS, go-git or the AWS SDK (internal/archtest).
package planview
