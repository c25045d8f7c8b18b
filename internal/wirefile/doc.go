// Package wirefile is the one home of the tool's wire files (the report,
// schema sops-aws-sync/report/v1, the plan file, schema
// sops-aws-sync/plan/v3, SPEC §7.2 and §7.4, and the changes file, schema
// sops-aws-sync/changes/v1): how they are written, probed, read and
// decoded. A package that owns a schema (internal/report,
// internal/planview, internal/changes) declares a File and its Go types;
// everything about bytes on disk is here.
//
// Invariants:
//   - Write is atomic: the new file is created as a temporary file in the
//     target's directory with mode 0600, written, fsynced, closed and
//     renamed over the target; the directory is then fsynced on a
//     best-effort basis. A reader sees the previous file or the complete new
//     one. On any failure the temporary file is removed.
//   - The target's directory is the path up to its last separator, as the
//     operating system resolves it (not lexically cleaned): "missing/../r"
//     lives in "missing/..", which does not exist. Probe uses the same
//     directory and the same checks as Write, so a path that passes Probe
//     fails Write only if the file system changes in between.
//   - An existing target that is not a regular file (a directory, a
//     symbolic link, a FIFO, a device node, a socket) is never replaced:
//     Write and Probe refuse it (ErrIsDirectory, ErrNotRegular). The
//     directory must exist: it is never created.
//   - Read never blocks on a FIFO and reads only a regular file, at most
//     File.MaxBytes.
//   - Decode is strict: valid UTF-8, one JSON object, no trailing data,
//     every object key unique and spelled exactly as the Go type's JSON
//     name (no unknown key, no letter-case variant), every key of a field
//     without omitempty present, no null anywhere.
//   - Every failure is one of three types: *WriteError (a write or a probe:
//     the failed step), *ReadError, *DecodeError. No message contains the
//     path or any content of the file.
package wirefile
