package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/scripts/internal/releaseinfo"
)

const (
	testVersion = "1.2.3"
	testCommit  = "0123456789abcdef0123456789abcdef01234567"
	testCreated = "2026-11-05T10:20:30Z"
)

// standInDist writes what release.sh writes, with tiny stand-in binaries
// whose bytes name their platform.
func standInDist(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var sums strings.Builder
	for _, p := range []string{"linux/amd64", "linux/arm64", "darwin/arm64"} {
		goos, goarch, _ := strings.Cut(p, "/")
		asset := releaseinfo.AssetName(testVersion, goos, goarch)
		body := []byte("stand-in binary for " + p)
		require.NoError(t, os.WriteFile(filepath.Join(dir, asset), body, 0o755))
		sum := sha256.Sum256(body)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), asset)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(sums.String()), 0o644))
	return dir
}

func build(t *testing.T, dist string, extra ...string) (string, v1.ImageIndex) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "image")
	var stdout bytes.Buffer
	args := append([]string{"build", "-dist", dist, "-out", out, "-commit", testCommit, "-created", testCreated}, extra...)
	require.NoError(t, run(args, &stdout))
	idx, err := ReadLayout(out)
	require.NoError(t, err)
	d, err := idx.Digest()
	require.NoError(t, err)
	require.Equal(t, d.String()+"\n", stdout.String(), "build prints the index digest")
	return out, idx
}

func layoutFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[strings.TrimPrefix(p, dir)] = b
		return err
	}))
	return files
}

func TestTwoBuildsGiveTheSameDigest(t *testing.T) {
	dist := standInDist(t)
	outA, a := build(t, dist)
	outB, b := build(t, dist)
	da, err := a.Digest()
	require.NoError(t, err)
	db, err := b.Digest()
	require.NoError(t, err)
	assert.Equal(t, da, db)
	assert.Equal(t, layoutFiles(t, outA), layoutFiles(t, outB), "every blob of the layout is byte-identical")

	// The digest follows the inputs: another commit is another image.
	_, c := build(t, dist, "-created", "2026-11-05T10:20:31Z")
	dc, err := c.Digest()
	require.NoError(t, err)
	assert.NotEqual(t, da, dc)
}

// image returns the index's image for linux/arch and the files of its one layer.
func image(t *testing.T, idx v1.ImageIndex, arch string) (v1.Image, map[string]*tar.Header, map[string][]byte) {
	t.Helper()
	im, err := idx.IndexManifest()
	require.NoError(t, err)
	for _, desc := range im.Manifests {
		if desc.Platform.Architecture != arch {
			continue
		}
		img, err := idx.Image(desc.Digest)
		require.NoError(t, err)
		layers, err := img.Layers()
		require.NoError(t, err)
		require.Len(t, layers, 1, "one layer from scratch")
		mt, err := layers[0].MediaType()
		require.NoError(t, err)
		assert.Equal(t, types.OCILayer, mt)
		rc, err := layers[0].Uncompressed()
		require.NoError(t, err)
		defer rc.Close()
		headers, bodies := map[string]*tar.Header{}, map[string][]byte{}
		tr := tar.NewReader(rc)
		var names []string
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			b, err := io.ReadAll(tr)
			require.NoError(t, err)
			headers[h.Name], bodies[h.Name] = h, b
			names = append(names, h.Name)
		}
		assert.IsIncreasing(t, names, "tar entries sorted")
		return img, headers, bodies
	}
	require.FailNow(t, "no image for linux/"+arch)
	return nil, nil, nil
}

func TestImageRunsTheBinaryAsNonrootWithoutAShell(t *testing.T) {
	_, idx := build(t, standInDist(t))
	created, _ := time.Parse(time.RFC3339, testCreated)
	for _, arch := range []string{"amd64", "arm64"} {
		img, headers, bodies := image(t, idx, arch)
		cf, err := img.ConfigFile()
		require.NoError(t, err)
		assert.Equal(t, "65532:65532", cf.Config.User)
		assert.Equal(t, []string{"/usr/local/bin/sops-aws-sync"}, cf.Config.Entrypoint)
		assert.Empty(t, cf.Config.Cmd)
		assert.Equal(t, "linux", cf.OS)
		assert.Equal(t, arch, cf.Architecture)
		assert.Equal(t, created, cf.Created.Time.UTC())
		assert.Contains(t, cf.Config.Env, "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt")

		var names []string
		for n, h := range headers {
			names = append(names, n)
			assert.Equal(t, created, h.ModTime.UTC(), n)
		}
		assert.ElementsMatch(t, []string{
			"etc/", "etc/group", "etc/passwd", "etc/ssl/", "etc/ssl/certs/", "etc/ssl/certs/ca-certificates.crt",
			"home/", "home/nonroot/", "tmp/", "usr/", "usr/local/", "usr/local/bin/", "usr/local/bin/sops-aws-sync",
		}, names, "nothing but the binary, its CA bundle and the user: no shell, no bin/")
		assert.Equal(t, []byte("stand-in binary for linux/"+arch), bodies["usr/local/bin/sops-aws-sync"])
		assert.Equal(t, int64(0o755), headers["usr/local/bin/sops-aws-sync"].Mode)
		assert.Equal(t, 0, headers["usr/local/bin/sops-aws-sync"].Uid, "root owns the binary: the user cannot replace it")
		assert.Equal(t, 65532, headers["home/nonroot/"].Uid)
		assert.Contains(t, string(bodies["etc/passwd"]), "nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")

		// The CA bundle: PEM certificates, all parseable, Mozilla's roots.
		rest, n := bodies["etc/ssl/certs/ca-certificates.crt"], 0
		for {
			var blk *pem.Block
			blk, rest = pem.Decode(rest)
			if blk == nil {
				break
			}
			_, err := x509.ParseCertificate(blk.Bytes)
			require.NoError(t, err)
			n++
		}
		assert.Empty(t, bytes.TrimSpace(rest))
		assert.Greater(t, n, 100, "the NSS root set has well over 100 roots")
	}
}

func TestIndexAndManifestsCarryTheOCIAnnotations(t *testing.T) {
	_, idx := build(t, standInDist(t))
	want := map[string]string{
		"org.opencontainers.image.source":   "https://github.com/sops-aws-sync/sops-aws-sync",
		"org.opencontainers.image.revision": testCommit,
		"org.opencontainers.image.version":  testVersion,
		"org.opencontainers.image.created":  testCreated,
		"org.opencontainers.image.title":    "sops-aws-sync",
	}
	im, err := idx.IndexManifest()
	require.NoError(t, err)
	assert.Equal(t, types.OCIImageIndex, im.MediaType)
	assert.Equal(t, want, im.Annotations)
	var plats []string
	for _, d := range im.Manifests {
		plats = append(plats, d.Platform.String())
	}
	assert.Equal(t, []string{"linux/amd64", "linux/arm64/v8"}, plats)
	for _, arch := range []string{"amd64", "arm64"} {
		img, _, _ := image(t, idx, arch)
		m, err := img.Manifest()
		require.NoError(t, err)
		assert.Equal(t, types.OCIManifestSchema1, m.MediaType)
		assert.Equal(t, want, m.Annotations)
		cf, err := img.ConfigFile()
		require.NoError(t, err)
		assert.Equal(t, want, cf.Config.Labels, "labels too, for tools that read only the config")
	}
}

func TestBuildRefusesABinaryThatIsNotTheReleasedOne(t *testing.T) {
	dist := standInDist(t)
	require.NoError(t, os.WriteFile(filepath.Join(dist, releaseinfo.AssetName(testVersion, "linux", "arm64")), []byte("tampered"), 0o755))
	err := run([]string{"build", "-dist", dist, "-out", filepath.Join(t.TempDir(), "i"), "-commit", testCommit, "-created", testCreated}, io.Discard)
	assert.ErrorContains(t, err, "does not match checksums.txt")
	err = run([]string{"build", "-dist", dist, "-out", filepath.Join(t.TempDir(), "i"), "-commit", testCommit, "-created", testCreated, "-version", "9.9.9"}, io.Discard)
	assert.ErrorContains(t, err, "differs from checksums.txt")
}

func TestPushSendsTheIndexByDigest(t *testing.T) {
	reg := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer reg.Close()
	u, err := url.Parse(reg.URL)
	require.NoError(t, err)
	out, idx := build(t, standInDist(t))
	ref := u.Host + "/sops-aws-sync/sops-aws-sync:" + testVersion
	var stdout bytes.Buffer
	require.NoError(t, run([]string{"push", "-layout", out, "-ref", ref}, &stdout))
	d, err := idx.Digest()
	require.NoError(t, err)
	assert.Equal(t, d.String()+"\n", stdout.String())

	r, err := name.ParseReference(ref)
	require.NoError(t, err)
	got, err := remote.Index(r)
	require.NoError(t, err)
	gd, err := got.Digest()
	require.NoError(t, err)
	assert.Equal(t, d, gd, "the registry serves the digest the layout holds (the digest the release attests)")
}

// TestRealBuild_BinaryFromLayerPrintsTheCommitsVersion is the real path:
// release.sh builds the host's linux binary from this checkout, the image
// is built from it, and the binary read back out of the layer prints the
// version and commit it was stamped with. One architecture only (a cross
// build of the second costs another ~30 s; both run in `make image`).
func TestRealBuild_BinaryFromLayerPrintsTheCommitsVersion(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image's binary runs on linux only")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	commitOut, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	require.NoError(t, err)
	dateOut, err := exec.Command("git", "-C", root, "log", "-1", "--format=%cI").Output()
	require.NoError(t, err)
	commit, date := strings.TrimSpace(string(commitOut)), strings.TrimSpace(string(dateOut))
	created, err := time.Parse(time.RFC3339, date)
	require.NoError(t, err)

	dist := filepath.Join(t.TempDir(), "dist")
	const version = "0.0.0-imagetest.1"
	cmd := exec.Command(filepath.Join(root, "scripts", "release.sh"))
	cmd.Env = append(os.Environ(), "RELEASE_VERSION="+version, "RELEASE_DIST="+dist, "RELEASE_PLATFORMS=linux/"+runtime.GOARCH)
	outb, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", outb)

	plat := "linux/" + runtime.GOARCH
	out := filepath.Join(t.TempDir(), "image")
	var stdout bytes.Buffer
	require.NoError(t, run([]string{"build", "-dist", dist, "-out", out, "-commit", commit, "-created", created.UTC().Format(time.RFC3339), "-platforms", plat}, &stdout))
	idx, err := ReadLayout(out)
	require.NoError(t, err)
	_, _, bodies := image(t, idx, runtime.GOARCH)

	bin := filepath.Join(t.TempDir(), "sops-aws-sync")
	require.NoError(t, os.WriteFile(bin, bodies["usr/local/bin/sops-aws-sync"], 0o755))
	got, err := exec.Command(bin, "--version").CombinedOutput()
	require.NoError(t, err, "%s", got)
	assert.Contains(t, string(got), version)
	assert.Contains(t, string(got), commit)

	// The real binary built twice into images: one digest.
	var again bytes.Buffer
	require.NoError(t, run([]string{"build", "-dist", dist, "-out", filepath.Join(t.TempDir(), "again"), "-commit", commit, "-created", created.UTC().Format(time.RFC3339), "-platforms", plat}, &again))
	assert.Equal(t, stdout.String(), again.String())
	t.Logf("index %s", strings.TrimSpace(stdout.String()))
}
