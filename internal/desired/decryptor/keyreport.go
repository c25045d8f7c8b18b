package decryptor

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/keys"
	"github.com/getsops/sops/v3/keyservice"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// Why one master key did not open a document (SPEC §3.2): fixed words,
// chosen from typed facts (the key's type, whether --key-services kept
// it, the AWS error code of a refused call, a call that never got an
// answer), never from a library's or provider's error text.
const (
	whyNoIdentity    = "no identity held"          // age, PGP: no identity or secret key this run holds opens it
	whySkipped       = "skipped by --key-services" // dropped before SOPS saw the metadata; never contacted
	whyAccessDenied  = "access denied"             // the service refused this run's credentials the key
	whyNotFound      = "not found or wrong Region" // NotFoundException: no such key in the ARN's account and Region
	whyNoCredentials = "no credentials"            // the call was never sent: no AWS credentials could be found
	whyBadCredential = "credentials refused"       // the service did not accept the credentials (unrecognized, expired)
	whyNoAnswer      = "no answer"                 // no answer within --operation-timeout, or the connection failed
	whyNotTried      = "not tried"                 // SOPS stopped before this key (its group was already opened)
	whyFailed        = "failed"                    // no typed fact tells more
)

// keyReport is what a decryption learned of each master key of a
// document that no key opened: per key group of the document as
// committed, its keys in order (type and public identifier) and why each
// failed; and how many groups were needed. It holds no key material and
// no library text.
type keyReport struct {
	groups [][]keyTry
	opened []bool // per group: a key of it recovered its part
	need   int
}

type keyTry struct {
	name string // type and public identifier ("age age1…", "AWS KMS arn:aws:kms:eu-west-1:************:key/…")
	why  string // "" when it opened its group
}

// String is the report as one sentence: "1 of 1 key groups needed, 0
// opened: group 1: age age1… (no identity held); AWS KMS arn:… (access
// denied)".
func (r keyReport) String() string {
	opened := 0
	for _, o := range r.opened {
		if o {
			opened++
		}
	}
	groups := "key groups"
	if len(r.groups) == 1 {
		groups = "key group"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d %s needed, %d opened", r.need, len(r.groups), groups, opened)
	for i, g := range r.groups {
		fmt.Fprintf(&b, "; group %d", i+1)
		switch {
		case r.opened[i]:
			b.WriteString(": opened")
			continue
		case len(g) == 0:
			b.WriteString(": no key")
			continue
		}
		for j, k := range g {
			sep := ", "
			if j == 0 {
				sep = ": "
			}
			b.WriteString(sep + k.name + " (" + k.why + ")")
		}
	}
	return b.String()
}

// newKeyReport builds the report of a document whose key groups as
// committed are listed, threshold its Shamir threshold, from tried: the
// outcome of each key SOPS asked for, by keyName ("" for one that opened).
// A listed key the allow-list dropped is skipped; one never asked for is
// not tried.
func newKeyReport(listed []sops.KeyGroup, threshold int, allowed func(keys.MasterKey) bool, tried map[string]string) keyReport {
	r := keyReport{groups: make([][]keyTry, len(listed)), opened: make([]bool, len(listed)), need: 1}
	if len(listed) > 1 {
		r.need = max(1, threshold)
	}
	for i, g := range listed {
		for _, mk := range g {
			k := keyservice.KeyFromMasterKey(mk)
			name := keyName(&k)
			why, ok := tried[name]
			switch {
			case !allowed(mk):
				why = whySkipped
			case !ok:
				why = whyNotTried
			case why == "":
				r.opened[i] = true
			}
			r.groups[i] = append(r.groups[i], keyTry{name: name, why: why})
		}
	}
	return r
}

// identifierRE is what a public identifier may hold as shown: anything
// else (a document's metadata is written by whoever writes the pull
// request) is not echoed.
var identifierRE = regexp.MustCompile(`^[A-Za-z0-9:/._+=@-]{1,256}$`)

// keyName is a master key's type and public identifier: the age
// recipient, the PGP fingerprint, the AWS KMS key ARN with its account
// masked, the GCP KMS resource id, the Azure Key Vault key's URL, the
// HashiCorp Vault key's path, the HuaweiCloud KMS key id. Never the
// encrypted data key, a role or a profile.
func keyName(k *keyservice.Key) string {
	kind, id := "unknown key type", ""
	switch t := k.GetKeyType().(type) {
	case *keyservice.Key_AgeKey:
		kind, id = "age", t.AgeKey.GetRecipient()
	case *keyservice.Key_PgpKey:
		kind, id = "PGP", t.PgpKey.GetFingerprint()
	case *keyservice.Key_KmsKey:
		kind, id = "AWS KMS", t.KmsKey.GetArn()
	case *keyservice.Key_GcpKmsKey:
		kind, id = "GCP KMS", t.GcpKmsKey.GetResourceId()
	case *keyservice.Key_AzureKeyvaultKey:
		kind, id = "Azure Key Vault", strings.TrimSuffix(t.AzureKeyvaultKey.GetVaultUrl(), "/")+"/keys/"+t.AzureKeyvaultKey.GetName()
	case *keyservice.Key_VaultKey:
		kind, id = "HashiCorp Vault", strings.TrimSuffix(t.VaultKey.GetVaultAddress(), "/")+"/v1/"+t.VaultKey.GetEnginePath()+"/keys/"+t.VaultKey.GetKeyName()
	case *keyservice.Key_HckmsKey:
		kind, id = "HuaweiCloud KMS", t.HckmsKey.GetKeyId()
	}
	if !identifierRE.MatchString(id) {
		return kind + " (identifier not shown)"
	}
	if _, ok := k.GetKeyType().(*keyservice.Key_KmsKey); ok {
		id = maskAccount(id)
	}
	return kind + " " + id
}

// maskAccount replaces the account of an ARN
// (arn:<partition>:<service>:<region>:<account>:<resource>) by twelve
// asterisks; text that is not an ARN is returned unchanged.
func maskAccount(arn string) string {
	f := strings.SplitN(arn, ":", 6)
	if len(f) != 6 || f[0] != "arn" || f[4] == "" {
		return arn
	}
	f[4] = "************"
	return strings.Join(f, ":")
}

// remoteWhy is why a remote key-service call failed, from typed facts:
// timedOut (the --operation-timeout bound ended it), the AWS error code
// of an answer (smithy.APIError), a request that could not be sent or got
// no answer (smithyhttp.RequestSendError, a cancelled or expired
// context). A call that failed before it was sent is no credentials when
// the SDK's default chain holds none for the key (credentialsMissing).
func remoteWhy(ctx context.Context, k *keyservice.Key, err error, timedOut bool) string {
	var api smithy.APIError
	var send *smithyhttp.RequestSendError
	var resp *smithyhttp.ResponseError
	switch {
	case timedOut || errors.Is(err, context.DeadlineExceeded):
		return whyNoAnswer
	case errors.As(err, &api):
		switch api.ErrorCode() {
		case "AccessDeniedException", "AccessDenied":
			return whyAccessDenied
		case "NotFoundException":
			return whyNotFound
		case "UnrecognizedClientException", "InvalidClientTokenId", "ExpiredTokenException", "InvalidSignatureException":
			return whyBadCredential
		}
		if code := api.ErrorCode(); errorCodeRE.MatchString(code) {
			return "refused: " + code
		}
		return whyFailed
	case errors.As(err, &send), errors.As(err, &resp):
		return whyNoAnswer
	}
	if kms, ok := k.GetKeyType().(*keyservice.Key_KmsKey); ok && credentialsMissing(ctx, kms.KmsKey.GetAwsProfile()) {
		return whyNoCredentials
	}
	return whyFailed
}

// withKeys is fail with the report appended to its summary (the class's
// registry summary when fail has none of its own): what the operator
// reads in the log, the plan file, show, Markdown and validate.
func withKeys(fail *decryptFailure, r keyReport) *decryptFailure {
	what := fail.what
	if what == "" {
		if e, ok := diag.Lookup(fail.class); ok {
			what = e.Summary
		}
	}
	return &decryptFailure{class: fail.class, what: what + ": " + r.String(), next: fail.next}
}

// errorCodeRE is an AWS error code as it may be shown: letters and
// digits, never text.
var errorCodeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,63}$`)

// credentialsMissing reports whether the SDK's default credential chain
// (with profile, as SOPS reads a KMS key's aws_profile) yields no
// credentials: asked only after a KMS call failed before it was sent.
func credentialsMissing(ctx context.Context, profile string) bool {
	var opts []func(*config.LoadOptions) error
	if profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(profile))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return false
	}
	if cfg.Credentials == nil {
		return true
	}
	_, err = cfg.Credentials.Retrieve(ctx)
	return err != nil
}
