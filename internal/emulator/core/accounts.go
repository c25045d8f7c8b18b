package core

import (
	"crypto/sha256"
	"regexp"
	"strings"
)

// Accounts, Regions and principals: AWS keeps one of each service per
// (account, Region); a request's Region is its credential scope's, its
// account its access key's (docs/emulator.md, "Accounts and Regions").

// Principal is who sent a request.
type Principal struct {
	Account string
	ARN     string // IAM user/role ARN, or the assumed-role session ARN
	UserID  string // GetCallerIdentity's UserId
}

var accountRE = regexp.MustCompile(`^[0-9]{12}$`)

// ValidAccount reports whether s is an account id: 12 digits.
func ValidAccount(s string) bool { return accountRE.MatchString(s) }

// principalRE matches the principal ARNs an access key may be mapped to:
// an IAM user or role.
var principalRE = regexp.MustCompile(`^arn:aws:iam::([0-9]{12}):(user|role)/[\w+=,.@/-]{1,512}$`)

// ParsePrincipalARN splits an IAM user or role ARN
// (arn:aws:iam::<account>:user/<name> or …:role/<name>) into its account
// and kind ("user" or "role"); ok is false for anything else.
func ParsePrincipalARN(s string) (account, kind string, ok bool) {
	m := principalRE.FindStringSubmatch(s)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// StableID derives an AWS-style unique id (prefix + 16 upper-case
// alphanumerics) from s, so the same principal always gets the same id.
func StableID(prefix, s string) string {
	sum := sha256.Sum256([]byte(s))
	const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	var b [16]byte
	for i := range b {
		b[i] = upper[sum[i]%32]
	}
	return prefix + string(b[:])
}

// ValidRegion reports whether r has the form of a Region name
// (^([a-z]+-)+\d+$, 1 to 128 characters), like us-west-2.
func ValidRegion(r string) bool {
	if len(r) < 1 || len(r) > 128 {
		return false
	}
	parts := strings.Split(r, "-")
	if len(parts) < 2 {
		return false
	}
	for i, p := range parts {
		if p == "" {
			return false
		}
		for _, c := range p {
			if i == len(parts)-1 {
				if c < '0' || c > '9' {
					return false
				}
			} else if c < 'a' || c > 'z' {
				return false
			}
		}
	}
	return true
}

// Partition is the (account, Region) a request's credentials and
// signature chose: a service keeps one store per Partition, and a
// service's view of a request carries it.
type Partition struct {
	Account, Region string
}
