package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	sopsconfig "github.com/getsops/sops/v3/config"
)

// MinSOPS is the oldest sops CLI import drives: 3.10 is the first whose
// `encrypt` takes the plaintext on stdin with --filename-override choosing
// the creation rule and the store by the path given (SOPS changelog 3.10.0).
var MinSOPS = [2]int{3, 10}

// Encrypter turns one plaintext into the bytes of the SOPS document at an
// absolute path, under the creation rule of config (a .sops.yaml) that
// matches that path.
//
// Error contract: the error never holds plaintext, ciphertext or the
// encrypter's own output text; it is ctx's error when ctx ended.
type Encrypter interface {
	Encrypt(ctx context.Context, config, path string, plain []byte) ([]byte, error)
}

// CLI is an Encrypter over the sops command-line program (SPEC §18;
// docs/migration.md says why the CLI and not the library): `sops
// --disable-version-check --config CONFIG encrypt --filename-override PATH`
// with the plaintext on its standard input (a pipe: never a file, an
// argument or an environment variable) and the document on its standard
// output, read into memory.
type CLI struct {
	// Bin is the sops executable.
	Bin string
	// Version is its version (major, minor), at least MinSOPS.
	Version [2]int
}

var _ Encrypter = (*CLI)(nil)

// Errors of FindCLI.
var (
	ErrNoSOPS  = errors.New("the sops CLI is not on PATH")
	ErrOldSOPS = errors.New("the sops CLI is older than 3.10")
)

var versionLine = regexp.MustCompile(`^sops (\d+)\.(\d+)\.\d+`)

// FindCLI finds sops on PATH and checks its version (`sops --version`):
// ErrNoSOPS, ErrOldSOPS, or an error of running it.
func FindCLI(ctx context.Context) (*CLI, error) {
	bin, err := exec.LookPath("sops")
	if err != nil {
		return nil, ErrNoSOPS
	}
	out, err := exec.CommandContext(ctx, bin, "--disable-version-check", "--version").Output()
	if err != nil {
		return nil, ErrNoSOPS
	}
	v, ok := ParseVersion(string(out))
	if !ok {
		return nil, ErrOldSOPS
	}
	if v[0] < MinSOPS[0] || v[0] == MinSOPS[0] && v[1] < MinSOPS[1] {
		return nil, ErrOldSOPS
	}
	return &CLI{Bin: bin, Version: v}, nil
}

// ParseVersion reads the major and minor version from the first line of
// `sops --version` ("sops 3.13.3" or "sops 3.13.3 (latest)").
func ParseVersion(out string) ([2]int, bool) {
	line, _, _ := strings.Cut(out, "\n")
	m := versionLine.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return [2]int{}, false
	}
	major, err1 := strconv.Atoi(m[1])
	minor, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil {
		return [2]int{}, false
	}
	return [2]int{major, minor}, true
}

// ErrEncrypt is the error of a sops run that failed; its own output is
// never kept (it may quote input).
var ErrEncrypt = errors.New("sops could not encrypt the value")

// Encrypt implements Encrypter.
func (c *CLI) Encrypt(ctx context.Context, config, path string, plain []byte) ([]byte, error) {
	cmd := exec.CommandContext(ctx, c.Bin, "--disable-version-check", "--config", config,
		"encrypt", "--filename-override", path)
	cmd.Dir = filepath.Dir(config)
	cmd.Stdin = bytes.NewReader(plain)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = nil // discarded: it may quote what it could not parse
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, ErrEncrypt
	}
	return out.Bytes(), nil
}

// ErrInClear is the error of a document SOPS wrote with a value left in
// clear (a creation rule's unencrypted_suffix, unencrypted_regex,
// encrypted_regex or encrypted_suffix): it is never written.
var ErrInClear = errors.New("the creation rule leaves part of the value unencrypted")

// encPrefix starts every value SOPS encrypted (its AES256_GCM format).
const encPrefix = "ENC[AES256_GCM,"

// CheckEncrypted reports whether doc, the JSON bytes of a SOPS document
// (the JSON store, or the binary store's {"data": …}), holds no value in
// clear: every leaf outside the top-level "sops" metadata is an encrypted
// string, or an empty string or null (SOPS leaves those as they are; they
// hold nothing). Otherwise ErrInClear, or ErrEncrypt for bytes that are
// no JSON object.
func CheckEncrypted(doc []byte) error {
	var top map[string]any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		return ErrEncrypt
	}
	if _, ok := top["sops"].(map[string]any); !ok {
		return ErrEncrypt
	}
	for k, v := range top {
		if k != "sops" && !sealed(v) {
			return ErrInClear
		}
	}
	return nil
}

func sealed(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == "" || strings.HasPrefix(t, encPrefix)
	case map[string]any:
		for _, e := range t {
			if !sealed(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range t {
			if !sealed(e) {
				return false
			}
		}
		return true
	}
	return false
}

// Reasons of CreationRule.
var (
	ErrNoConfig = errors.New("no .sops.yaml between the document's directory and the work tree's root")
	ErrNoRule   = errors.New("no creation rule of .sops.yaml matches the document's path")
)

// CreationRule finds the .sops.yaml that applies to the document at the
// absolute path doc — the nearest one from the document's directory up to
// the work tree's root top, as `sops` run from that directory finds it —
// and checks that one of its creation rules matches doc (SOPS's own
// reading of the file, config.LoadCreationRuleForFile: path_regex matched
// against the path relative to the .sops.yaml's directory). It returns
// the configuration's path, or ErrNoConfig, ErrNoRule, or an error of
// reading it (SOPS's own text is not kept).
func CreationRule(top, doc string) (string, error) {
	dir := filepath.Dir(doc)
	for {
		p := filepath.Join(dir, ".sops.yaml")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			conf, err := sopsconfig.LoadCreationRuleForFile(p, doc, nil)
			if err != nil || conf == nil {
				return "", ErrNoRule
			}
			return p, nil
		}
		if dir == top || len(dir) <= len(top) {
			return "", ErrNoConfig
		}
		dir = filepath.Dir(dir)
	}
}
