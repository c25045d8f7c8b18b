package sts

import (
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

const stsXMLNS = "https://sts.amazonaws.com/doc/2011-06-15/"

// Role is one IAM role the emulator's STS knows (IAM.Roles): who may assume
// it and for how long. A role not listed may be assumed by anyone, unless
// IAM.RequireRoles.
type Role struct {
	// ARN is the role's ARN, arn:aws:iam::<account>:role/[<path>/]<name>.
	ARN string `json:"arn"`
	// Trust lists who may call AssumeRole on it (the role's trust policy):
	// "*" (anyone), a 12-digit account id (any principal of that account),
	// or a principal ARN: an IAM user or role ARN; a role ARN also admits
	// that role's sessions (AWS's trust policy rule for role principals).
	// Empty: nobody.
	Trust []string `json:"trust,omitempty"`
	// WebIdentitySubjects lists the `sub` claims that may call
	// AssumeRoleWithWebIdentity; "*" in a pattern matches any run of
	// characters (repo:acme/payments:*). Empty: nobody.
	WebIdentitySubjects []string `json:"web_identity_subjects,omitempty"`
	// Deny refuses every assumption of the role with AccessDenied, whatever
	// Trust says (an explicit deny).
	Deny bool `json:"deny,omitempty"`
	// MaxSessionDurationSeconds is the role's MaxSessionDuration: 3600
	// (0 means 3600) to 43200.
	MaxSessionDurationSeconds int64 `json:"max_session_duration_seconds,omitempty"`
}

var roleARNRE = regexp.MustCompile(`^arn:aws:iam::([0-9]{12}):role/(?:[\x21-\x7e]*/)?([\w+=,.@-]{1,64})$`)

// session is one set of temporary credentials the emulator's STS issued.
type session struct {
	Session
	secret, token string
	chained       bool // issued to a role session (role chaining)
	roleName      string
}

// Session is one set of temporary credentials issued by the emulator's STS
// (GET /_emulator/sessions): never the secret key or the session token.
type Session struct {
	AccessKeyID string    `json:"access_key_id"`
	Account     string    `json:"account"`
	RoleARN     string    `json:"role_arn"`
	SessionName string    `json:"session_name"`
	Expiration  time.Time `json:"expiration"`
	// Action is AssumeRole or AssumeRoleWithWebIdentity.
	Action string `json:"action"`
	// Caller is the principal ARN that assumed the role (for web identity:
	// the token's subject).
	Caller string `json:"caller"`
}

// Sessions is the answer of GET /_emulator/sessions, in issue order.
type Sessions struct {
	Sessions []Session `json:"sessions"`
}

// Issued is the temporary credentials STS issued, by access key id and in
// issue order. The emulator keeps one across its resets; callers hold the
// emulator's lock.
type Issued struct {
	byKey map[string]*session
	order []*session
}

// NewIssued returns an empty Issued.
func NewIssued() *Issued { return &Issued{byKey: map[string]*session{}} }

// Sessions returns the temporary credentials issued so far.
func (i *Issued) Sessions() Sessions {
	out := Sessions{Sessions: []Session{}}
	for _, s := range i.order {
		out.Sessions = append(out.Sessions, s.Session)
	}
	return out
}

// Lookup returns the principal of temporary credentials STS issued: the
// role session of access key key (ok false when STS did not issue it),
// refused when token is not its session token or it has expired at now
// (the emulator clock).
func (i *Issued) Lookup(key, token string, now time.Time) (who core.Principal, ok bool, err *core.Error) {
	s := i.byKey[key]
	if s == nil {
		return core.Principal{}, false, nil
	}
	if token != s.token {
		return core.Principal{}, true, core.Errf("UnrecognizedClientException", "The security token included in the request is invalid.")
	}
	if !now.Before(s.Expiration) {
		return core.Principal{}, true, core.Errf("ExpiredTokenException", "The security token included in the request is expired")
	}
	return core.Principal{Account: s.Account, ARN: s.arn(), UserID: s.userXML().AssumedRoleID}, true, nil
}

// Host is the server STS runs in (core.Host) and what STS reads of it,
// every method called with the lock held.
type Host interface {
	core.Host
	// Identify is the principal of an access key and session token:
	// temporary credentials STS issued (Issued.Lookup), else a long-term
	// key's (emulator.IAM's AccessKeys).
	Identify(accessKey, token string) (core.Principal, *core.Error)
	// Roles are the roles STS knows (emulator.IAM's Roles) and whether a
	// role not among them is refused (RequireRoles).
	Roles() (roles []Role, requireRoles bool)
	// Issued is where STS records the credentials it issues.
	Issued() *Issued
	// RandUpper is n characters of [A-Z0-9] from the emulator's seeded
	// generator.
	RandUpper(n int) string
	// CountCall counts one request of action (stats' calls, and retries
	// when retry).
	CountCall(action string, retry bool)
	// Hangs reports whether the faults hold action's requests unanswered
	// (emulator.Faults's STSHang).
	Hangs(action string) bool
	// Refuses reports whether every role of account is refused: an
	// account of an organization that is not ACTIVE, or one the faults
	// list (emulator.Faults's STSRefuseAccounts).
	Refuses(account string) bool
	// Silent reports whether the assumption of a role of account is never
	// answered (emulator.Faults's STSSilentAccounts).
	Silent(account string) bool
	// Scripted counts one request of action for the faults' script
	// (emulator.Faults's Script: the Nth request of an STS action, as of
	// every served operation) and returns the fault it gives this one.
	Scripted(action string) Scripted
}

// Scripted is the scripted fault of one STS request (Host.Scripted): the
// zero value is none.
type Scripted struct {
	// Hang: never answered, held until the client gives up.
	Hang bool
	// Hold, when not nil, holds the request until it is closed (the
	// control API's release), then serves it as usual; a client that gives
	// up first ends it as a hang does.
	Hold <-chan struct{}
	// Code and Message: answered with this error (Code "" is none):
	// HTTP 500 for InternalFailure, 403 for AccessDenied, else 400
	// (Throttling is STS's throttle: "Rate exceeded").
	Code, Message string
	// Fault is the kind the emulator counts and logs ("" when none).
	Fault string
}

// ValidateRoles reports the first invalid role, in words fit for a 400.
func ValidateRoles(roles []Role) error {
	seen := map[string]bool{}
	for i, r := range roles {
		if !roleARNRE.MatchString(r.ARN) {
			return fmt.Errorf("roles[%d].arn %q is not an IAM role ARN (arn:aws:iam::<12 digits>:role/<name>)", i, r.ARN)
		}
		if seen[r.ARN] {
			return fmt.Errorf("roles[%d].arn %q is listed twice", i, r.ARN)
		}
		seen[r.ARN] = true
		for _, p := range r.Trust {
			if _, _, isARN := core.ParsePrincipalARN(p); p != "*" && !core.ValidAccount(p) && !isARN {
				return fmt.Errorf("roles[%d].trust: %q is not \"*\", an account id or an IAM user or role ARN", i, p)
			}
		}
		for _, p := range r.WebIdentitySubjects {
			if p == "" {
				return fmt.Errorf("roles[%d].web_identity_subjects: empty pattern", i)
			}
		}
		if m := r.MaxSessionDurationSeconds; m != 0 && (m < 3600 || m > 43200) {
			return fmt.Errorf("roles[%d].max_session_duration_seconds must be 3600 to 43200", i)
		}
	}
	return nil
}

// stsError is an STS error answer (Query protocol ErrorResponse).
type stsError struct {
	status int
	typ    string // Sender or Receiver
	code   string
	msg    string
}

func stsErr(status int, code, format string, args ...any) *stsError {
	return &stsError{status: status, typ: "Sender", code: code, msg: fmt.Sprintf(format, args...)}
}

func stsValidation(format string, args ...any) *stsError {
	return stsErr(http.StatusBadRequest, "ValidationError", format, args...)
}

type stsErrorXML struct {
	XMLName xml.Name `xml:"ErrorResponse"`
	XMLNS   string   `xml:"xmlns,attr"`
	Error   struct {
		Type    string `xml:"Type"`
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	} `xml:"Error"`
	RequestID string `xml:"RequestId"`
}

type stsCredentialsXML struct {
	AccessKeyID     string `xml:"AccessKeyId"`
	SecretAccessKey string `xml:"SecretAccessKey"`
	SessionToken    string `xml:"SessionToken"`
	Expiration      string `xml:"Expiration"`
}

type assumedRoleUserXML struct {
	Arn           string `xml:"Arn"`
	AssumedRoleID string `xml:"AssumedRoleId"`
}

type responseMetadataXML struct {
	RequestID string `xml:"RequestId"`
}

type assumeRoleResponseXML struct {
	XMLName xml.Name `xml:"AssumeRoleResponse"`
	XMLNS   string   `xml:"xmlns,attr"`
	Result  struct {
		Credentials     stsCredentialsXML  `xml:"Credentials"`
		AssumedRoleUser assumedRoleUserXML `xml:"AssumedRoleUser"`
	} `xml:"AssumeRoleResult"`
	ResponseMetadata responseMetadataXML `xml:"ResponseMetadata"`
}

type assumeRoleWebIdentityResponseXML struct {
	XMLName xml.Name `xml:"AssumeRoleWithWebIdentityResponse"`
	XMLNS   string   `xml:"xmlns,attr"`
	Result  struct {
		Credentials                 stsCredentialsXML  `xml:"Credentials"`
		SubjectFromWebIdentityToken string             `xml:"SubjectFromWebIdentityToken"`
		AssumedRoleUser             assumedRoleUserXML `xml:"AssumedRoleUser"`
		Provider                    string             `xml:"Provider"`
		Audience                    string             `xml:"Audience"`
	} `xml:"AssumeRoleWithWebIdentityResult"`
	ResponseMetadata responseMetadataXML `xml:"ResponseMetadata"`
}

type getCallerIdentityResponseXML struct {
	XMLName xml.Name `xml:"GetCallerIdentityResponse"`
	XMLNS   string   `xml:"xmlns,attr"`
	Result  struct {
		Arn     string `xml:"Arn"`
		UserID  string `xml:"UserId"`
		Account string `xml:"Account"`
	} `xml:"GetCallerIdentityResult"`
	ResponseMetadata responseMetadataXML `xml:"ResponseMetadata"`
}

// Is tells an STS request (Query protocol: no X-Amz-Target, a form body
// or a credential scope for the sts service) from a Secrets Manager one.
func Is(r *http.Request) bool {
	if r.Header.Get("X-Amz-Target") != "" {
		return false
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		return true
	}
	sc, ok := core.ParseSigScope(r)
	return ok && sc.Service == "sts"
}

// Serve answers one STS request, whose body the emulator read, and
// reports what happened as the emulator logs it: the action ("STS" when
// none was read), the HTTP status (0 when the request was held until the
// client gave up), the error code and the fault.
func Serve(e Host, w http.ResponseWriter, r *http.Request, body []byte) (op string, status int, code, fault string) {
	op = "STS"
	fail := func(err *stsError) (string, int, string, string) {
		writeSTSError(w, err)
		return op, err.status, err.code, ""
	}
	form, err := url.ParseQuery(string(body))
	if err != nil || r.Method != http.MethodPost {
		return fail(stsErr(http.StatusBadRequest, "InvalidAction", "the emulator's STS serves POST with a form-encoded body"))
	}
	action := form.Get("Action")
	switch {
	case Serves(action):
		op = action
	default:
		e.Lock()
		e.CountCall("Unknown", false)
		e.Unlock()
		return fail(stsErr(http.StatusBadRequest, "InvalidAction", "Could not find operation %s for version %s", action, form.Get("Version")))
	}
	e.Lock()
	e.CountCall(op, core.SDKAttempt(r.Header) > 1)
	sf := e.Scripted(op)
	hang := ""
	switch {
	case sf.Hang:
		hang = sf.Fault
	case sf.Hold != nil || sf.Code != "":
	case e.Hangs(op):
		hang = "sts-hang"
	case op != "GetCallerIdentity" && e.Silent(roleAccount(form.Get("RoleArn"))):
		hang = "sts-silent-account"
	}
	if hang != "" {
		e.CountFault(hang)
	}
	e.Unlock()
	if hang != "" {
		// Never answered: held until the client gives up.
		<-r.Context().Done()
		return op, 0, "", hang
	}
	if sf.Hold != nil {
		select {
		case <-sf.Hold:
		case <-r.Context().Done():
			return op, 0, "", sf.Fault
		}
	}
	if sf.Code != "" {
		status := http.StatusBadRequest
		switch sf.Code {
		case "InternalFailure":
			status = http.StatusInternalServerError
		case "AccessDenied":
			status = http.StatusForbidden
		}
		err := stsErr(status, sf.Code, "%s", sf.Message)
		if status >= 500 {
			err.typ = "Receiver"
		}
		writeSTSError(w, err)
		return op, err.status, err.code, sf.Fault
	}
	var out any
	var serr *stsError
	switch op {
	case "AssumeRole":
		out, serr = assumeRole(e, r, form)
	case "AssumeRoleWithWebIdentity":
		out, serr = assumeRoleWithWebIdentity(e, form)
	case "GetCallerIdentity":
		out, serr = getCallerIdentity(e, r)
	}
	if serr != nil {
		return fail(serr)
	}
	b, merr := xml.Marshal(out)
	if merr != nil {
		return fail(&stsError{status: http.StatusInternalServerError, typ: "Receiver", code: "InternalFailure", msg: "cannot encode the response"})
	}
	writeSTS(w, http.StatusOK, b)
	return op, http.StatusOK, "", sf.Fault
}

func writeSTS(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("X-Amzn-Requestid", core.NewRequestID())
	w.WriteHeader(status)
	_, _ = w.Write([]byte(xml.Header))
	_, _ = w.Write(b)
}

func writeSTSError(w http.ResponseWriter, e *stsError) {
	var x stsErrorXML
	x.XMLNS = stsXMLNS
	x.Error.Type, x.Error.Code, x.Error.Message = e.typ, e.code, e.msg
	x.RequestID = core.NewRequestID()
	b, _ := xml.Marshal(x)
	writeSTS(w, e.status, b)
}

// caller resolves the principal of a signed STS request. e.mu is held.
func stsCaller(e Host, r *http.Request) (core.Principal, *session, *stsError) {
	sc, ok := core.ParseSigScope(r)
	if !ok {
		return core.Principal{}, nil, stsErr(http.StatusForbidden, "MissingAuthenticationToken", "Request is missing Authentication Token")
	}
	s := e.Issued().byKey[sc.AccessKey]
	who, aerr := e.Identify(sc.AccessKey, r.Header.Get("X-Amz-Security-Token"))
	if aerr != nil {
		code := "InvalidClientTokenId"
		if aerr.Code == "ExpiredTokenException" {
			code = "ExpiredToken"
		}
		return core.Principal{}, nil, stsErr(http.StatusForbidden, code, "%s", aerr.Message)
	}
	return who, s, nil
}

func getCallerIdentity(e Host, r *http.Request) (any, *stsError) {
	e.Lock()
	defer e.Unlock()
	who, _, serr := stsCaller(e, r)
	if serr != nil {
		return nil, serr
	}
	var out getCallerIdentityResponseXML
	out.XMLNS = stsXMLNS
	out.Result.Arn, out.Result.UserID, out.Result.Account = who.ARN, who.UserID, who.Account
	out.ResponseMetadata.RequestID = core.NewRequestID()
	return out, nil
}

// assumeParams are the parameters AssumeRole and AssumeRoleWithWebIdentity
// share, validated against the STS API reference's constraints.
type assumeParams struct {
	roleARN, account, roleName, sessionName string
	duration                                time.Duration
	durationGiven                           bool
}

var sessionNameRE = regexp.MustCompile(`^[\w+=,.@-]*$`)

func parseAssume(form url.Values) (assumeParams, *stsError) {
	var p assumeParams
	if !form.Has("RoleArn") {
		return p, stsValidation("1 validation error detected: Value null at 'roleArn' failed to satisfy constraint: Member must not be null")
	}
	if !form.Has("RoleSessionName") {
		return p, stsValidation("1 validation error detected: Value null at 'roleSessionName' failed to satisfy constraint: Member must not be null")
	}
	p.roleARN, p.sessionName = form.Get("RoleArn"), form.Get("RoleSessionName")
	if n := len(p.roleARN); n < 20 || n > 2048 {
		return p, stsValidation("1 validation error detected: Value '%s' at 'roleArn' failed to satisfy constraint: Member must have length between 20 and 2048", p.roleARN)
	}
	if n := len(p.sessionName); n < 2 || n > 64 {
		return p, stsValidation("1 validation error detected: Value '%s' at 'roleSessionName' failed to satisfy constraint: Member must have length between 2 and 64", p.sessionName)
	}
	if !sessionNameRE.MatchString(p.sessionName) {
		return p, stsValidation("1 validation error detected: Value '%s' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*", p.sessionName)
	}
	m := roleARNRE.FindStringSubmatch(p.roleARN)
	if m == nil {
		return p, stsValidation("%s is invalid", p.roleARN)
	}
	p.account, p.roleName = m[1], m[2]
	p.duration = time.Hour
	if v := form.Get("DurationSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return p, stsValidation("1 validation error detected: Value '%s' at 'durationSeconds' failed to satisfy constraint: Member must be a number", v)
		}
		if n < 900 || n > 43200 {
			return p, stsValidation("1 validation error detected: Value '%d' at 'durationSeconds' failed to satisfy constraint: Member must have value between 900 and 43200", n)
		}
		p.duration, p.durationGiven = time.Duration(n)*time.Second, true
	}
	return p, nil
}

// roleRule returns the configured rule of roleARN, or nil.
func roleRule(e Host, roleARN string) *Role {
	roles, _ := e.Roles()
	for i := range roles {
		if roles[i].ARN == roleARN {
			return &roles[i]
		}
	}
	return nil
}

// trusts reports whether rule admits caller (an IAM user/role ARN or an
// assumed-role session ARN of account).
func trusts(rule *Role, who core.Principal, s *session) bool {
	for _, p := range rule.Trust {
		switch {
		case p == "*", p == who.Account, p == who.ARN:
			return true
		case s != nil && p == s.RoleARN: // a role principal admits its sessions
			return true
		}
	}
	return false
}

// checkDuration applies the role's MaxSessionDuration and, for role
// chaining, the one-hour limit (STS API reference, AssumeRole
// DurationSeconds; message: field reports aws-vault#263, prowler#7721).
func checkDuration(p assumeParams, rule *Role, chained bool) *stsError {
	if chained && p.duration > time.Hour {
		return stsValidation("The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.")
	}
	limit := time.Hour
	if rule != nil && rule.MaxSessionDurationSeconds > 0 {
		limit = time.Duration(rule.MaxSessionDurationSeconds) * time.Second
	}
	if p.duration > limit {
		return stsValidation("The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
	}
	return nil
}

func assumeRole(e Host, r *http.Request, form url.Values) (any, *stsError) {
	p, serr := parseAssume(form)
	if serr != nil {
		return nil, serr
	}
	e.Lock()
	defer e.Unlock()
	who, caller, serr := stsCaller(e, r)
	if serr != nil {
		return nil, serr
	}
	rule := roleRule(e, p.roleARN)
	if _, require := e.Roles(); (rule == nil && require) || (rule != nil && (rule.Deny || !trusts(rule, who, caller))) || e.Refuses(p.account) {
		// STS API reference, AssumeRole: a caller the trust policy does not
		// admit gets AccessDenied (HTTP 403). A role of a suspended or
		// closing account is refused the same way (the AccessDenied that
		// tools meet there: CrowdStrike/cloud-resource-estimator#25,
		// aws-samples/aws-security-reference-architecture-examples#218).
		return nil, stsErr(http.StatusForbidden, "AccessDenied", "User: %s is not authorized to perform: sts:AssumeRole on resource: %s", who.ARN, p.roleARN)
	}
	if serr := checkDuration(p, rule, caller != nil); serr != nil {
		return nil, serr
	}
	s := issue(e, p, "AssumeRole", who.ARN, caller != nil)
	var out assumeRoleResponseXML
	out.XMLNS = stsXMLNS
	out.Result.Credentials = s.credentialsXML()
	out.Result.AssumedRoleUser = s.userXML()
	out.ResponseMetadata.RequestID = core.NewRequestID()
	return out, nil
}

// jwtClaims are the claims of a web identity token the emulator reads.
type jwtClaims struct {
	Iss string          `json:"iss"`
	Sub string          `json:"sub"`
	Aud json.RawMessage `json:"aud"`
	Exp *float64        `json:"exp"`
}

// parseJWT reads the claims of a JWT (header.payload.signature, base64url)
// without checking its signature.
func parseJWT(tok string) (jwtClaims, bool) {
	var c jwtClaims
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return c, false
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil || json.Unmarshal(b, &c) != nil || c.Sub == "" {
		return c, false
	}
	return c, true
}

func (c jwtClaims) audience() string {
	var one string
	if json.Unmarshal(c.Aud, &one) == nil {
		return one
	}
	var many []string
	if json.Unmarshal(c.Aud, &many) == nil && len(many) > 0 {
		return many[0]
	}
	return ""
}

// globMatch matches s against pattern, where * matches any run of
// characters.
func globMatch(pattern, s string) bool {
	// Not path.Match: '/' in a subject is an ordinary character here.
	var b strings.Builder
	for _, r := range pattern {
		switch r {
		case '*':
			b.WriteString(".*")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	ok, _ := regexp.MatchString("^"+b.String()+"$", s)
	return ok
}

func assumeRoleWithWebIdentity(e Host, form url.Values) (any, *stsError) {
	p, serr := parseAssume(form)
	if serr != nil {
		return nil, serr
	}
	tok := form.Get("WebIdentityToken")
	if n := len(tok); n < 4 || n > 20000 {
		return nil, stsValidation("1 validation error detected: Value at 'webIdentityToken' failed to satisfy constraint: Member must have length between 4 and 20000")
	}
	claims, ok := parseJWT(tok)
	if !ok {
		return nil, stsErr(http.StatusBadRequest, "InvalidIdentityToken", "The web identity token is not a JWT with a subject (the emulator reads the claims, it does not check signatures)")
	}
	e.Lock()
	defer e.Unlock()
	if claims.Exp != nil && !e.Now().Before(time.Unix(int64(*claims.Exp), 0)) {
		return nil, stsErr(http.StatusBadRequest, "ExpiredTokenException", "Token expired: current date/time %s must be before the expiration date/time %s",
			e.Now().UTC().Format(time.RFC3339), time.Unix(int64(*claims.Exp), 0).UTC().Format(time.RFC3339))
	}
	rule := roleRule(e, p.roleARN)
	_, require := e.Roles()
	allowed := rule == nil && !require
	if rule != nil && !rule.Deny {
		allowed = slices.ContainsFunc(rule.WebIdentitySubjects, func(pat string) bool { return globMatch(pat, claims.Sub) })
	}
	if e.Refuses(p.account) {
		allowed = false
	}
	if !allowed {
		// The message AWS answers (field reports,
		// aws-actions/configure-aws-credentials issues).
		return nil, stsErr(http.StatusForbidden, "AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity")
	}
	if serr := checkDuration(p, rule, false); serr != nil {
		return nil, serr
	}
	s := issue(e, p, "AssumeRoleWithWebIdentity", claims.Sub, false)
	var out assumeRoleWebIdentityResponseXML
	out.XMLNS = stsXMLNS
	out.Result.Credentials = s.credentialsXML()
	out.Result.AssumedRoleUser = s.userXML()
	out.Result.SubjectFromWebIdentityToken = claims.Sub
	out.Result.Provider = claims.Iss
	out.Result.Audience = claims.audience()
	out.ResponseMetadata.RequestID = core.NewRequestID()
	return out, nil
}

// issue makes and records temporary credentials for p. e.mu is held.
func issue(e Host, p assumeParams, action, caller string, chained bool) *session {
	s := &session{
		Session: Session{
			AccessKeyID: "ASIA" + e.RandUpper(16),
			Account:     p.account,
			RoleARN:     p.roleARN,
			SessionName: p.sessionName,
			Expiration:  e.Now().Add(p.duration).UTC().Truncate(time.Second),
			Action:      action,
			Caller:      caller,
		},
		secret:   e.RandUpper(40),
		token:    "IQoJb3JpZ2luX2VtdWxhdG9y" + e.RandUpper(64),
		chained:  chained,
		roleName: p.roleName,
	}
	is := e.Issued()
	is.byKey[s.AccessKeyID] = s
	is.order = append(is.order, s)
	return s
}

func (s *session) credentialsXML() stsCredentialsXML {
	return stsCredentialsXML{AccessKeyID: s.AccessKeyID, SecretAccessKey: s.secret, SessionToken: s.token,
		Expiration: s.Expiration.Format("2006-01-02T15:04:05Z")}
}

func (s *session) arn() string {
	return "arn:aws:sts::" + s.Account + ":assumed-role/" + s.roleName + "/" + s.SessionName
}

func (s *session) userXML() assumedRoleUserXML {
	return assumedRoleUserXML{Arn: s.arn(), AssumedRoleID: core.StableID("AROA", s.RoleARN) + ":" + s.SessionName}
}

// roleAccount is the account of a role ARN ("" when it is not one).
func roleAccount(arn string) string {
	if m := roleARNRE.FindStringSubmatch(arn); m != nil {
		return m[1]
	}
	return ""
}

// Serves reports whether action is one of the STS actions served.
func Serves(action string) bool {
	switch action {
	case "AssumeRole", "AssumeRoleWithWebIdentity", "GetCallerIdentity":
		return true
	}
	return false
}
