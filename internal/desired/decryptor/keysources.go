package decryptor

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/getsops/sops/v3"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/azkv"
	"github.com/getsops/sops/v3/gcpkms"
	"github.com/getsops/sops/v3/hckms"
	"github.com/getsops/sops/v3/hcvault"
	"github.com/getsops/sops/v3/keys"
	"github.com/getsops/sops/v3/keyservice"
	"github.com/getsops/sops/v3/kms"
	"github.com/getsops/sops/v3/pgp"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// keySources is what the decryptions of one Decryptor share.
type keySources struct {
	// ctx is the Decryptor's context; key-service calls end when it is cancelled.
	ctx context.Context
	// timeout bounds each key-service call (config.Desired.KeyServiceTimeout,
	// from --operation-timeout); 0 means no bound of its own.
	timeout time.Duration
	// afterFunc starts the timeout; nil is time.AfterFunc.
	afterFunc AfterFunc
	// ages remembers loaded age identities (nil: no reuse).
	ages *ageIdentities
	// allow is the operator's allow-list of master keys (--key-services);
	// a key outside it is dropped before SOPS sees the metadata.
	allow model.KeyServices
	// waiting is Options.Waiting (nil: not told).
	waiting func() (done func())

	keyFileOnce sync.Once
	keyFile     *decryptFailure
}

func (s *keySources) parent() context.Context {
	if s.ctx == nil {
		return context.Background()
	}
	return s.ctx
}

// errKeyServiceBound is the cause of a key-service call's context that
// its timeout ended.
var errKeyServiceBound = errors.New("key-service call exceeded its bound")

// callContext is the context of one key-service call: cancelled with cause
// errKeyServiceBound once the timeout passes on s.afterFunc's clock.
func (s *keySources) callContext() (context.Context, context.CancelFunc) {
	if s.timeout <= 0 {
		return context.WithCancel(s.parent())
	}
	ctx, cancel := context.WithCancelCause(s.parent())
	after := s.afterFunc
	if after == nil {
		after = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	stop := after(s.timeout, func() { cancel(errKeyServiceBound) })
	return ctx, func() { stop(); cancel(context.Canceled) }
}

// decryptContexter is every SOPS master key of a remote key service.
type decryptContexter interface {
	DecryptContext(context.Context) ([]byte, error)
}

// remoteMasterKey builds the SOPS master key for a remote key-service
// request, with the same fields SOPS's local key service sets
// (keyservice/server.go, decryptWith*), so that the call can be given a
// context: SOPS's local service calls each provider with
// context.Background(), and a KMS endpoint that accepts connections but
// never answers would hold the run for the whole --run-timeout. ok is
// false for key types that are not remote.
func remoteMasterKey(k *keyservice.Key, ciphertext []byte) (decryptContexter, bool) {
	enc := string(ciphertext)
	switch t := k.GetKeyType().(type) {
	case *keyservice.Key_KmsKey:
		ctx := make(map[string]*string, len(t.KmsKey.GetContext()))
		for key, v := range t.KmsKey.GetContext() {
			ctx[key] = &v
		}
		return &kms.MasterKey{Arn: t.KmsKey.GetArn(), Role: t.KmsKey.GetRole(), EncryptionContext: ctx,
			AwsProfile: t.KmsKey.GetAwsProfile(), EncryptedKey: enc}, true
	case *keyservice.Key_GcpKmsKey:
		return &gcpkms.MasterKey{ResourceID: t.GcpKmsKey.GetResourceId(), EncryptedKey: enc}, true
	case *keyservice.Key_AzureKeyvaultKey:
		return &azkv.MasterKey{VaultURL: t.AzureKeyvaultKey.GetVaultUrl(), Name: t.AzureKeyvaultKey.GetName(),
			Version: t.AzureKeyvaultKey.GetVersion(), EncryptedKey: enc}, true
	case *keyservice.Key_VaultKey:
		return &hcvault.MasterKey{VaultAddress: t.VaultKey.GetVaultAddress(), EnginePath: t.VaultKey.GetEnginePath(),
			KeyName: t.VaultKey.GetKeyName(), EncryptedKey: enc}, true
	case *keyservice.Key_HckmsKey:
		mk, err := hckms.NewMasterKey(t.HckmsKey.GetKeyId())
		if err != nil {
			return nil, false
		}
		mk.EncryptedKey = enc
		return mk, true
	}
	return nil, false
}

var failKeyServiceTimeout = &decryptFailure{diag.DecryptKeyService,
	"a key service named in the document's SOPS metadata (AWS KMS, GCP KMS, Azure Key Vault, HashiCorp Vault, HuaweiCloud KMS) did not answer within --operation-timeout, and no other key could decrypt",
	"check network access to that service (a proxy or firewall that accepts connections but never answers, or a wrong AWS_ENDPOINT_URL_KMS), then retry; raise --operation-timeout only if the service is known to be slow"}

// allowedKeys returns the document's key groups with every master key the
// operator did not allow removed (groups keep their places, so a Shamir
// threshold still counts the same groups), and how many keys it removed.
// SOPS contacts every key service the metadata names, with the runner's
// credentials, and the metadata is written by whoever writes the pull
// request; the MAC covers the values, not the key groups, so removing keys
// changes nothing else. A key type this function does not know is removed
// (fail closed).
func allowedKeys(groups []sops.KeyGroup, allow model.KeyServices) (kept []sops.KeyGroup, dropped int) {
	kept = make([]sops.KeyGroup, len(groups))
	for i, g := range groups {
		kept[i] = sops.KeyGroup{}
		for _, k := range g {
			if keyAllowed(k, allow) {
				kept[i] = append(kept[i], k)
			} else {
				dropped++
			}
		}
	}
	return kept, dropped
}

func keyAllowed(k keys.MasterKey, allow model.KeyServices) bool {
	switch t := k.(type) {
	case *sopsage.MasterKey:
		return allow.Age
	case *pgp.MasterKey:
		return allow.PGP
	case *kms.MasterKey:
		return allow.AllowsKMS(t.Arn, t.Role, t.AwsProfile)
	case *hcvault.MasterKey:
		return allow.AllowsVaultKey(t.VaultAddress, t.EnginePath, t.KeyName)
	case *azkv.MasterKey:
		return allow.AllowsAzureKVKey(t.VaultURL, t.Name, t.Version)
	case *gcpkms.MasterKey:
		return allow.AllowsGCPKMS(t.ResourceID)
	case *hckms.MasterKey:
		return allow.AllowsHCKMS(t.KeyID)
	}
	return false
}

// enoughGroups reports whether the key groups can still recover the data
// key: one non-empty group for a single group, otherwise at least the Shamir
// threshold of non-empty groups (SOPS's own rule in
// Metadata.GetDataKeyWithKeyServices).
func enoughGroups(groups []sops.KeyGroup, threshold int) bool {
	nonEmpty := 0
	for _, g := range groups {
		if len(g) > 0 {
			nonEmpty++
		}
	}
	if len(groups) <= 1 {
		return nonEmpty == 1
	}
	return nonEmpty >= max(1, threshold)
}

// hasAgeKey reports whether any key group of the document holds an age
// recipient.
func hasAgeKey(m sops.Metadata) bool {
	for _, g := range m.KeyGroups {
		for _, k := range g {
			if _, ok := k.(*sopsage.MasterKey); ok {
				return true
			}
		}
	}
	return false
}

// keyFileFailure diagnoses SOPS_AGE_KEY_FILE once per Decryptor: set, but naming
// no readable file (missing, a directory, unreadable). SOPS reports that as
// one of the reasons no age identity loaded; without this diagnosis it read
// as "no key", which sends the operator to the wrong fix. It is consulted only when a document
// with an age recipient could not be decrypted, so a broken variable never
// fails documents another key opens. The message names the variable,
// never its value.
func (s *keySources) keyFileFailure() *decryptFailure {
	s.keyFileOnce.Do(func() {
		p, ok := os.LookupEnv(sopsage.SopsAgeKeyFileEnv)
		if !ok {
			return
		}
		var what string
		fi, err := os.Stat(p)
		switch {
		case os.IsNotExist(err):
			what = "SOPS_AGE_KEY_FILE is set but names no existing file, so no age identity could be loaded from it"
		case err != nil:
			what = "SOPS_AGE_KEY_FILE is set but the file it names cannot be examined by this process"
		case fi.IsDir():
			what = "SOPS_AGE_KEY_FILE is set but names a directory, not an age identity file"
		default:
			f, err := os.Open(p)
			if err == nil {
				_, err = f.Read(make([]byte, 1))
				f.Close()
			}
			if err != nil && !errors.Is(err, io.EOF) {
				what = "SOPS_AGE_KEY_FILE is set but the file it names cannot be read by this process"
			}
		}
		if what != "" {
			// The precise reason; the registry's next action.
			s.keyFile = &decryptFailure{diag.DecryptKeyFile, what, ""}
		}
	})
	return s.keyFile
}

// branchesTooDeep reports whether any document of a loaded SOPS tree nests
// objects and arrays deeper than canonical.MaxDepth (the document's root
// object is depth 1). The walk stops at the limit, so its own recursion is
// bounded.
func branchesTooDeep(bs sops.TreeBranches) bool {
	for _, b := range bs {
		if valueTooDeep(b, 1) {
			return true
		}
	}
	return false
}

func valueTooDeep(v any, depth int) bool {
	switch t := v.(type) {
	case sops.TreeBranch:
		if depth > canonical.MaxDepth {
			return true
		}
		for _, item := range t {
			if valueTooDeep(item.Value, depth+1) {
				return true
			}
		}
	case []any:
		if depth > canonical.MaxDepth {
			return true
		}
		for _, item := range t {
			if valueTooDeep(item, depth+1) {
				return true
			}
		}
	}
	return false
}
