// Package version is the `version` command: it prints the build line and
// reads no configuration, environment or AWS (SPEC §2).
//
// Invariant: the line is exactly "sops-aws-sync <version> (<commit>) built
// <date>" from the link-time BuildInfo.
package version
