package canonical

import (
	"bytes"
	"strings"
)

var (
	errDotenvLine = rule(ClassSyntax,
		"a dotenv line is neither blank, a comment (#…) nor KEY=value",
		"write every line as KEY=value or #comment, then re-encrypt it with sops")
	errDotenvEmptyKey = rule(ClassSyntax,
		"a dotenv line starts with '=' (its key is empty)",
		"give every line a KEY before '=', then re-encrypt it with sops")
	errDotenvDuplicate = rule(ClassDuplicateKey,
		"a key appears on two dotenv lines",
		"keep one line per key in the source document, then re-encrypt it with sops")
)

// dotenvToJSON follows SOPS's dotenv semantics and turns KEY=value lines
// into a JSON object of strings:
//   - lines are separated by "\n"; one trailing "\r" per line is removed
//     (CRLF files; SOPS itself would keep the "\r" inside the value);
//   - empty lines are skipped; a line starting with '#' is a comment;
//   - every other line is KEY=value split at the first '='; the key must be
//     non-empty; the value is kept byte for byte (no trimming, no quote
//     removal, no shell expansion) except that the two-character sequence
//     `\n` becomes a newline, exactly as SOPS reads and writes it;
//   - a key may appear only once;
//   - a document without any KEY=value line is empty (plaintext:empty).
//
// The UTF-8 and byte-order-mark rules are checked by the caller; a BOM in a
// dotenv file is where SOPS hides it: inside the first key.
func dotenvToJSON(plain []byte) ([]byte, *Error) {
	var buf bytes.Buffer
	seen := map[string]struct{}{}
	buf.WriteByte('{')
	n := 0
	for _, line := range bytes.Split(plain, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		pos := bytes.IndexByte(line, '=')
		if pos < 0 {
			return nil, errDotenvLine
		}
		if pos == 0 {
			return nil, errDotenvEmptyKey
		}
		key := string(line[:pos])
		if _, dup := seen[key]; dup {
			return nil, errDotenvDuplicate
		}
		seen[key] = struct{}{}
		value := strings.ReplaceAll(string(line[pos+1:]), `\n`, "\n")
		if n > 0 {
			buf.WriteByte(',')
		}
		n++
		writeJSONString(&buf, key)
		buf.WriteByte(':')
		writeJSONString(&buf, value)
	}
	buf.WriteByte('}')
	if n == 0 {
		return nil, errEmpty
	}
	return buf.Bytes(), nil
}
