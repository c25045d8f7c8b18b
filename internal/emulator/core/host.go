package core

import "time"

// Host is the server a service's handlers run in, as they see it: one lock
// over the whole emulator's state (a handler validates its request first,
// then takes the lock and works under it), the emulator clock and the
// fault counters. The composing server (internal/emulator) implements it.
type Host interface {
	Lock()
	Unlock()
	// Now is the emulator clock. The caller holds the lock.
	Now() time.Time
	// CountFault counts one injected fault of kind ("error:<Code>") in
	// the server's stats. The caller holds the lock.
	CountFault(kind string)
	// Keys is the KMS key registry.
	Keys() Keys
}

// Keys is the KMS key registry as another service sees it: Secrets
// Manager and Parameter Store validate a KmsKeyId against it and ask
// whether a key is usable. Every method is called with the host's lock
// held; account and region are the caller's (a key ARN of another account
// or Region is not modelled, so it does not resolve).
type Keys interface {
	// Resolve resolves a KmsKeyId (key id, key ARN, alias name or alias
	// ARN) to a key id of the registry; "" is Secrets Manager's default
	// key. An unknown key is InvalidParameterException.
	Resolve(account, region, keyID string) (string, *Error)
	// State is the fault state of key id ("" when usable; see
	// emulator.KMSKeyFault).
	State(account, region, keyID string) string
	// AliasARN is the ARN of alias name alias in account and region.
	AliasARN(account, region, alias string) string
}

// Quota is one operation's request quota: the family of operations that
// share one token bucket per (account, Region), and its rate in requests
// per second.
type Quota struct {
	Family string
	Rate   float64
}

// The AWS managed key Secrets Manager encrypts a secret under when it names
// no key (or the empty string): the KMS registry knows it from the start,
// Secrets Manager names it DefaultEncryptionKey in a version's KmsKeyIds.
const (
	SecretsManagerKeyAlias = "alias/aws/secretsmanager"
	SecretsManagerKeyID    = "5ec2e75a-0000-4000-8000-000000000001"
)
