package chaos

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"filippo.io/age"
	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/aes"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/cmd/sops/common"
	"github.com/getsops/sops/v3/config"
	"github.com/getsops/sops/v3/hcvault"
	"github.com/getsops/sops/v3/keys"
	"github.com/getsops/sops/v3/keyservice"
	"github.com/getsops/sops/v3/kms"
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
	case canonical.Text, canonical.Binary:
		return sopsjson.NewBinaryStore(&config.JSONBinaryStoreConfig{})
	case canonical.YAML:
		return sopsyaml.NewStore(&config.YAMLStoreConfig{})
	case canonical.Dotenv:
		return dotenv.NewStore(&config.DotenvStoreConfig{})
	}
	return sopsjson.NewStore(&config.JSONStoreConfig{})
}

// Encrypt returns the SOPS-encrypted bytes of d, as `sops encrypt` would
// write them for d.Path with this age recipient (a planted stanza, if d has
// one, points nowhere reachable: use EncryptPlanting for a listener).
func (e *Encrypter) Encrypt(d Doc) ([]byte, error) { return e.EncryptPlanting(d, "http://127.0.0.1:9") }

// EncryptPlanting is Encrypt, then adds d.Planted's key-service stanza to
// the metadata beside the age key, pointing at addr (a Vault address; for a
// KMS key with a role, the runner's AWS_ENDPOINT_URL_KMS/STS decide where
// it goes): what a pull request author can do to a document encrypted to
// the repository's key. SOPS's MAC covers the values, not the key groups,
// so the document still verifies and age still opens it.
func (e *Encrypter) EncryptPlanting(d Doc, addr string) ([]byte, error) {
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
	if k := plantedKey(d.Planted, addr); k != nil {
		tree.Metadata.KeyGroups[0] = append(sops.KeyGroup{k}, tree.Metadata.KeyGroups[0]...)
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

// plantedKey builds the master key of a planted stanza ("" → nil). Its
// encrypted data key is not one: nothing may ever ask the service.
func plantedKey(kind, addr string) keys.MasterKey {
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	switch kind {
	case PlantedVault:
		return &hcvault.MasterKey{VaultAddress: addr, EnginePath: "transit", KeyName: "sops",
			EncryptedKey: "vault:v1:bm90IGEgZGF0YSBrZXk=", CreationDate: created}
	case PlantedKMSRole:
		return &kms.MasterKey{Arn: "arn:aws:kms:us-east-1:999999999999:key/0b5c7c1e-2f4a-4c1e-9a51-4f2b8e1c5a90",
			Role: "arn:aws:iam::999999999999:role/planted", EncryptedKey: "bm90IGEgZGF0YSBrZXk=", CreationDate: created}
	}
	return nil
}
