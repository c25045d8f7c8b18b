package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"golang.org/x/crypto/x509roots/fallback/bundle"

	"github.com/sops-aws-sync/sops-aws-sync/scripts/internal/releaseinfo"
)

// The image's fixed facts (docs/container-image.md).
const (
	// UID and GID of the one user, "nonroot" (the value distroless uses, so
	// volume permissions prepared for those images fit this one).
	UID = 65532
	GID = 65532
	// Entrypoint is where the binary lives; it is the image's entrypoint.
	Entrypoint = "/usr/local/bin/" + releaseinfo.Project
	// CABundle is where Go's crypto/x509 looks first on Linux.
	CABundle = "/etc/ssl/certs/ca-certificates.crt"
	// Source is the repository the annotations name.
	Source = "https://github.com/sops-aws-sync/sops-aws-sync"
)

// Platforms are the image's platforms, in the index's order.
var Platforms = []v1.Platform{
	{OS: "linux", Architecture: "amd64"},
	{OS: "linux", Architecture: "arm64", Variant: "v8"},
}

// Meta is what the annotations and timestamps say: the release's version,
// the commit and the commit's time (release.sh's RELEASE_DATE; it is the
// SOURCE_DATE_EPOCH of every timestamp in the image).
type Meta struct {
	Version string
	Commit  string
	Created time.Time
}

func (m Meta) annotations() map[string]string {
	return map[string]string{
		"org.opencontainers.image.source":   Source,
		"org.opencontainers.image.revision": m.Commit,
		"org.opencontainers.image.version":  m.Version,
		"org.opencontainers.image.created":  m.Created.UTC().Format(time.RFC3339),
		"org.opencontainers.image.title":    releaseinfo.Project,
	}
}

// Build makes the image index from the linux binaries in dist (as
// release.sh writes them: checksums.txt and the raw binaries). Every binary
// is checked against checksums.txt first, so the image holds exactly the
// released bytes. platforms selects which of Platforms to build (all when
// empty); each must have its binary in dist. The Meta returned has the
// version filled in from checksums.txt.
func Build(dist string, m Meta, platforms []v1.Platform) (v1.ImageIndex, Meta, error) {
	sums, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		return nil, m, err
	}
	rel, err := releaseinfo.Parse(sums)
	if err != nil {
		return nil, m, err
	}
	if m.Version == "" {
		m.Version = rel.Version
	}
	if m.Version != rel.Version {
		return nil, m, fmt.Errorf("version %q differs from checksums.txt's %q", m.Version, rel.Version)
	}
	if len(platforms) == 0 {
		platforms = Platforms
	}
	ca := caBundle()
	var adds []mutate.IndexAddendum
	for _, p := range platforms {
		a, ok := rel.Find(p.OS, p.Architecture)
		if !ok {
			return nil, m, fmt.Errorf("checksums.txt has no %s/%s binary", p.OS, p.Architecture)
		}
		bin, err := os.ReadFile(filepath.Join(dist, a.Name))
		if err != nil {
			return nil, m, err
		}
		if got := sha256.Sum256(bin); hex.EncodeToString(got[:]) != a.SHA256 {
			return nil, m, fmt.Errorf("%s does not match checksums.txt", a.Name)
		}
		img, err := platformImage(p, bin, ca, m)
		if err != nil {
			return nil, m, fmt.Errorf("%s/%s: %w", p.OS, p.Architecture, err)
		}
		plat := p
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &plat}})
	}
	idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
	return mutate.Annotations(idx, m.annotations()).(v1.ImageIndex), m, nil
}

// platformImage is one manifest: one layer from scratch holding the
// binary, the CA bundle, /etc/passwd and /etc/group, a home and /tmp.
func platformImage(p v1.Platform, bin, ca []byte, m Meta) (v1.Image, error) {
	tarBytes, err := rootfs(bin, ca, m.Created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(tarBytes)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	created := v1.Time{Time: m.Created.UTC()}
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History:   v1.History{Created: created, CreatedBy: "scripts/containerimage " + m.Version, Comment: "static binary, CA bundle, passwd"},
	})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Created = created
	cf.Author = ""
	cf.Config = v1.Config{
		User:       fmt.Sprintf("%d:%d", UID, GID),
		Entrypoint: []string{Entrypoint},
		Env: []string{
			"PATH=/usr/local/bin",
			"HOME=/home/nonroot",
			"SSL_CERT_FILE=" + CABundle,
		},
		Labels: m.annotations(),
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, err
	}
	return mutate.Annotations(img, m.annotations()).(v1.Image), nil
}

type entry struct {
	name string
	mode int64
	uid  int
	body []byte // nil for a directory
}

// rootfs is the layer's tar: entries sorted by name, every timestamp
// created, owner root but for the user's home, USTAR headers (no PAX
// records that could carry access times or extended attributes).
func rootfs(bin, ca []byte, created time.Time) ([]byte, error) {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", UID, GID)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", GID)
	entries := []entry{
		{name: "etc/", mode: 0o755},
		{name: "etc/group", mode: 0o644, body: []byte(group)},
		{name: "etc/passwd", mode: 0o644, body: []byte(passwd)},
		{name: "etc/ssl/", mode: 0o755},
		{name: "etc/ssl/certs/", mode: 0o755},
		{name: CABundle[1:], mode: 0o644, body: ca},
		{name: "home/", mode: 0o755},
		{name: "home/nonroot/", mode: 0o700, uid: UID},
		{name: "tmp/", mode: 0o1777},
		{name: "usr/", mode: 0o755},
		{name: "usr/local/", mode: 0o755},
		{name: "usr/local/bin/", mode: 0o755},
		{name: Entrypoint[1:], mode: 0o755, body: bin},
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{
			Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: created.UTC(),
			Format: tar.FormatUSTAR, Typeflag: tar.TypeReg, Size: int64(len(e.body)),
		}
		if e.body == nil {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if e.uid != 0 {
			h.Uname, h.Gname = "nonroot", "nonroot"
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// caBundle is the PEM bundle of Mozilla's NSS roots as pinned in go.mod by
// golang.org/x/crypto/x509roots/fallback (update: go get
// golang.org/x/crypto/x509roots/fallback@latest). A root that carries a
// constraint a PEM file cannot express (distrust after a date) is left
// out: the file would trust it without the constraint.
func caBundle() []byte {
	var buf bytes.Buffer
	for r := range bundle.Roots() {
		if r.Constraint != nil {
			continue
		}
		_ = pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate}) // a bytes.Buffer does not fail
	}
	return buf.Bytes()
}

// WriteLayout writes idx as an OCI image layout at dir (emptied first):
// index.json names idx with the version as its ref.name.
func WriteLayout(dir string, idx v1.ImageIndex, version string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	return p.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": version}))
}

// ReadLayout returns the one index a layout written by WriteLayout holds.
func ReadLayout(dir string) (v1.ImageIndex, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, err
	}
	top, err := p.ImageIndex()
	if err != nil {
		return nil, err
	}
	im, err := top.IndexManifest()
	if err != nil {
		return nil, err
	}
	if len(im.Manifests) != 1 {
		return nil, fmt.Errorf("%s: index.json names %d entries, want 1", dir, len(im.Manifests))
	}
	return top.ImageIndex(im.Manifests[0].Digest)
}
