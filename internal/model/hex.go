package model

// IsLowerHex reports whether s is exactly n lower-case hexadecimal digits
// (0-9, a-f): the one hex rule behind Git commit ids (IsRevision) and
// SHA-256 digests (IsDigest).
func IsLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// IsRevision reports whether s is a full Git commit id as the tool writes
// it: 40 lower-case hex digits (SHA-1 object names; the report's and the
// plan file's git_revision, SPEC §7.2 and §7.4).
func IsRevision(s string) bool { return IsLowerHex(s, 40) }
