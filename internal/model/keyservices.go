package model

import (
	"errors"
	"strconv"
	"strings"
)

// DefaultKeyServices is the default of --key-services: the key services a
// run may contact when the operator names none. Only keys whose address no
// document can choose: age and PGP (local identities) and AWS KMS keys
// without a role or aws_profile (the KMS endpoint is the one the runner's
// AWS configuration gives for the key's Region; the key's ARN decides
// which key, not where the runner's credentials go).
const DefaultKeyServices = "age,pgp,aws-kms"

// KeyServices is the operator's allow-list of SOPS master keys a run may
// use to recover a document's data key. The sops block of a document is
// written by whoever writes the pull request, and SOPS contacts every key
// service it names with the runner's credentials (a Vault token, an Azure
// bearer token, AWS credentials through a chosen role or profile), so only
// the operator may decide which services are contacted. A master key it
// does not allow is never contacted. The zero value allows nothing.
type KeyServices struct {
	// Age and PGP allow local age and PGP identities.
	Age, PGP bool
	// KMS are patterns of AWS KMS key ARNs ("*" = any key).
	KMS []string
	// KMSRoles are patterns of IAM role ARNs a KMS key entry may ask SOPS
	// to assume; an entry with a role is allowed only when its key ARN
	// matches KMS and its role matches one of these.
	KMSRoles []string
	// KMSProfiles are AWS shared-config profile names a KMS key entry may
	// ask SOPS to use (exact); as for KMSRoles.
	KMSProfiles []string
	// Vault are HashiCorp Vault server origins (scheme://host:port), the
	// addresses the runner's VAULT_TOKEN may be sent to.
	Vault []string
	// GCPKMS are patterns of GCP KMS key resource IDs ("*" = any).
	GCPKMS []string
	// AzureKV are Azure Key Vault origins (https://NAME.vault.azure.net),
	// the addresses the runner's Azure token may be sent to.
	AzureKV []string
	// HCKMS are patterns of HuaweiCloud KMS key ids ("*" = any).
	HCKMS []string
}

// KeyServiceNames are the entry names of --key-services, in the order the
// documentation lists them.
var KeyServiceNames = []string{"age", "pgp", "aws-kms", "aws-kms-role", "aws-kms-profile", "vault", "gcp-kms", "azure-kv", "hckms"}

// ParseKeyServices reads a --key-services value: comma-separated entries,
// each NAME or NAME=VALUE (spaces around an entry are ignored):
//
//	age, pgp               local identities (no value)
//	aws-kms[=PATTERN]      AWS KMS keys whose ARN matches PATTERN (default "*")
//	aws-kms-role=PATTERN   a role a KMS key entry may name (its ARN must match)
//	aws-kms-profile=NAME   an aws_profile a KMS key entry may name
//	vault=URL              a Vault server (http or https origin, no path)
//	gcp-kms[=PATTERN]      GCP KMS key resource IDs (default "*")
//	azure-kv=URL           an Azure Key Vault (https origin, no path)
//	hckms[=PATTERN]        HuaweiCloud KMS key ids (default "*")
//
// A PATTERN matches a whole identifier; "*" in it matches any run of
// characters (including none), except in the ARN patterns of aws-kms and
// aws-kms-role, where it matches within one ":"-separated field of the ARN
// (a lone "*" still matches any ARN). Reasons never repeat the value.
func ParseKeyServices(s string) (KeyServices, error) {
	var k KeyServices
	if strings.TrimSpace(s) == "" {
		return k, errors.New("must name at least one key service (" + strings.Join(KeyServiceNames, ", ") + ")")
	}
	for i, entry := range strings.Split(s, ",") {
		n := "entry " + strconv.Itoa(i+1)
		name, value, hasValue := strings.Cut(strings.TrimSpace(entry), "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if hasValue && value == "" {
			return KeyServices{}, errors.New(n + ": has an empty value after \"=\"")
		}
		switch name {
		case "age", "pgp":
			if hasValue {
				return KeyServices{}, errors.New(n + ": " + name + " takes no value")
			}
			if name == "age" {
				k.Age = true
			} else {
				k.PGP = true
			}
		case "aws-kms", "gcp-kms", "hckms":
			if !hasValue {
				value = "*"
			}
			if err := checkPattern(value); err != nil {
				return KeyServices{}, errors.New(n + ": " + err.Error())
			}
			switch name {
			case "aws-kms":
				k.KMS = append(k.KMS, value)
			case "gcp-kms":
				k.GCPKMS = append(k.GCPKMS, value)
			default:
				k.HCKMS = append(k.HCKMS, value)
			}
		case "aws-kms-role", "aws-kms-profile":
			if !hasValue {
				return KeyServices{}, errors.New(n + ": " + name + " needs a value (" + name + "=...)")
			}
			if err := checkPattern(value); err != nil {
				return KeyServices{}, errors.New(n + ": " + err.Error())
			}
			if name == "aws-kms-role" {
				k.KMSRoles = append(k.KMSRoles, value)
			} else {
				k.KMSProfiles = append(k.KMSProfiles, value)
			}
		case "vault", "azure-kv":
			if !hasValue {
				return KeyServices{}, errors.New(n + ": " + name + " needs the service's URL (" + name + "=https://...)")
			}
			origin, ok := serviceOrigin(value, name == "vault")
			if !ok {
				return KeyServices{}, errors.New(n + ": " + name + " must be an absolute " + schemes(name == "vault") + " URL with a host and no user, path, query or fragment")
			}
			if name == "vault" {
				k.Vault = append(k.Vault, origin)
			} else {
				k.AzureKV = append(k.AzureKV, origin)
			}
		case "":
			return KeyServices{}, errors.New(n + ": is empty")
		default:
			return KeyServices{}, errors.New(n + ": is not a key service (one of " + strings.Join(KeyServiceNames, ", ") + ")")
		}
	}
	return k, nil
}

func schemes(httpAllowed bool) string {
	if httpAllowed {
		return "http or https"
	}
	return "https"
}

// checkPattern refuses patterns that cannot be an identifier: control
// characters, spaces, commas.
func checkPattern(p string) error {
	for _, r := range p {
		if r <= ' ' || r == 0x7f || r == ',' {
			return errors.New("contains a space or control character")
		}
	}
	if len(p) > 2048 {
		return errors.New("is longer than 2,048 bytes")
	}
	return nil
}

// serviceOrigin normalises a service URL to scheme://host:port (scheme
// and host lower-case, the scheme's default port written out, a path of
// "/" dropped); ok is false for anything else (relative, another scheme,
// user information, a path, a query or a fragment). Hand-written rather
// than net/url so that model stays a small dependency of the pure planner.
func serviceOrigin(raw string, httpAllowed bool) (string, bool) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return "", false
	}
	scheme = strings.ToLower(scheme)
	port := ""
	switch {
	case scheme == "https":
		port = "443"
	case scheme == "http" && httpAllowed:
		port = "80"
	default:
		return "", false
	}
	rest = strings.TrimSuffix(rest, "/")
	if rest == "" || strings.ContainsAny(rest, "/?#@\\%") {
		return "", false
	}
	host := rest
	if strings.HasPrefix(rest, "[") { // an IPv6 literal
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return "", false
		}
		host, rest = rest[:end+1], rest[end+1:]
		if rest != "" && rest[0] != ':' {
			return "", false
		}
		if rest != "" {
			port = rest[1:]
		}
	} else if h, p, hasPort := strings.Cut(rest, ":"); hasPort {
		host, port = h, p
	}
	if host == "" || port == "" || len(port) > 5 || strings.Trim(port, "0123456789") != "" {
		return "", false
	}
	if n, _ := strconv.Atoi(port); n < 1 || n > 65535 {
		return "", false
	}
	for _, r := range host {
		if r <= ' ' || r == 0x7f || r == ':' && !strings.HasPrefix(host, "[") {
			return "", false
		}
	}
	return scheme + "://" + strings.ToLower(host) + ":" + strconv.Itoa(mustAtoi(port)), true
}

func mustAtoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// matchPattern reports whether s matches p as a whole, "*" in p matching
// any run of characters.
func matchPattern(p, s string) bool {
	parts := strings.Split(p, "*")
	if len(parts) == 1 {
		return p == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return strings.HasSuffix(s, last)
}

func matchAny(patterns []string, s string) bool {
	for _, p := range patterns {
		if matchPattern(p, s) {
			return true
		}
	}
	return false
}

// matchARN reports whether arn matches the ARN pattern p field by field:
// both are split at ":" (arn:partition:service:region:account:resource)
// into the same number of fields, and "*" in a field matches within that
// field only, so a pattern's account or Region can never be met by text
// that spans several fields of another account's ARN. A pattern of exactly
// "*" matches any ARN.
func matchARN(p, arn string) bool {
	if p == "*" {
		return true
	}
	pf, af := strings.Split(p, ":"), strings.Split(arn, ":")
	if len(pf) != len(af) {
		return false
	}
	for i := range pf {
		if !matchPattern(pf[i], af[i]) {
			return false
		}
	}
	return true
}

func matchAnyARN(patterns []string, arn string) bool {
	for _, p := range patterns {
		if matchARN(p, arn) {
			return true
		}
	}
	return false
}

// AllowsKMS reports whether an AWS KMS key entry may be used: its ARN
// matches KMS, and a role or aws_profile it names (either may be "") is
// one the operator allowed.
func (k KeyServices) AllowsKMS(arn, role, profile string) bool {
	if !matchAnyARN(k.KMS, arn) {
		return false
	}
	if role != "" && !matchAnyARN(k.KMSRoles, role) {
		return false
	}
	if profile != "" && !matchAny(k.KMSProfiles, profile) {
		return false
	}
	return true
}

// AllowsVault reports whether a HashiCorp Vault key entry's address is an
// allowed Vault server (compared as origins, see ParseKeyServices).
func (k KeyServices) AllowsVault(address string) bool {
	return allowsOrigin(k.Vault, address, true)
}

// AllowsVaultKey reports whether a HashiCorp Vault key entry may be used:
// its address is an allowed Vault server (AllowsVault) and its engine_path
// and key_name name a transit decrypt endpoint (VaultTransitPath). SOPS
// sends the data key to path.Join(engine_path, "decrypt", key_name) as a
// write with the runner's VAULT_TOKEN, and both fields come from the
// document, so without the path rule a key_name of
// "../../secret/data/app" makes the run write to any path of the allowed
// server that the token may write.
func (k KeyServices) AllowsVaultKey(address, enginePath, keyName string) bool {
	return k.AllowsVault(address) && VaultTransitPath(enginePath, keyName)
}

// VaultTransitPath reports whether engine_path and key_name of a Vault key
// entry join to exactly enginePath + "/decrypt/" + keyName: keyName is a
// Vault transit key name (Vault's framework.GenericNameRegex: ASCII word
// characters, with "-" and "." inside, so never "." or ".." and never a
// "/"), and enginePath is one or more "/"-separated mount-path segments of
// ASCII word characters, "-" and ".", none of them "." or "..", with no
// leading, trailing or doubled "/".
func VaultTransitPath(enginePath, keyName string) bool {
	if !transitName(keyName) || enginePath == "" {
		return false
	}
	for _, seg := range strings.Split(enginePath, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.Trim(seg, wordChars+"-.") != "" {
			return false
		}
	}
	return true
}

const wordChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

func transitName(s string) bool {
	if s == "" || !strings.ContainsRune(wordChars, rune(s[0])) || !strings.ContainsRune(wordChars, rune(s[len(s)-1])) {
		return false
	}
	return strings.Trim(s, wordChars+"-.") == ""
}

// AllowsAzureKV reports whether an Azure Key Vault key entry's vault URL
// is an allowed vault.
func (k KeyServices) AllowsAzureKV(vaultURL string) bool {
	return allowsOrigin(k.AzureKV, vaultURL, false)
}

// AllowsAzureKVKey reports whether an Azure Key Vault key entry may be
// used: its vault is allowed (AllowsAzureKV) and its name and version are
// Key Vault object names (VaultObjectName, VaultObjectVersion). The Azure
// SDK builds the request path /keys/{name}/{version}/decrypt with each
// part path-escaped, which leaves "." and ".." as they are, so a document
// naming a key ".." would send the runner's Azure token to another path of
// the allowed vault.
func (k KeyServices) AllowsAzureKVKey(vaultURL, name, version string) bool {
	return k.AllowsAzureKV(vaultURL) && VaultObjectName(name) && VaultObjectVersion(version)
}

// VaultObjectName reports whether s is an Azure Key Vault object name:
// 1 to 127 ASCII letters, digits and "-" (Azure Key Vault documentation,
// "Object names").
func VaultObjectName(s string) bool {
	return s != "" && len(s) <= 127 && strings.Trim(s, alnum+"-") == ""
}

// VaultObjectVersion reports whether s is an Azure Key Vault object
// version: empty (the latest) or 1 to 64 ASCII letters and digits (Key
// Vault writes 32 hexadecimal digits).
func VaultObjectVersion(s string) bool {
	return len(s) <= 64 && strings.Trim(s, alnum) == ""
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// AllowsGCPKMS reports whether a GCP KMS key resource ID is allowed.
func (k KeyServices) AllowsGCPKMS(resourceID string) bool { return matchAny(k.GCPKMS, resourceID) }

// AllowsHCKMS reports whether a HuaweiCloud KMS key id is allowed.
func (k KeyServices) AllowsHCKMS(keyID string) bool { return matchAny(k.HCKMS, keyID) }

func allowsOrigin(allowed []string, raw string, httpAllowed bool) bool {
	origin, ok := serviceOrigin(raw, httpAllowed)
	if !ok {
		return false
	}
	for _, a := range allowed {
		if a == origin {
			return true
		}
	}
	return false
}
