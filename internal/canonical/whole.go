package canonical

import (
	"bytes"
	"unicode/utf8"
)

// Whole checks the decrypted bytes of a whole-value document (SPEC §3.1):
// they are the value itself, never parsed or rewritten, so the only rules
// are AWS's and the text rules of a .sops.txt:
//   - 1..MaxValueBytes bytes (AWS Secrets Manager: SecretString and
//     SecretBinary are each at most 65,536 bytes; an empty value is refused
//     rather than stored as a secret that holds nothing);
//   - Text: valid UTF-8 (SecretString is a string; bytes that are not
//     UTF-8 belong in a .sops.bin) and no UTF-8 byte-order mark (SPEC §3.3;
//     consumers would read it as part of a PEM header or a key).
//
// It returns nil or an *Error whose class is plaintext:empty,
// plaintext:too-large, plaintext:not-utf8 or plaintext:bom, with a summary
// and next action written for whole values. f must be Text or Binary.
func Whole(f Format, plain []byte) error {
	if e := whole(f, plain); e != nil {
		return e
	}
	return nil
}

var (
	errWholeEmpty = rule(ClassEmpty,
		"the decrypted whole value is empty: AWS Secrets Manager stores no empty value",
		"put the value in the file (or delete the file), then re-encrypt it with sops")
	errWholeTooLarge = rule(ClassTooLarge,
		"the decrypted whole value is larger than 65,536 bytes, the AWS Secrets Manager limit for one value",
		"keep the file elsewhere (for example in S3, encrypted with KMS) and store only its location here, or split it (a certificate chain into one document per certificate)")
	errWholeNotUTF8 = rule(ClassNotUTF8,
		"the decrypted text of a .sops.txt document is not valid UTF-8",
		"rename the document to .sops.bin to store its exact bytes as SecretBinary, or save the text as UTF-8 and re-encrypt it with sops")
	errWholeBOM = rule(ClassBOM,
		"the decrypted text of a .sops.txt document starts with a UTF-8 byte-order mark (typical of files saved by Windows editors)",
		"save the file as UTF-8 without BOM (for example: sed -i '1s/^\\xEF\\xBB\\xBF//' FILE before encrypting) and re-encrypt it with sops, or rename it to .sops.bin if the mark is part of the value")
)

func whole(f Format, plain []byte) *Error {
	switch {
	case len(plain) == 0:
		return errWholeEmpty
	case len(plain) > MaxValueBytes:
		return errWholeTooLarge
	case f == Binary:
		return nil
	case f != Text:
		return errUnknownFormat
	case bytes.HasPrefix(plain, utf8BOM):
		return errWholeBOM
	case !utf8.Valid(plain):
		return errWholeNotUTF8
	}
	return nil
}
