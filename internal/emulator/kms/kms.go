package kms

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// Key states a KeyFault can put a key into (core.Keys.State answers them).
const (
	Disabled        = core.KeyDisabled
	PendingDeletion = core.KeyPendingDeletion
	AccessDenied    = core.KeyAccessDenied
)

// Key is one KMS key of the registry (POST /_emulator/kms/keys,
// emulator.WithKMSKeys, emulator.AddKMSKey). KeyID is a key id: a UUID
// such as 1234abcd-12ab-34cd-56ef-1234567890ab, or "mrk-" and 32 hex digits
// for a multi-Region key; empty asks the registry to generate one. Aliases
// are alias names ("alias/" + 1-250 of A-Za-z0-9/_-, never under
// "alias/aws/"), each pointing at this key (an alias that already points
// elsewhere is moved, as KMS UpdateAlias would). ARN and AWSManaged are
// output only.
type Key struct {
	KeyID      string   `json:"key_id"`
	ARN        string   `json:"arn,omitempty"`
	Aliases    []string `json:"aliases"`
	AWSManaged bool     `json:"aws_managed,omitempty"`
}

// Alias points AliasName at the key TargetKeyID (a key id or key ARN) for
// POST /_emulator/kms/aliases: it creates the alias or moves it.
type Alias struct {
	AliasName   string `json:"alias_name"`
	TargetKeyID string `json:"target_key_id"`
}

// Dump is GET /_emulator/kms: every key, the AWS managed
// aws/secretsmanager key first, then the others in the order they were
// added.
type Dump struct {
	Keys []Key `json:"keys"`
}

// KeyFault makes one KMS key unusable. Key names it by key id, key ARN,
// alias name or alias ARN (resolved whenever a call uses a key, so a fault
// on an alias follows the alias); State is "disabled", "pending-deletion"
// (writes get EncryptionFailure, reads DecryptionFailure) or "access-denied"
// (AccessDeniedException "Access to KMS is not allowed", as when the caller
// lacks kms:GenerateDataKey or kms:Decrypt on the key).
type KeyFault struct {
	Key   string `json:"key"`
	State string `json:"state"`
}

// Registry holds the known keys; callers hold the emulator's lock. It
// survives the emulator's reset: KMS keys belong to another service.
type Registry struct {
	order   []string            // customer managed key ids, in the order added
	keys    map[string]struct{} // every known key id, the managed key included
	aliases map[string]string   // alias name → key id
}

// NewRegistry returns a registry that knows only the AWS managed
// aws/secretsmanager key (core.SecretsManagerKeyID).
func NewRegistry() *Registry {
	return &Registry{
		keys:    map[string]struct{}{core.SecretsManagerKeyID: {}},
		aliases: map[string]string{core.SecretsManagerKeyAlias: core.SecretsManagerKeyID},
	}
}

// msgInvalidKeyID is a field report (terraform-provider-aws#13303); the
// not-found wordings are ours, built on KMS's NotFoundException text.
const msgInvalidKeyID = "The operation failed because of an invalid KMS key: Invalid keyId"

// KeyARN is the ARN of key id in account and region.
func KeyARN(account, region, id string) string {
	return fmt.Sprintf("arn:aws:kms:%s:%s:key/%s", region, account, id)
}

// AliasARN is the ARN of alias name alias in account and region.
func AliasARN(account, region, alias string) string {
	return fmt.Sprintf("arn:aws:kms:%s:%s:%s", region, account, alias)
}

// Resolve resolves a KmsKeyId to a key id of the registry ("" means the
// AWS managed aws/secretsmanager key) for a caller in account and region.
// An unknown key, or an ARN of another Region or account (not modelled), is
// InvalidParameterException.
func (r *Registry) Resolve(account, region, s string) (string, *core.Error) {
	if s == "" {
		return core.SecretsManagerKeyID, nil
	}
	ref, ok := core.ParseKeyRef(s)
	if !ok {
		return "", core.Errf("InvalidParameterException", msgInvalidKeyID)
	}
	foreign := ref.ARN && (ref.Region != region || ref.Account != account)
	if ref.Alias != "" {
		id, known := r.aliases[ref.Alias]
		if !known || foreign {
			return "", core.Errf("InvalidParameterException", "The operation failed because of an invalid KMS key: Alias %s is not found.", AliasARN(account, region, ref.Alias))
		}
		return id, nil
	}
	id := ref.KeyID // key ids are matched exactly (KMS's are lower case)
	if _, known := r.keys[id]; !known || foreign {
		return "", core.Errf("InvalidParameterException", "The operation failed because of an invalid KMS key: Key '%s' does not exist", KeyARN(account, region, ref.KeyID))
	}
	return id, nil
}

// State is the fault state of key id under faults ("" when usable), for a
// caller in account and region.
func (r *Registry) State(account, region, id string, faults []KeyFault) string {
	for _, f := range faults {
		if fid, err := r.Resolve(account, region, f.Key); err == nil && fid == id {
			return f.State
		}
	}
	return ""
}

// ValidateFaults checks the form of every fault (keys are resolved when
// used, so a fault may name a key added later).
func ValidateFaults(fs []KeyFault) error {
	for i, f := range fs {
		if f.Key == "" {
			return fmt.Errorf("kms_key_faults[%d].key is required: a key id, key ARN, alias name or alias ARN", i)
		}
		if !core.ValidKeyForm(f.Key) {
			return fmt.Errorf("kms_key_faults[%d].key %q is not a key id, key ARN, alias name or alias ARN", i, f.Key)
		}
		switch f.State {
		case Disabled, PendingDeletion, AccessDenied:
		default:
			return fmt.Errorf("kms_key_faults[%d].state must be one of disabled, pending-deletion, access-denied", i)
		}
	}
	return nil
}

// Add adds a customer managed key (a known key id only adds or moves its
// aliases) and returns it with its ARN in account and region, its id
// (newID's when k.KeyID is empty) and all of its aliases.
func (r *Registry) Add(account, region string, k Key, newID func() string) (Key, error) {
	id := k.KeyID
	if id == "" {
		id = newID()
	}
	if !core.ValidKeyID(id) {
		return Key{}, fmt.Errorf("key_id %q is not a key id (a UUID, or mrk- and 32 hex digits)", k.KeyID)
	}
	if id == core.SecretsManagerKeyID {
		return Key{}, errors.New("key_id is the AWS managed aws/secretsmanager key's")
	}
	for _, a := range k.Aliases {
		if err := checkAliasName(a); err != nil {
			return Key{}, err
		}
	}
	if _, known := r.keys[id]; !known {
		r.keys[id] = struct{}{}
		r.order = append(r.order, id)
	}
	for _, a := range k.Aliases {
		r.aliases[a] = id
	}
	return r.keyOut(account, region, id), nil
}

func checkAliasName(a string) error {
	if !core.ValidAliasName(a) {
		return fmt.Errorf("alias %q is not an alias name: alias/ followed by A-Za-z0-9/_- (256 characters at most)", a)
	}
	if strings.HasPrefix(a, "alias/aws/") {
		return fmt.Errorf("alias %q: the alias/aws/ prefix is reserved for AWS managed keys", a)
	}
	return nil
}

// SetAlias creates the alias a.AliasName or moves it to a.TargetKeyID (a
// known key id or key ARN of account and region).
func (r *Registry) SetAlias(account, region string, a Alias) error {
	if err := checkAliasName(a.AliasName); err != nil {
		return err
	}
	ref, ok := core.ParseKeyRef(a.TargetKeyID)
	if !ok || ref.Alias != "" {
		return fmt.Errorf("target_key_id %q is not a key id or key ARN", a.TargetKeyID)
	}
	id, aerr := r.Resolve(account, region, a.TargetKeyID)
	if aerr != nil || id == core.SecretsManagerKeyID {
		return fmt.Errorf("target_key_id %q is not a customer managed key of this emulator", a.TargetKeyID)
	}
	r.aliases[a.AliasName] = id
	return nil
}

// Dump is the registry (see Dump), ARNs in account and region.
func (r *Registry) Dump(account, region string) Dump {
	d := Dump{Keys: []Key{r.keyOut(account, region, core.SecretsManagerKeyID)}}
	for _, id := range r.order {
		d.Keys = append(d.Keys, r.keyOut(account, region, id))
	}
	return d
}

func (r *Registry) keyOut(account, region, id string) Key {
	k := Key{KeyID: id, ARN: KeyARN(account, region, id), Aliases: []string{}, AWSManaged: id == core.SecretsManagerKeyID}
	for a, target := range r.aliases {
		if target == id {
			k.Aliases = append(k.Aliases, a)
		}
	}
	slices.Sort(k.Aliases)
	return k
}
