package reconcile

import "strings"

// NextForDesired returns the operator's next action for a desired-state
// error class (SPEC §3; docs/recovery.md, exit 3). The text is constant per
// class family and never includes a value.
func NextForDesired(class string) string {
	family, _, _ := strings.Cut(class, ":")
	switch {
	case class == "decrypt:no-key":
		return "no configured key could decrypt the document; give the runner the right key (e.g. SOPS_AGE_KEY_FILE) or re-encrypt for its key"
	case class == "decrypt:mac-mismatch":
		return "the document was altered after encryption; re-encrypt it with sops and commit"
	case class == "decrypt:key-service":
		return "the key service could not be reached or refused; check network access and kms:Decrypt, then re-run"
	case family == "decrypt":
		return "the document is not a readable SOPS file; re-create it with sops and commit"
	case class == "plaintext:bom":
		return "the decrypted document starts with a UTF-8 byte-order mark; save it without a BOM, re-encrypt and commit"
	case family == "plaintext":
		return "the decrypted document breaks a plaintext rule (docs/desired-state.md); fix it, re-encrypt and commit"
	case family == "name":
		return "a secret name is invalid or two documents map to one name; rename the file and commit"
	case class == "source:missing-root":
		return "the source root does not exist at this commit; check --source-root and --revision"
	case family == "source":
		return "a committed document is not a regular file or is too large; fix the file or raise --max-encrypted-bytes"
	case family == "git":
		return "the repository or revision could not be read; check --repository and --revision"
	}
	return "fix the committed documents (docs/desired-state.md) and re-run"
}
