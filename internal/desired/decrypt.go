package desired

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/aes"
	"github.com/getsops/sops/v3/cmd/sops/common"
	"github.com/getsops/sops/v3/cmd/sops/formats"
	"github.com/getsops/sops/v3/config"
	"github.com/getsops/sops/v3/keyservice"
	"github.com/getsops/sops/v3/logging"
	"github.com/sirupsen/logrus"
	"google.golang.org/grpc"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
)

var silenceOnce sync.Once

// silenceSOPS turns off every SOPS logger. SOPS logs through one logrus
// logger per package, all registered in logging.Loggers by package init
// functions; some of those messages carry plaintext (for example a comment
// SOPS could not decrypt is logged verbatim).
func silenceSOPS() {
	silenceOnce.Do(func() {
		for _, l := range logging.Loggers {
			l.SetOutput(io.Discard)
			l.SetLevel(logrus.PanicLevel)
		}
	})
}

// sopsFormat maps our format to the SOPS store format.
func sopsFormat(f canonical.Format) formats.Format {
	switch f {
	case canonical.YAML:
		return formats.Yaml
	case canonical.Dotenv:
		return formats.Dotenv
	}
	return formats.Json
}

// decryptFailure is a classified decryption failure; it holds no library
// error text.
type decryptFailure struct {
	class, what, next string
}

var (
	failNotEncrypted = &decryptFailure{ClassDecryptNotEncrypted,
		"the committed file has no SOPS metadata: it was committed without being encrypted",
		"encrypt it with sops before committing, and rotate every value in it: the plaintext is in the Git history"}
	failMalformed = &decryptFailure{ClassDecryptMalformed,
		"the committed file is not a well-formed SOPS document in the format its suffix names",
		"re-create it with sops encrypt (check that .sops.json/.sops.yaml/.sops.env matches the file's real format)"}
	failPanic = &decryptFailure{ClassDecryptMalformed,
		"the SOPS library failed on this document (an internal panic, usually caused by a malformed file)",
		"re-create it with sops encrypt; if it persists, report the SOPS version that wrote the file"}
	failNoKey = &decryptFailure{ClassDecryptNoKey,
		"no key available to this run could decrypt the document's data key",
		"provide a key the document is encrypted to (age: SOPS_AGE_KEY_FILE or SOPS_AGE_KEY; PGP: the secret key in the keyring), or re-encrypt the document with sops updatekeys for this run's key"}
	failKeyService = &decryptFailure{ClassDecryptKeyService,
		"a key service named in the document's SOPS metadata (AWS KMS, GCP KMS, Azure Key Vault, HashiCorp Vault, HuaweiCloud KMS) could not be reached or refused to decrypt, and no other key could",
		"check network access to that service and that this run's credentials may decrypt with the key (for AWS KMS: kms:Decrypt on the key ARN), then retry"}
	failIntegrity = &decryptFailure{ClassDecryptMACMismatch,
		"the document fails SOPS integrity checks (its MAC or an encrypted value does not verify): it was changed after encryption",
		"restore the document from a known-good commit or re-create it with sops; never edit encrypted values by hand"}
)

// remoteKey reports whether a master key is served by a remote service.
func remoteKey(k *keyservice.Key) bool {
	switch k.GetKeyType().(type) {
	case *keyservice.Key_KmsKey, *keyservice.Key_GcpKmsKey, *keyservice.Key_AzureKeyvaultKey,
		*keyservice.Key_VaultKey, *keyservice.Key_HckmsKey:
		return true
	}
	return false
}

// recordingKeyService wraps SOPS's local key service and notes which kinds
// of master keys failed, so a data-key failure is classified from typed
// facts (the key type of each failed request) rather than from error text.
type recordingKeyService struct {
	inner        keyservice.KeyServiceClient
	remoteFailed bool
}

func (r *recordingKeyService) Decrypt(ctx context.Context, req *keyservice.DecryptRequest, opts ...grpc.CallOption) (*keyservice.DecryptResponse, error) {
	resp, err := r.inner.Decrypt(ctx, req, opts...)
	if err != nil && remoteKey(req.GetKey()) {
		r.remoteFailed = true
	}
	return resp, err
}

func (r *recordingKeyService) Encrypt(context.Context, *keyservice.EncryptRequest, ...grpc.CallOption) (*keyservice.EncryptResponse, error) {
	return nil, errors.New("encryption is not used")
}

// decryptSOPS decrypts one committed SOPS document and verifies its MAC.
//
// It performs the same steps, in the same order, as the SOPS library's
// stable entry point decrypt.DataWithFormat (load with the format's store,
// recover the data key, decrypt the tree, compare the MAC, emit the
// plaintext); a test asserts byte-identical output on every fixture. It
// calls the steps itself only to learn which step failed, and to use a
// recording key service for the data key, because DataWithFormat's errors
// are untyped strings, some of which echo plaintext.
//
// A panic inside SOPS becomes a malformed-document failure.
func decryptSOPS(data []byte, f canonical.Format) ([]byte, *decryptFailure) {
	silenceSOPS()
	return recoverAs(failPanic, func() ([]byte, *decryptFailure) { return decryptSteps(data, f) })
}

// recoverAs runs fn and turns a panic into onPanic. The panic value is
// dropped unread: it may hold plaintext.
func recoverAs(onPanic *decryptFailure, fn func() ([]byte, *decryptFailure)) (out []byte, fail *decryptFailure) {
	defer func() {
		if r := recover(); r != nil {
			out, fail = nil, onPanic
		}
	}()
	return fn()
}

func decryptSteps(data []byte, f canonical.Format) ([]byte, *decryptFailure) {
	store := common.StoreForFormat(sopsFormat(f), config.NewStoresConfig())
	tree, err := store.LoadEncryptedFile(data)
	if err != nil {
		if errors.Is(err, sops.MetadataNotFound) {
			return nil, failNotEncrypted
		}
		return nil, failMalformed
	}
	ks := &recordingKeyService{inner: keyservice.NewLocalClient()}
	key, err := tree.Metadata.GetDataKeyWithKeyServices([]keyservice.KeyServiceClient{ks}, nil)
	if err != nil {
		if ks.remoteFailed {
			return nil, failKeyService
		}
		return nil, failNoKey
	}
	cipher := aes.NewCipher()
	mac, err := tree.Decrypt(key, cipher)
	if err != nil {
		return nil, classifyTreeError(err)
	}
	original, err := cipher.Decrypt(tree.Metadata.MessageAuthenticationCode, key,
		tree.Metadata.LastModified.Format(time.RFC3339))
	if err != nil || original != mac {
		return nil, failIntegrity
	}
	out, err := store.EmitPlainFile(tree.Branches)
	if err != nil {
		return nil, failMalformed
	}
	return out, nil
}

// classifyTreeError tells an encrypted value that fails authentication
// (edited, moved to another key, or encrypted under another data key: an
// integrity failure) from a value that is not SOPS ciphertext at all (a
// malformed document). SOPS only offers untyped error text here; the match
// stays internal and is pinned by a test on real fixtures.
func classifyTreeError(err error) *decryptFailure {
	if strings.Contains(err.Error(), "Could not decrypt with AES_GCM") {
		return failIntegrity
	}
	return failMalformed
}
