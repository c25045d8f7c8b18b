package harness

import (
	"fmt"
	"runtime"
	"sync"
	"time"

	"filippo.io/age"
	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/aes"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/keys"
	sopslogging "github.com/getsops/sops/v3/logging"
	sopsjson "github.com/getsops/sops/v3/stores/json"
	"github.com/sirupsen/logrus"
)

// AgeKey is an age X25519 key pair: Identity goes into the key file the CLI
// reads (SOPS_AGE_KEY_FILE), Recipient encrypts.
type AgeKey struct {
	Identity  string // AGE-SECRET-KEY-1...
	Recipient string // age1...
}

// NewAgeKey generates a fresh age X25519 key pair.
func NewAgeKey() (AgeKey, error) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return AgeKey{}, fmt.Errorf("failed to generate age key: %w", err)
	}
	return AgeKey{Identity: id.String(), Recipient: id.Recipient().String()}, nil
}

var quietSOPS sync.Once

// SOPSVersion is written into the metadata of generated documents: the
// pinned sops version (go.mod).
const SOPSVersion = "3.13.3"

// EncryptJSON encrypts one plaintext JSON document for recipient exactly as
// `sops encrypt` does with default settings (every value encrypted with
// AES-256-GCM under a fresh data key, the data key wrapped with age, the
// MAC over all values), in process with the sops Go library.
func EncryptJSON(plain []byte, recipient string) ([]byte, error) {
	quietSOPS.Do(func() { sopslogging.SetLevel(logrus.FatalLevel) })
	store := &sopsjson.Store{}
	branches, err := store.LoadPlainFile(plain)
	if err != nil {
		return nil, fmt.Errorf("failed to load plaintext: %w", err)
	}
	mk, err := sopsage.MasterKeyFromRecipient(recipient)
	if err != nil {
		return nil, fmt.Errorf("failed to parse age recipient: %w", err)
	}
	tree := sops.Tree{
		Branches: branches,
		Metadata: sops.Metadata{
			KeyGroups: []sops.KeyGroup{{keys.MasterKey(mk)}},
			Version:   SOPSVersion,
		},
	}
	dataKey, errs := tree.GenerateDataKey()
	if len(errs) > 0 {
		return nil, fmt.Errorf("failed to wrap the data key: %v", errs[0])
	}
	cipher := aes.NewCipher()
	mac, err := tree.Encrypt(dataKey, cipher)
	if err != nil {
		return nil, fmt.Errorf("failed to encrypt the tree: %w", err)
	}
	tree.Metadata.LastModified = time.Now().UTC()
	tree.Metadata.MessageAuthenticationCode, err = cipher.Encrypt(mac, dataKey, tree.Metadata.LastModified.Format(time.RFC3339))
	if err != nil {
		return nil, fmt.Errorf("failed to encrypt the MAC: %w", err)
	}
	out, err := store.EmitEncryptedFile(tree)
	if err != nil {
		return nil, fmt.Errorf("failed to emit the encrypted document: %w", err)
	}
	return out, nil
}

// EncryptAll encrypts every document's plaintext on all CPUs and returns
// the ciphertexts in document order.
func EncryptAll(docs []Doc, recipient string) ([][]byte, error) {
	out := make([][]byte, len(docs))
	errs := make([]error, len(docs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				out[i], errs[i] = EncryptJSON(docs[i].Plain, recipient)
			}
		})
	}
	for i := range docs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
	}
	return out, nil
}
