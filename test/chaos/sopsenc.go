package chaos

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"filippo.io/age"
	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/aes"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/cmd/sops/common"
	"github.com/getsops/sops/v3/config"
	"github.com/getsops/sops/v3/keyservice"
	"github.com/getsops/sops/v3/stores/dotenv"
	sopsjson "github.com/getsops/sops/v3/stores/json"
	sopsyaml "github.com/getsops/sops/v3/stores/yaml"
	"github.com/getsops/sops/v3/version"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
)

// Encrypter encrypts documents in process with the sops library (the same
// steps as `sops encrypt`: load the plain file, generate a data key wrapped
// for the age recipient, encrypt every value, compute and encrypt the MAC,
// emit) so that a scenario costs milliseconds, not a sops process per file.
// ValidateWithCLI cross-checks its output with the real sops binary.
type Encrypter struct {
	// Recipient is the age public key (age1…): a key id, never printed.
	Recipient string
	// Identity is the AGE-SECRET-KEY-1… string: key material, never printed.
	Identity string
	// KeyFile holds Identity, for SOPS_AGE_KEY_FILE.
	KeyFile string
}

// NewEncrypter generates an age key pair and writes the identity to
// dir/age.key (mode 0600).
func NewEncrypter(dir string) (*Encrypter, error) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return nil, fmt.Errorf("failed to generate an age key: %w", err)
	}
	e := &Encrypter{Recipient: id.Recipient().String(), Identity: id.String(), KeyFile: filepath.Join(dir, "age.key")}
	body := "# public key: " + e.Recipient + "\n" + e.Identity + "\n"
	if err := os.WriteFile(e.KeyFile, []byte(body), 0o600); err != nil {
		return nil, fmt.Errorf("failed to write the age key file: %w", err)
	}
	return e, nil
}

// valueCanary matches a value canary; key canaries (kcnry + 8 hex) are left
// in clear by SOPS by design and do not match.
var valueCanary = regexp.MustCompile(CanaryMarker + `[0-9a-f]{16}`)

type sopsStore interface {
	LoadPlainFile([]byte) (sops.TreeBranches, error)
	EmitEncryptedFile(sops.Tree) ([]byte, error)
}

func storeFor(f canonical.Format) sopsStore {
	switch f {
	case canonical.YAML:
		return sopsyaml.NewStore(&config.YAMLStoreConfig{})
	case canonical.Dotenv:
		return dotenv.NewStore(&config.DotenvStoreConfig{})
	}
	return sopsjson.NewStore(&config.JSONStoreConfig{})
}

// Encrypt returns the SOPS-encrypted bytes of d, as `sops encrypt` would
// write them for d.Path with this age recipient.
func (e *Encrypter) Encrypt(d Doc) ([]byte, error) {
	st := storeFor(d.Format)
	branches, err := st.LoadPlainFile(d.Plain)
	if err != nil {
		return nil, fmt.Errorf("failed to load %s plaintext: %w", d.Format, err)
	}
	if len(branches) == 0 {
		return nil, errors.New("failed to load plaintext: no document")
	}
	mk, err := sopsage.MasterKeyFromRecipient(e.Recipient)
	if err != nil {
		return nil, fmt.Errorf("failed to parse the age recipient: %w", err)
	}
	tree := sops.Tree{
		Branches: branches,
		Metadata: sops.Metadata{
			KeyGroups:         []sops.KeyGroup{{mk}},
			UnencryptedSuffix: sops.DefaultUnencryptedSuffix,
			Version:           version.Version,
		},
		FilePath: d.Path,
	}
	dataKey, errs := tree.GenerateDataKeyWithKeyServices([]keyservice.KeyServiceClient{keyservice.NewLocalClient()})
	if len(errs) > 0 {
		return nil, fmt.Errorf("failed to generate a data key: %v", errs)
	}
	if err := common.EncryptTree(common.EncryptTreeOpts{DataKey: dataKey, Tree: &tree, Cipher: aes.NewCipher()}); err != nil {
		return nil, fmt.Errorf("failed to encrypt the tree: %w", err)
	}
	out, err := st.EmitEncryptedFile(tree)
	if err != nil {
		return nil, fmt.Errorf("failed to emit the encrypted file: %w", err)
	}
	if valueCanary.Match(out) {
		return nil, errors.New("encrypted output still holds a value canary (a value was left unencrypted)")
	}
	return out, nil
}
