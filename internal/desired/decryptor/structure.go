package decryptor

import (
	"errors"

	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/cmd/sops/common"
	"github.com/getsops/sops/v3/config"
	"github.com/getsops/sops/v3/keys"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Structural failures found without any key; they never quote the document.
var (
	// failClearLeaf: a value the document's own SOPS rules say is
	// encrypted is in clear text (a hand edit, a merge that took a
	// decrypted side, a file partly encrypted by a tool that is not SOPS).
	failClearLeaf = &decryptFailure{diag.DecryptNotEncrypted,
		"a value that the document's own SOPS rules (unencrypted_suffix, encrypted_suffix, unencrypted_regex, encrypted_regex, unencrypted_comment_regex, encrypted_comment_regex) say is encrypted is in clear text",
		""}
	// failNoMAC: the metadata holds no MAC, or one that is not SOPS
	// ciphertext; the decryption would fail its integrity check.
	failNoMAC = &decryptFailure{diag.DecryptMACMismatch,
		"the document's SOPS metadata holds no valid MAC (an empty or clear-text mac field), so its integrity cannot be verified", ""}
)

// Check applies every check to one committed document of format f that
// needs no key (SPEC §15, validate --no-decrypt), in the order Decrypt
// applies them before it asks for the data key, with the same classes:
// at most MaxEncryptedBytes (source:too-large); a SOPS document of the
// suffix's format with its metadata (decrypt:not-encrypted,
// decrypt:malformed); a whole-value envelope with encrypted data
// (checkBinaryStore); not deeper than canonical.MaxDepth
// (plaintext:too-deep); every leaf that the document's own rules
// (unencrypted_suffix, encrypted_regex, … as SOPS's Tree.shouldBeEncrypted
// reads them) say is encrypted is SOPS ciphertext (decrypt:not-encrypted);
// a MAC present in ciphertext form (decrypt:mac-mismatch); and a key that
// Options.KeyServices allows for every key group needed
// (decrypt:key-not-allowed). Nothing is decrypted and no key service is
// contacted, so a valid result says nothing about the MAC's value, the
// plaintext rules or whether a key can open the document. The diagnostic
// has no subject; nil when every check passed.
func (d *Decryptor) Check(data []byte, f model.Format) *diag.Diagnostic {
	if d.max > 0 && int64(len(data)) > d.max {
		e := diag.New(diag.SourceTooLarge, diag.Subject{})
		return &e
	}
	silenceSOPS()
	_, fail := recoverAs(failPanic, func() ([]byte, *decryptFailure) {
		_, _, _, fail := structure(data, f, d.src.allow)
		return nil, fail
	})
	if fail != nil {
		e := diag.New(fail.class, diag.Subject{}).WithSummary(fail.what).WithNext(fail.next)
		return &e
	}
	return nil
}

// structure loads one committed document with the store of its format and
// applies the checks that need no key (Check's list). It returns the
// loaded tree with the key groups allow permits in place of the
// document's, the store, and how many master keys the allow-list dropped.
// When too few are left, decrypt:key-not-allowed names every key of the
// document and why it was not contacted (keyReport).
func structure(data []byte, f canonical.Format, allow model.KeyServices) (sops.Tree, common.Store, int, *decryptFailure) {
	return structureWith(data, f, allow, func([]sops.KeyGroup) {})
}

// structureWith is structure, handing the document's key groups as
// committed to listed once the metadata is loaded.
func structureWith(data []byte, f canonical.Format, allow model.KeyServices, listed func([]sops.KeyGroup)) (sops.Tree, common.Store, int, *decryptFailure) {
	store := common.StoreForFormat(sopsFormat(f), config.NewStoresConfig())
	tree, err := store.LoadEncryptedFile(data)
	if err != nil {
		if errors.Is(err, sops.MetadataNotFound) || (f.Whole() && !looksLikeBinaryStore(data)) {
			return tree, store, 0, failNotEncrypted
		}
		return tree, store, 0, failMalformed
	}
	// The loaded tree has the plaintext's structure (SOPS encrypts leaf
	// values only), so its depth is the plaintext's: a document deeper than
	// canonical.MaxDepth is refused before SOPS decrypts and re-emits it
	// (re-emitting indents once per level: 515 MB for 10,000 levels).
	if f.Whole() {
		// A whole-value document is one encrypted string; its envelope is
		// checked before any key is asked for (binarystore.go).
		if fail := checkBinaryStore(f, tree.Branches); fail != nil {
			return tree, store, 0, fail
		}
	} else {
		if branchesTooDeep(tree.Branches) {
			te := canonical.TooDeep()
			return tree, store, 0, &decryptFailure{te.Class, te.What, te.Next}
		}
		if clearLeaf(tree) {
			return tree, store, 0, failClearLeaf
		}
	}
	if mac := tree.Metadata.MessageAuthenticationCode; !sopsCiphertext.MatchString(mac) {
		return tree, store, 0, failNoMAC
	}
	// Keys the operator did not allow are never contacted.
	listed(tree.Metadata.KeyGroups)
	groups, dropped := allowedKeys(tree.Metadata.KeyGroups, allow)
	if !enoughGroups(groups, tree.Metadata.ShamirThreshold) {
		// Nothing is contacted: each key is skipped, or not tried since
		// the groups left cannot reach the threshold.
		rep := newKeyReport(tree.Metadata.KeyGroups, tree.Metadata.ShamirThreshold,
			func(k keys.MasterKey) bool { return keyAllowed(k, allow) }, nil)
		return tree, store, dropped, withKeys(failKeyNotAllowed, rep)
	}
	tree.Metadata.KeyGroups = groups
	return tree, store, dropped, nil
}

// structureListed is structure, and the document's key groups as
// committed (before the allow-list dropped any), for the report of a
// document no key opens.
func structureListed(data []byte, f canonical.Format, allow model.KeyServices) (sops.Tree, common.Store, []sops.KeyGroup, int, *decryptFailure) {
	var listed []sops.KeyGroup
	tree, store, dropped, fail := structureWith(data, f, allow, func(g []sops.KeyGroup) { listed = g })
	return tree, store, listed, dropped, fail
}

// clearLeaf reports whether a value of tree that the document's own rules
// say is encrypted is not SOPS ciphertext. It walks the tree with SOPS's
// own Tree.Decrypt, so the rules are SOPS's (Tree.shouldBeEncrypted:
// the suffix and regex settings of the metadata, the comment regexes),
// over a cipher that only checks the form of each value and returns it
// unchanged: a string that is not ENC[AES256_GCM,…] (the empty string
// excepted: SOPS leaves it as it is) or a value that is not a string at
// all (a number, a boolean: SOPS stores those as ciphertext too) fails
// the walk. A comment in clear text does not: SOPS accepts those (files
// written by older versions), and canonicalisation drops comments.
func clearLeaf(tree sops.Tree) bool {
	_, err := tree.Decrypt(nil, formCipher{})
	return err != nil
}

// errClearValue is formCipher's refusal; its text is never shown.
var errClearValue = errors.New("a value is not SOPS ciphertext")

// formCipher is a sops.Cipher that decrypts nothing: Decrypt accepts a
// value in SOPS's ciphertext form (or the empty string) and returns it
// as it is, so the tree is unchanged by the walk.
type formCipher struct{}

func (formCipher) Encrypt(any, []byte, string) (string, error) {
	return "", errors.New("encryption is not used")
}

func (formCipher) Decrypt(ciphertext string, _ []byte, _ string) (any, error) {
	if ciphertext == "" || sopsCiphertext.MatchString(ciphertext) {
		return ciphertext, nil
	}
	return nil, errClearValue
}
