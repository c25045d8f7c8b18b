package decryptor

import (
	"bytes"
	"errors"
	"regexp"

	"github.com/getsops/sops/v3"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// sopsCiphertext is the shape of an encrypted SOPS value, as SOPS's AES
// cipher parses it (sops/v3 aes/cipher.go): ENC[AES256_GCM,data:…,iv:…,
// tag:…,type:…].
var sopsCiphertext = regexp.MustCompile(`^ENC\[AES256_GCM,data:(.+),iv:(.+),tag:(.+),type:(.+)\]`)

// Whole-value envelope failures; they never quote the document.
var (
	failWholeShape = &decryptFailure{diag.DecryptMalformed,
		`a whole-value document (.sops.txt, .sops.bin) is not a SOPS binary-store file: {"data": "ENC[…]", "sops": {…}} with data its only field`,
		"encrypt the file itself with sops (sops encrypt FILE.sops.txt; --input-type binary for another name), not a JSON, YAML or dotenv document"}
	failCleartext = &decryptFailure{diag.DecryptCleartextValue, "", ""}
)

// checkBinaryStore checks the loaded tree of a whole-value document (f is
// canonical.Text or canonical.Binary) before any key service is asked for
// its data key. SOPS's binary store writes the file as one branch with one
// item, "data", whose value is the whole file as one encrypted string
// (sops/v3 stores/json BinaryStore). Rules:
//   - anything else (another store's document, extra fields, a data value
//     that is not a string) is decrypt:malformed, since SOPS's emitter
//     would silently drop extra fields;
//   - an empty data string is plaintext:empty: SOPS never encrypts an empty
//     string, so an empty file is committed as "data": "";
//   - a data string that is not SOPS ciphertext is decrypt:cleartext-value:
//     SOPS left the value in clear text (an encrypted_suffix or
//     unencrypted_regex setting applied to a binary file by a SOPS version
//     that did not ignore it: getsops/sops#986, #1822). Its MAC is still
//     valid, so SOPS itself would decrypt it; it is refused and never
//     uploaded, whatever the keys.
func checkBinaryStore(f canonical.Format, branches sops.TreeBranches) *decryptFailure {
	if len(branches) != 1 || len(branches[0]) != 1 {
		return failWholeShape
	}
	item := branches[0][0]
	if k, ok := item.Key.(string); !ok || k != "data" {
		return failWholeShape
	}
	v, ok := item.Value.(string)
	switch {
	case !ok:
		return failWholeShape
	case v == "":
		var ce *canonical.Error
		if errors.As(canonical.Whole(f, nil), &ce) {
			return &decryptFailure{ce.Class, ce.What, ce.Next}
		}
		return failWholeShape
	case !sopsCiphertext.MatchString(v):
		return failCleartext
	}
	return nil
}

// looksLikeBinaryStore reports whether data could be a SOPS binary-store
// file that failed to parse: a JSON object (first byte after white space
// '{') that names the "sops" metadata key somewhere. SOPS's binary store
// always writes such a file (sops/v3 stores/json BinaryStore), so bytes
// that are not one are the file itself committed without encryption: a
// PEM block, a keystore, any text. Those are decrypt:not-encrypted (rotate
// the value: it is in the Git history), not decrypt:malformed; a damaged
// encrypted file (truncated, edited) still starts with '{' and names
// "sops", and stays malformed. (Valid JSON without "sops" is
// sops.MetadataNotFound, not-encrypted already.)
func looksLikeBinaryStore(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && bytes.Contains(t, []byte(`"sops"`))
}
