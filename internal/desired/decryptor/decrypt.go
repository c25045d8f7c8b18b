package decryptor

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/getsops/sops/v3/aes"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/cmd/sops/formats"
	"github.com/getsops/sops/v3/keys"
	"github.com/getsops/sops/v3/keyservice"
	"github.com/getsops/sops/v3/logging"
	"github.com/sirupsen/logrus"
	"google.golang.org/grpc"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Options shape one Decryptor.
type Options struct {
	// MaxEncryptedBytes bounds one committed document, in bytes (SPEC §2.1
	// --max-encrypted-bytes); a longer input is source:too-large and is
	// not parsed. 0 means no bound.
	MaxEncryptedBytes int64
	// KeyServiceTimeout bounds each remote key-service call (AWS KMS, GCP
	// KMS, Azure Key Vault, HashiCorp Vault, HuaweiCloud KMS), SDK retries
	// included (--operation-timeout); 0 means no bound of its own (the
	// context still ends the call).
	KeyServiceTimeout time.Duration
	// KeyServices are the master keys a decryption may use
	// (--key-services); the others are dropped from the document's
	// metadata before SOPS sees it, so they are never contacted. The zero
	// value allows none.
	KeyServices model.KeyServices
	// AfterFunc starts the KeyServiceTimeout bound of each call; nil is
	// time.AfterFunc (the real clock). Tests inject one they fire.
	AfterFunc AfterFunc
	// Waiting, when set, is called as a decryption starts a remote
	// key-service call, and the function it returns when the call has
	// returned: a caller that bounds the decryptions using the CPU (not
	// those waiting on a key service) releases a CPU slot for the time
	// of the call (desired.decryptAll).
	Waiting func() (done func())
}

// AfterFunc has time.AfterFunc's shape: f runs in its own goroutine once d
// has passed, unless stop is called first (stop reports whether it
// prevented f).
type AfterFunc func(d time.Duration, f func()) (stop func() bool)

// Decryptor decrypts committed SOPS documents in process (SPEC §3.2) for
// the documents of one load: age identities are loaded once per recipient
// and reused, SOPS_AGE_KEY_FILE is diagnosed at most once, and every remote
// key-service call ends with ctx. Safe for concurrent use.
type Decryptor struct {
	max int64
	src *keySources
}

// New returns a Decryptor whose key-service calls end when ctx ends.
func New(ctx context.Context, o Options) *Decryptor {
	return &Decryptor{max: o.MaxEncryptedBytes,
		src: &keySources{ctx: ctx, timeout: o.KeyServiceTimeout, afterFunc: o.AfterFunc, ages: &ageIdentities{}, allow: o.KeyServices,
			waiting: o.Waiting}}
}

// defaultAllow is the default allow-list, for callers inside this package
// that pass no key sources.
var defaultAllow = func() model.KeyServices {
	k, err := model.ParseKeyServices(model.DefaultKeyServices)
	if err != nil {
		panic("decryptor: the default --key-services does not parse")
	}
	return k
}()

// Decrypt decrypts one committed document of format f and verifies its
// MAC, returning the plaintext exactly as SOPS emits it (the caller clears
// it after use). Master keys outside Options.KeyServices are removed from
// the loaded metadata first and never contacted; when none that could open
// the document is left, the failure is decrypt:key-not-allowed. A failure
// is one diagnostic of a decrypt:* class (or
// plaintext:too-deep, or source:too-large for an input over
// MaxEncryptedBytes), without a subject (the caller names the document)
// and without any SOPS error text, which can echo plaintext; a panic inside
// SOPS is decrypt:malformed, its value dropped unread. SOPS's own logging
// is silenced before the first document is parsed.
func (d *Decryptor) Decrypt(data []byte, f model.Format) ([]byte, *diag.Diagnostic) {
	if d.max > 0 && int64(len(data)) > d.max {
		e := diag.New(diag.SourceTooLarge, diag.Subject{})
		return nil, &e
	}
	plain, fail := decryptSOPS(data, f, d.src)
	if fail != nil {
		e := diag.New(fail.class, diag.Subject{}).WithSummary(fail.what).WithNext(fail.next)
		return nil, &e
	}
	return plain, nil
}

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
	case canonical.Text, canonical.Binary:
		return formats.Binary
	}
	return formats.Json
}

// decryptFailure is a classified decryption failure; it holds no library
// error text. what and next are "" for the registry's summary and next
// action of the class (internal/diag), as for Decrypt's diagnostics.
type decryptFailure struct {
	class, what, next string
}

var (
	failNotEncrypted = &decryptFailure{diag.DecryptNotEncrypted, "", ""}
	failMalformed    = &decryptFailure{diag.DecryptMalformed, "", ""}
	failPanic        = &decryptFailure{diag.DecryptMalformed,
		"the SOPS library failed on this document (an internal panic, usually caused by a malformed file)",
		"re-create it with sops encrypt; if it persists, report the SOPS version that wrote the file"}
	failNoKey      = &decryptFailure{diag.DecryptNoKey, "", ""}
	failKeyService = &decryptFailure{diag.DecryptKeyService, "", ""}
	failIntegrity  = &decryptFailure{diag.DecryptMACMismatch, "", ""}
	// failKeyNotAllowed: every key that could open the document was
	// dropped by the allow-list; nothing was contacted.
	failKeyNotAllowed = &decryptFailure{diag.DecryptKeyNotAllowed, "", ""}
	// failNoKeyAllowed: the keys left after the allow-list could not
	// decrypt, and some were dropped: the operator learns both.
	failNoKeyAllowed = &decryptFailure{diag.DecryptNoKey,
		"no key this run has could decrypt the data key; the document also names keys of services --key-services does not allow, which were not contacted", ""}
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

// ageIdentities remembers, per age recipient, a SOPS age master key whose
// identities SOPS has already loaded, for the documents of one Decryptor.
//
// SOPS's local key service builds a fresh age.MasterKey for every data key,
// so each document re-reads SOPS_AGE_KEY_FILE (or SOPS_AGE_KEY, the
// SOPS_AGE_KEY_CMD output, the user's keys.txt, SSH keys) and re-derives
// every identity's public key: about 30 % of the CPU of loading 1,000 age
// documents (docs/desired-state.md, "Second pass"). age.MasterKey is documented to load its
// identities "at-most once" and to reuse them for every later Decrypt, so a
// copy of a key that has decrypted once carries the identities SOPS itself
// loaded, by SOPS's own rules, and decrypts the next data key with them. The
// cache is keyed by recipient because SOPS_AGE_KEY_CMD receives the
// recipient. Only a successful decryption is remembered: a failure loads
// again for the next document, exactly as SOPS would.
type ageIdentities struct {
	mu     sync.Mutex
	loaded map[string]sopsage.MasterKey // recipient → key with identities loaded
}

// decrypt recovers one age-encrypted data key. Errors are SOPS's, unread
// by callers beyond their presence.
func (c *ageIdentities) decrypt(recipient string, ciphertext []byte) ([]byte, error) {
	c.mu.Lock()
	key, ok := c.loaded[recipient]
	c.mu.Unlock()
	if !ok {
		key = sopsage.MasterKey{Recipient: recipient}
	}
	key.EncryptedKey = string(ciphertext)
	plaintext, err := key.Decrypt()
	if err == nil && !ok {
		key.EncryptedKey = ""
		c.mu.Lock()
		if c.loaded == nil {
			c.loaded = make(map[string]sopsage.MasterKey)
		}
		c.loaded[recipient] = key
		c.mu.Unlock()
	}
	return plaintext, err
}

// recordingKeyService wraps SOPS's local key service and notes which kinds
// of master keys failed, so a data-key failure is classified from typed
// facts (the key type of each failed request) rather than from error text.
// Age keys are decrypted through src.ages (identities loaded once per
// Decryptor); remote keys through SOPS's own master key types with a bounded
// context (keySources); every other key type (PGP) goes to SOPS's local key
// service unchanged.
type recordingKeyService struct {
	inner        keyservice.KeyServiceClient
	src          *keySources
	remoteFailed bool
	timedOut     bool // a remote key did not answer within src.timeout
	// tried is each key SOPS asked for, by keyName: "" when it opened its
	// group, else why it failed (keyreport.go). SOPS asks one key at a
	// time.
	tried map[string]string
}

func (r *recordingKeyService) note(k *keyservice.Key, why string) {
	if r.tried == nil {
		r.tried = map[string]string{}
	}
	r.tried[keyName(k)] = why
}

func (r *recordingKeyService) Decrypt(ctx context.Context, req *keyservice.DecryptRequest, opts ...grpc.CallOption) (*keyservice.DecryptResponse, error) {
	if k, ok := req.GetKey().GetKeyType().(*keyservice.Key_AgeKey); ok && r.src.ages != nil {
		plaintext, err := r.src.ages.decrypt(k.AgeKey.GetRecipient(), req.GetCiphertext())
		if err != nil {
			r.note(req.GetKey(), whyNoIdentity)
			return nil, err
		}
		r.note(req.GetKey(), "")
		return &keyservice.DecryptResponse{Plaintext: plaintext}, nil
	}
	if mk, ok := remoteMasterKey(req.GetKey(), req.GetCiphertext()); ok {
		if r.src.waiting != nil {
			defer r.src.waiting()()
		}
		callCtx, cancel := r.src.callContext()
		defer cancel()
		plaintext, err := mk.DecryptContext(callCtx)
		if err != nil {
			r.remoteFailed = true
			bound := errors.Is(context.Cause(callCtx), errKeyServiceBound) && r.src.parent().Err() == nil
			if bound {
				r.timedOut = true
			}
			r.note(req.GetKey(), remoteWhy(callCtx, req.GetKey(), err, bound))
			return nil, err
		}
		r.note(req.GetKey(), "")
		return &keyservice.DecryptResponse{Plaintext: plaintext}, nil
	}
	resp, err := r.inner.Decrypt(ctx, req, opts...)
	switch {
	case err != nil && remoteKey(req.GetKey()):
		r.remoteFailed = true
		r.note(req.GetKey(), whyFailed)
	case err != nil:
		r.note(req.GetKey(), whyNoIdentity)
	default:
		r.note(req.GetKey(), "")
	}
	return resp, err
}

func (r *recordingKeyService) Encrypt(context.Context, *keyservice.EncryptRequest, ...grpc.CallOption) (*keyservice.EncryptResponse, error) {
	return nil, errors.New("encryption is not used")
}

// decryptSOPS decrypts one committed SOPS document and verifies its MAC.
// src (nil for none) carries what the decryptions of one Decryptor share: the
// age identities, the context and bound of key-service calls, the
// SOPS_AGE_KEY_FILE diagnosis.
//
// It performs the same steps, in the same order, as the SOPS library's
// stable entry point decrypt.DataWithFormat (load with the format's store,
// recover the data key, decrypt the tree, compare the MAC, emit the
// plaintext); a test asserts byte-identical output on every fixture. It
// calls the steps itself only to learn which step failed, and to use a
// recording key service for the data key, because DataWithFormat's errors
// are untyped strings, some of which echo plaintext.
//
// A panic inside SOPS becomes a malformed-document failure. src may be
// shared by the concurrent decryptions of one Decryptor.
func decryptSOPS(data []byte, f canonical.Format, src *keySources) ([]byte, *decryptFailure) {
	silenceSOPS()
	if src == nil {
		src = &keySources{allow: defaultAllow}
	}
	return recoverAs(failPanic, func() ([]byte, *decryptFailure) { return decryptSteps(data, f, src) })
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

func decryptSteps(data []byte, f canonical.Format, src *keySources) ([]byte, *decryptFailure) {
	tree, store, listed, dropped, fail := structureListed(data, f, src.allow)
	if fail != nil {
		return nil, fail
	}
	ks := &recordingKeyService{inner: keyservice.NewLocalClient(), src: src}
	key, err := tree.Metadata.GetDataKeyWithKeyServices([]keyservice.KeyServiceClient{ks}, nil)
	if err != nil {
		rep := newKeyReport(listed, tree.Metadata.ShamirThreshold, func(k keys.MasterKey) bool { return keyAllowed(k, src.allow) }, ks.tried)
		switch {
		case ks.timedOut:
			return nil, withKeys(failKeyServiceTimeout, rep)
		case ks.remoteFailed:
			return nil, withKeys(failKeyService, rep)
		}
		if hasAgeKey(tree.Metadata) {
			if f := src.keyFileFailure(); f != nil {
				return nil, withKeys(f, rep)
			}
		}
		if dropped > 0 {
			return nil, withKeys(failNoKeyAllowed, rep)
		}
		return nil, withKeys(failNoKey, rep)
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
