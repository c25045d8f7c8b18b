// Command containerimage builds and pushes the sops-aws-sync container image
// without a Docker engine (docs/container-image.md):
//
//	containerimage build -dist dist -out dist/image -commit SHA -created RFC3339
//	containerimage push -layout dist/image -ref ghcr.io/OWNER/sops-aws-sync:VERSION
//
// build reads the linux binaries release.sh wrote into -dist (checked
// against checksums.txt) and writes an OCI image layout at -out whose
// index.json names one image index (linux/amd64, linux/arm64); it prints
// the index's digest. The same binaries, commit and time give the same
// digest. push sends that index to a registry (credentials from
// REGISTRY_USERNAME and REGISTRY_PASSWORD, anonymous when unset) and prints
// the digest pushed.
//
// It is release tooling: no product package imports it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "containerimage:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: containerimage build|push [flags]")
	}
	switch args[0] {
	case "build":
		return runBuild(args[1:], stdout)
	case "push":
		return runPush(args[1:], stdout)
	}
	return fmt.Errorf("unknown command %q (build, push)", args[0])
}

func runBuild(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	dist := fs.String("dist", "dist", "release.sh's output directory (checksums.txt and the binaries)")
	out := fs.String("out", "dist/image", "the OCI image layout to write (emptied first)")
	commit := fs.String("commit", "", "the commit the binaries were built from (40 hex)")
	created := fs.String("created", "", "the commit's time, RFC 3339 (release.sh's RELEASE_DATE)")
	version := fs.String("version", "", "the release version (default: checksums.txt's)")
	platforms := fs.String("platforms", "", "comma-separated os/arch subset of linux/amd64,linux/arm64 (default: both)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339, *created)
	if err != nil {
		return fmt.Errorf("-created: %w", err)
	}
	if len(*commit) != 40 {
		return fmt.Errorf("-commit must be the full 40-hex commit id")
	}
	plats, err := parsePlatforms(*platforms)
	if err != nil {
		return err
	}
	idx, m, err := Build(*dist, Meta{Version: *version, Commit: *commit, Created: t}, plats)
	if err != nil {
		return err
	}
	if err := WriteLayout(*out, idx, m.Version); err != nil {
		return err
	}
	d, err := idx.Digest()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, d)
	return err
}

func parsePlatforms(s string) ([]v1.Platform, error) {
	if s == "" {
		return nil, nil
	}
	var out []v1.Platform
	for _, want := range strings.Split(s, ",") {
		found := false
		for _, p := range Platforms {
			if p.OS+"/"+p.Architecture == want {
				out, found = append(out, p), true
			}
		}
		if !found {
			return nil, fmt.Errorf("-platforms: %q is not one of linux/amd64, linux/arm64", want)
		}
	}
	return out, nil
}

func runPush(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("push", flag.ContinueOnError)
	dir := fs.String("layout", "dist/image", "the OCI image layout build wrote")
	ref := fs.String("ref", "", "where to push, e.g. ghcr.io/OWNER/sops-aws-sync:1.2.3")
	if err := fs.Parse(args); err != nil {
		return err
	}
	r, err := name.ParseReference(*ref, name.StrictValidation)
	if err != nil {
		return fmt.Errorf("-ref: %w", err)
	}
	idx, err := ReadLayout(*dir)
	if err != nil {
		return err
	}
	auth := authn.Anonymous
	if u, p := os.Getenv("REGISTRY_USERNAME"), os.Getenv("REGISTRY_PASSWORD"); u != "" || p != "" {
		auth = &authn.Basic{Username: u, Password: p}
	}
	if err := remote.WriteIndex(r, idx, remote.WithAuth(auth)); err != nil {
		return fmt.Errorf("push %s: %w", r.Context(), err)
	}
	d, err := idx.Digest()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, d)
	return err
}
