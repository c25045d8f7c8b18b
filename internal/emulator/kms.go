package emulator

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// KMS keys, for --kms-key-id. The emulator keeps a small registry of KMS keys and
// aliases so that KmsKeyId can be validated the way Secrets Manager does, and
// it records on every version which keys can decrypt it, so that the
// re-encryption rules of UpdateSecret and unusable keys (Faults.KMSKeyFaults)
// can be modelled. Nothing is really encrypted. Sources: the service model's
// KmsKeyId documentation for CreateSecret/UpdateSecret/DescribeSecret, the
// user guide page "Change the encryption key for a secret", and field
// reports cited in docs/emulator.md.

// DefaultKMSAlias is the alias of the AWS managed key Secrets Manager uses
// when a secret names no key (or the empty string).
const DefaultKMSAlias = "alias/aws/secretsmanager"

// defaultKMSKeyID is the key id of the emulator's aws/secretsmanager key.
const defaultKMSKeyID = "5ec2e75a-0000-4000-8000-000000000001"

// defaultKeyMarker is how ListSecretVersionIds names the AWS managed key in a
// version's KmsKeyIds (field report, see docs/emulator.md).
const defaultKeyMarker = "DefaultEncryptionKey"

// KMS key states a KMSKeyFault can put a key into.
const (
	KMSDisabled        = "disabled"
	KMSPendingDeletion = "pending-deletion"
	KMSAccessDenied    = "access-denied"
)

// KMSKey is one KMS key of the emulator's registry (POST /_emulator/kms/keys,
// WithKMSKeys, AddKMSKey). KeyID is a key id: a UUID such as
// 1234abcd-12ab-34cd-56ef-1234567890ab, or "mrk-" and 32 hex digits for a
// multi-Region key; empty asks the emulator to generate one. Aliases are
// alias names ("alias/" + 1-250 of A-Za-z0-9/_-, never under "alias/aws/"),
// each pointing at this key (an alias that already points elsewhere is
// moved, as KMS UpdateAlias would). ARN and AWSManaged are output only.
type KMSKey struct {
	KeyID      string   `json:"key_id"`
	ARN        string   `json:"arn,omitempty"`
	Aliases    []string `json:"aliases"`
	AWSManaged bool     `json:"aws_managed,omitempty"`
}

// KMSAlias points AliasName at the key TargetKeyID (a key id or key ARN) for
// POST /_emulator/kms/aliases: it creates the alias or moves it.
type KMSAlias struct {
	AliasName   string `json:"alias_name"`
	TargetKeyID string `json:"target_key_id"`
}

// KMSDump is GET /_emulator/kms: every key, the AWS managed
// aws/secretsmanager key first, then the others in the order they were added.
type KMSDump struct {
	Keys []KMSKey `json:"keys"`
}

// KMSKeyFault makes one KMS key unusable. Key names it by key id, key ARN,
// alias name or alias ARN (resolved whenever a call uses a key, so a fault
// on an alias follows the alias); State is "disabled", "pending-deletion"
// (writes get EncryptionFailure, reads DecryptionFailure) or "access-denied"
// (AccessDeniedException "Access to KMS is not allowed", as when the caller
// lacks kms:GenerateDataKey or kms:Decrypt on the key).
type KMSKeyFault struct {
	Key   string `json:"key"`
	State string `json:"state"`
}

// kmsRegistry holds the known keys; callers hold Emulator.mu. It survives
// Reset: KMS keys belong to another service.
type kmsRegistry struct {
	order   []string            // customer managed key ids, in the order added
	keys    map[string]struct{} // every known key id, the managed key included
	aliases map[string]string   // alias name → key id
}

func newKMSRegistry() *kmsRegistry {
	return &kmsRegistry{
		keys:    map[string]struct{}{defaultKMSKeyID: {}},
		aliases: map[string]string{DefaultKMSAlias: defaultKMSKeyID},
	}
}

// Error messages. msgKMSInvalidKeyID is a field report
// (terraform-provider-aws#13303); the not-found wordings are ours, built on
// KMS's NotFoundException text; the failure messages are the model's
// documentation of EncryptionFailure and DecryptionFailure; the access
// message is a field report (aws-cdk#7677, external-secrets).
const (
	msgKMSInvalidKeyID = "The operation failed because of an invalid KMS key: Invalid keyId"
	msgEncryptFailure  = "Secrets Manager can't encrypt the protected secret text using the provided KMS key. Check that the KMS key is available, enabled, and not in an invalid state."
	msgDecryptFailure  = "Secrets Manager can't decrypt the protected secret text using the provided KMS key."
	msgKMSAccessDenied = "Access to KMS is not allowed"
)

// kmsRef is a parsed KmsKeyId: either a key id or an alias name.
type kmsRef struct {
	keyID string // set for a key id or key ARN
	alias string // set for an alias name or alias ARN
	arn   bool   // given as an ARN
	// region and account of an ARN (empty for a bare id or alias name)
	region, account string
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// validKeyID accepts a UUID key id or a multi-Region key id.
func validKeyID(id string) bool {
	if rest, ok := strings.CutPrefix(id, "mrk-"); ok {
		return len(rest) == 32 && isHex(rest)
	}
	parts := strings.Split(id, "-")
	if len(parts) != 5 {
		return false
	}
	for i, n := range []int{8, 4, 4, 4, 12} {
		if len(parts[i]) != n || !isHex(parts[i]) {
			return false
		}
	}
	return true
}

// validAliasName accepts "alias/" followed by 1+ of A-Za-z0-9/_- (KMS's
// AliasName pattern), 256 characters at most in all.
func validAliasName(a string) bool {
	rest, ok := strings.CutPrefix(a, "alias/")
	if !ok || rest == "" || len(a) > 256 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// parseKMSRef parses the four accepted forms of KmsKeyId: key id, key ARN,
// alias name, alias ARN. ok is false for anything else.
func parseKMSRef(s string) (kmsRef, bool) {
	if strings.HasPrefix(s, "alias/") {
		return kmsRef{alias: s}, validAliasName(s)
	}
	if strings.HasPrefix(s, "arn:") {
		// arn:<partition>:kms:<region>:<account>:key/<id> or …:alias/<name>
		f := strings.SplitN(s, ":", 6)
		if len(f) != 6 || f[1] == "" || f[2] != "kms" || f[3] == "" || len(f[4]) != 12 || !isDigits(f[4]) {
			return kmsRef{}, false
		}
		// Another partition is as foreign as another Region or account.
		ref := kmsRef{arn: true, region: f[3], account: f[4]}
		if f[1] != "aws" {
			ref.region = f[1] + ":" + f[3]
		}
		if id, ok := strings.CutPrefix(f[5], "key/"); ok {
			ref.keyID = id
			return ref, validKeyID(id)
		}
		if strings.HasPrefix(f[5], "alias/") {
			ref.alias = f[5]
			return ref, validAliasName(f[5])
		}
		return kmsRef{}, false
	}
	return kmsRef{keyID: s}, validKeyID(s)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// validKMSKeyIDForm checks KmsKeyId without the registry: length (model
// KmsKeyIdType 0..2048) and one of the four forms; "" means the default key.
func validKMSKeyIDForm(kms *string) *core.Error {
	if kms == nil || *kms == "" {
		return nil
	}
	if utf8.RuneCountInString(*kms) > maxKmsKeyIDLen {
		return core.ErrTooLong("kmsKeyId", maxKmsKeyIDLen)
	}
	if _, ok := parseKMSRef(*kms); !ok {
		return core.Errf("InvalidParameterException", msgKMSInvalidKeyID)
	}
	return nil
}

func (e *call) kmsKeyARN(id string) string {
	return fmt.Sprintf("arn:aws:kms:%s:%s:key/%s", e.region, e.account, id)
}

func (e *call) kmsAliasARN(alias string) string {
	return fmt.Sprintf("arn:aws:kms:%s:%s:%s", e.region, e.account, alias)
}

// resolveKMS resolves a KmsKeyId to a key id of the registry ("" means the
// default key). The caller holds e.mu. An unknown key, or an ARN of another
// Region or account (not modelled), is InvalidParameterException.
func (e *call) resolveKMS(s string) (string, *core.Error) {
	if s == "" {
		return defaultKMSKeyID, nil
	}
	ref, ok := parseKMSRef(s)
	if !ok {
		return "", core.Errf("InvalidParameterException", msgKMSInvalidKeyID)
	}
	foreign := ref.arn && (ref.region != e.region || ref.account != e.account)
	if ref.alias != "" {
		id, known := e.kms.aliases[ref.alias]
		if !known || foreign {
			return "", core.Errf("InvalidParameterException", "The operation failed because of an invalid KMS key: Alias %s is not found.", e.kmsAliasARN(ref.alias))
		}
		return id, nil
	}
	id := ref.keyID // key ids are matched exactly (KMS's are lower case)
	if _, known := e.kms.keys[id]; !known || foreign {
		return "", core.Errf("InvalidParameterException", "The operation failed because of an invalid KMS key: Key '%s' does not exist", e.kmsKeyARN(ref.keyID))
	}
	return id, nil
}

// storedKeyID resolves a secret's stored KmsKeyId; a reference that no
// longer resolves (it cannot happen: keys and aliases are never removed)
// falls back to the default key.
func (e *call) storedKeyID(s *secret) string {
	id, err := e.resolveKMS(s.kmsKeyID)
	if err != nil {
		return defaultKMSKeyID
	}
	return id
}

// kmsState is the fault state of key id ("" when usable).
func (e *call) kmsState(id string) string {
	for _, f := range e.faults.KMSKeyFaults {
		if fid, err := e.resolveKMS(f.Key); err == nil && fid == id {
			return f.State
		}
	}
	return ""
}

func (e *Emulator) kmsFailure(state string, encrypt bool) *core.Error {
	var err *core.Error
	switch {
	case state == KMSAccessDenied:
		err = core.Errf("AccessDeniedException", msgKMSAccessDenied)
	case encrypt:
		err = core.Errf("EncryptionFailure", msgEncryptFailure)
	default:
		err = core.Errf("DecryptionFailure", msgDecryptFailure)
	}
	e.stats.Faults["error:"+err.Code]++
	return err
}

// encryptWith reports whether a new value can be encrypted under key id
// (kms:GenerateDataKey), as the error AWS answers when it cannot.
func (e *call) encryptWith(id string) *core.Error {
	if st := e.kmsState(id); st != "" {
		return e.kmsFailure(st, true)
	}
	return nil
}

// decrypt reports whether v can be decrypted: under any of the keys that
// encrypted it (after a key change the labelled versions carry both the
// previous and the new key). When none is usable the newest key's state
// chooses the error.
func (e *call) decrypt(v *version) *core.Error {
	last := ""
	for _, id := range v.keys {
		st := e.kmsState(id)
		if st == "" {
			return nil
		}
		last = st
	}
	if last == "" { // a version without keys (never produced): readable
		return nil
	}
	return e.kmsFailure(last, false)
}

// reencrypt applies UpdateSecret's rule for a changed key (user guide
// "Change the encryption key"): the versions labelled AWSCURRENT, AWSPENDING
// or AWSPREVIOUS are encrypted under the new key as well, keeping the
// previous key, so either can decrypt them; no version is created and no
// label moves. A version that cannot be decrypted with its keys, or when
// the new key cannot encrypt, is left as it is, silently, as the
// UpdateSecret reference describes for missing kms:Decrypt/kms:Encrypt.
func (e *call) reencrypt(n *secret, newID string) {
	if e.kmsState(newID) != "" {
		return
	}
	for i, v := range n.versions {
		labels := n.stages[v.id]
		if !slices.ContainsFunc(labels, func(l string) bool {
			return l == "AWSCURRENT" || l == "AWSPENDING" || l == "AWSPREVIOUS"
		}) || slices.Contains(v.keys, newID) {
			continue
		}
		if !slices.ContainsFunc(v.keys, func(id string) bool { return e.kmsState(id) == "" }) && len(v.keys) > 0 {
			continue
		}
		c := *v // versions are shared with older snapshots: copy, never mutate
		c.keys = append(slices.Clone(v.keys), newID)
		n.versions[i] = &c
	}
}

// keyIDsOut renders a version's keys for ListSecretVersionIds and the state
// dump: the AWS managed key as DefaultEncryptionKey.
func keyIDsOut(v *version) []string {
	out := make([]string, 0, len(v.keys))
	for _, id := range v.keys {
		if id == defaultKMSKeyID {
			id = defaultKeyMarker
		}
		out = append(out, id)
	}
	return out
}

// validateKMSKeyFaults checks the form of every fault (keys are resolved
// when used, so a fault may name a key added later).
func validateKMSKeyFaults(fs []KMSKeyFault) error {
	for i, f := range fs {
		if f.Key == "" {
			return fmt.Errorf("kms_key_faults[%d].key is required: a key id, key ARN, alias name or alias ARN", i)
		}
		if _, ok := parseKMSRef(f.Key); !ok {
			return fmt.Errorf("kms_key_faults[%d].key %q is not a key id, key ARN, alias name or alias ARN", i, f.Key)
		}
		switch f.State {
		case KMSDisabled, KMSPendingDeletion, KMSAccessDenied:
		default:
			return fmt.Errorf("kms_key_faults[%d].state must be one of disabled, pending-deletion, access-denied", i)
		}
	}
	return nil
}

// WithKMSKeys adds KMS keys (and their aliases) to the registry. It panics
// on an invalid key, since that is a programming error.
func WithKMSKeys(keys ...KMSKey) Option {
	return func(e *Emulator) {
		e.pendingKeys = append(e.pendingKeys, keys...)
	}
}

// AddKMSKey adds a customer managed key (a known key id only adds or moves
// its aliases) and returns it with its ARN, its generated id if KeyID was
// empty, and all of its aliases.
func (e *Emulator) AddKMSKey(k KMSKey) (KMSKey, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.addKMSKey(k)
}

func (e *Emulator) addKMSKey(k KMSKey) (KMSKey, error) {
	id := k.KeyID
	if id == "" {
		id = e.newVersionID()
	}
	if !validKeyID(id) {
		return KMSKey{}, fmt.Errorf("key_id %q is not a key id (a UUID, or mrk- and 32 hex digits)", k.KeyID)
	}
	if id == defaultKMSKeyID {
		return KMSKey{}, errors.New("key_id is the AWS managed aws/secretsmanager key's")
	}
	for _, a := range k.Aliases {
		if err := checkAliasName(a); err != nil {
			return KMSKey{}, err
		}
	}
	if _, known := e.kms.keys[id]; !known {
		e.kms.keys[id] = struct{}{}
		e.kms.order = append(e.kms.order, id)
	}
	for _, a := range k.Aliases {
		e.kms.aliases[a] = id
	}
	return e.kmsKeyOut(id), nil
}

func checkAliasName(a string) error {
	if !validAliasName(a) {
		return fmt.Errorf("alias %q is not an alias name: alias/ followed by A-Za-z0-9/_- (256 characters at most)", a)
	}
	if strings.HasPrefix(a, "alias/aws/") {
		return fmt.Errorf("alias %q: the alias/aws/ prefix is reserved for AWS managed keys", a)
	}
	return nil
}

// SetKMSAlias creates the alias a.AliasName or moves it to a.TargetKeyID (a
// known key id or key ARN of this Region and account).
func (e *Emulator) SetKMSAlias(a KMSAlias) error {
	if err := checkAliasName(a.AliasName); err != nil {
		return err
	}
	ref, ok := parseKMSRef(a.TargetKeyID)
	if !ok || ref.alias != "" {
		return fmt.Errorf("target_key_id %q is not a key id or key ARN", a.TargetKeyID)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	id, aerr := e.defCall().resolveKMS(a.TargetKeyID)
	if aerr != nil || id == defaultKMSKeyID {
		return fmt.Errorf("target_key_id %q is not a customer managed key of this emulator", a.TargetKeyID)
	}
	e.kms.aliases[a.AliasName] = id
	return nil
}

// KMSKeys returns the registry (see KMSDump).
func (e *Emulator) KMSKeys() KMSDump {
	e.mu.Lock()
	defer e.mu.Unlock()
	d := KMSDump{Keys: []KMSKey{e.kmsKeyOut(defaultKMSKeyID)}}
	for _, id := range e.kms.order {
		d.Keys = append(d.Keys, e.kmsKeyOut(id))
	}
	return d
}

func (e *Emulator) kmsKeyOut(id string) KMSKey {
	k := KMSKey{KeyID: id, ARN: e.defCall().kmsKeyARN(id), Aliases: []string{}, AWSManaged: id == defaultKMSKeyID}
	for a, target := range e.kms.aliases {
		if target == id {
			k.Aliases = append(k.Aliases, a)
		}
	}
	slices.Sort(k.Aliases)
	return k
}

// serveKMS serves GET /_emulator/kms, POST /_emulator/kms/keys and
// POST /_emulator/kms/aliases.
func (e *Emulator) serveKMS(w http.ResponseWriter, r *http.Request) {
	want := http.MethodPost
	if r.URL.Path == "/_emulator/kms" {
		want = http.MethodGet
	}
	if r.Method != want {
		w.Header().Set("Allow", want)
		writeControlError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s needs %s", r.URL.Path, want))
		return
	}
	switch r.URL.Path {
	case "/_emulator/kms":
		writeJSON(w, e.KMSKeys())
	case "/_emulator/kms/keys":
		var k KMSKey
		if !readControl(w, r, &k) {
			return
		}
		if k.ARN != "" || k.AWSManaged {
			writeControlError(w, http.StatusBadRequest, "arn and aws_managed are output only")
			return
		}
		out, err := e.AddKMSKey(k)
		if err != nil {
			writeControlError(w, http.StatusBadRequest, err.Error())
			return
		}
		writeJSON(w, out)
	case "/_emulator/kms/aliases":
		var a KMSAlias
		if !readControl(w, r, &a) {
			return
		}
		if err := e.SetKMSAlias(a); err != nil {
			writeControlError(w, http.StatusBadRequest, err.Error())
			return
		}
		writeJSON(w, map[string]string{"status": "ok"})
	}
}
