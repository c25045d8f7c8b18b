package ssm

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// Parameter Store operations that write or read one parameter. Each
// validates its request before taking e.mu, then works on the partition's
// paramStore under it.

var (
	ssmTypes = []string{ssmSecureString, ssmStringList, ssmString}
	ssmTiers = []string{tierStandard, tierAdvanced, tierIntelligent}
	// ssmTagRE is the model's TagKey/TagValue pattern.
	ssmTagRE = regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$`)
	// ssmLabelRE: labels are letters, digits, _ . - (API reference
	// LabelParameterVersion); a label can't begin with a digit, "aws" or "ssm".
	ssmLabelRE = regexp.MustCompile(`^[a-zA-Z0-9_.\-]+$`)
)

func errParamNotFound(name string) *core.Error {
	return core.Errf("ParameterNotFound", "Parameter %s not found.", name)
}

func errVersionNotFound(n int64, name string) *core.Error {
	return core.Errf("ParameterVersionNotFound", "Systems Manager could not find version %d of %s. Verify the version and try again.", n, name)
}

func errMaxValue(member string, got int64, max int, quoted bool) *core.Error {
	v := strconv.FormatInt(got, 10)
	if quoted {
		v = "'" + v + "'"
	}
	return core.Errf("ValidationException", "1 validation error detected: Value %s at '%s' failed to satisfy constraint: Member must have value less than or equal to %d", v, member, max)
}

// ssmTags checks a request's tags: key 1..128 and value 0..256 characters
// of the model's pattern, no key under aws:, at most 50, no key twice.
func ssmTags(in []core.Tag) ([]core.TagOut, *core.Error) {
	if len(in) > ssmMaxTags {
		return nil, core.Errf("TooManyTagsError", "The Targets parameter includes too many tags. Remove one or more tags and try the command again.")
	}
	out := make([]core.TagOut, 0, len(in))
	seen := map[string]bool{}
	for _, t := range in {
		if t.Key == nil {
			return nil, core.ErrMissing("tags.member.key")
		}
		if t.Value == nil {
			return nil, core.ErrMissing("tags.member.value")
		}
		k, v := *t.Key, *t.Value
		switch {
		case utf8.RuneCountInString(k) < 1:
			return nil, core.ErrTooShort("tags.member.key", 1)
		case utf8.RuneCountInString(k) > 128:
			return nil, core.ErrTooLong("tags.member.key", 128)
		case utf8.RuneCountInString(v) > 256:
			return nil, core.ErrTooLong("tags.member.value", 256)
		case !ssmTagRE.MatchString(k) || !ssmTagRE.MatchString(v):
			return nil, core.ErrConstraint("tags.member", `Member must satisfy regular expression pattern: ^([\p{L}\p{Z}\p{N}_.:/=+\-@]*)$`)
		case strings.HasPrefix(strings.ToLower(k), "aws:"):
			return nil, core.Errf("InvalidParameterValueException", "Tag keys can't start with aws: (reserved for AWS use).") // [unverified]
		case seen[k]:
			return nil, core.Errf("ValidationException", "Duplicate tag key %s in the request.", k) // [unverified]
		}
		seen[k] = true
		out = append(out, core.TagOut{Key: k, Value: v})
	}
	return out, nil
}

func (p *parameter) setTags(tags []core.TagOut) {
	if p.tags == nil {
		p.tags = map[string]string{}
	}
	for _, t := range tags {
		if _, ok := p.tags[t.Key]; !ok {
			p.tagOrder = append(p.tagOrder, t.Key)
		}
		p.tags[t.Key] = t.Value
	}
}

// putRequest is a checked PutParameter request.
type putRequest struct {
	name, value, typ, tier, keyID, description, pattern, policies, dataType string
	overwrite                                                               bool
	hasKey, hasDescription, hasPattern, hasPolicies                         bool
	tags                                                                    []core.TagOut
}

func checkPut(in *putParameterIn) (putRequest, *core.Error) {
	var r putRequest
	if in.Value == nil {
		return r, core.ErrMissing("value")
	}
	r.value = *in.Value
	if r.value == "" {
		return r, core.Errf("ValidationException", "1 validation error detected: Value '' at 'value' failed to satisfy constraint: Member must have length greater than or equal to 1.")
	}
	if in.Type != nil {
		if !slices.Contains(ssmTypes, *in.Type) {
			return r, core.ErrEnum("type", *in.Type, ssmTypes)
		}
		r.typ = *in.Type
	}
	if in.Tier != nil {
		if !slices.Contains(ssmTiers, *in.Tier) {
			return r, core.ErrEnum("tier", *in.Tier, ssmTiers)
		}
		r.tier = *in.Tier
	}
	r.overwrite = in.Overwrite != nil && *in.Overwrite
	if r.overwrite && len(in.Tags) > 0 {
		return r, core.Errf("ValidationException", "Invalid request: tags and overwrite can't be used together. To create a parameter with tags, please remove overwrite flag. To update tags for an existing parameter, please use AddTagsToResource or RemoveTagsFromResource.")
	}
	tags, aerr := ssmTags(in.Tags)
	if aerr != nil {
		return r, aerr
	}
	r.tags = tags
	if in.Description != nil {
		if utf8.RuneCountInString(*in.Description) > ssmMaxDescription {
			return r, core.ErrTooLong("description", ssmMaxDescription)
		}
		r.description, r.hasDescription = *in.Description, true
	}
	if in.KeyID != nil {
		if *in.KeyID == "" || utf8.RuneCountInString(*in.KeyID) > 256 {
			return r, core.ErrConstraint("keyId", "Member must have length less than or equal to 256, Member must have length greater than or equal to 1")
		}
		r.keyID, r.hasKey = *in.KeyID, true
	}
	r.dataType = "text"
	if in.DataType != nil && *in.DataType != "" {
		switch *in.DataType {
		case "text", "aws:ec2:image", "aws:ssm:integration":
			r.dataType = *in.DataType
		default:
			return r, core.Errf("ValidationException", "The following data type is not supported: %s (Data type names are all lowercase.)", *in.DataType)
		}
	}
	if in.AllowedPattern != nil && *in.AllowedPattern != "" {
		re, err := regexp.Compile(*in.AllowedPattern)
		if err != nil {
			return r, core.Errf("InvalidAllowedPatternException", "The allowed pattern is not a valid regular expression.") // [unverified]
		}
		if !re.MatchString(r.value) {
			return r, core.Errf("ParameterPatternMismatchException", "Parameter value, cannot be validated against allowedPattern: %s", *in.AllowedPattern)
		}
		r.pattern, r.hasPattern = *in.AllowedPattern, true
	}
	if in.Policies != nil && *in.Policies != "" {
		var pol []map[string]any
		if err := json.Unmarshal([]byte(*in.Policies), &pol); err != nil {
			return r, core.Errf("InvalidPolicyTypeException", "The policies are not a JSON array of parameter policies.") // [unverified]
		}
		r.policies, r.hasPolicies = *in.Policies, true
	}
	return r, nil
}

// tierFor is the tier a write lands in: the one asked for; else the
// parameter's (a new one is Standard, the default tier setting); and
// Intelligent-Tiering picks Advanced only when the value or a policy needs
// it (user guide "Specifying a default parameter tier").
func tierFor(asked string, cur *paramVersion, size int, policies bool) string {
	switch asked {
	case tierStandard, tierAdvanced:
		return asked
	case tierIntelligent:
		if size > ssmStandardValueMax || policies || (cur != nil && cur.tier == tierAdvanced) {
			return tierAdvanced
		}
		return tierStandard
	}
	if cur != nil {
		return cur.tier
	}
	return tierStandard
}

func (e *Call) putParameter(in *putParameterIn) (any, *core.Error) {
	name, aerr := e.ssmName(in.Name)
	if aerr != nil {
		return nil, aerr
	}
	r, aerr := checkPut(in)
	if aerr != nil {
		return nil, aerr
	}
	e.Lock()
	defer e.Unlock()
	st := e.Params
	p := st.byKey[ssmKey(name)]
	var cur *paramVersion
	if p != nil {
		if !r.overwrite {
			return nil, core.Errf("ParameterAlreadyExists", msgSSMExists)
		}
		cur = p.latest()
	}
	typ := r.typ
	switch {
	case typ == "" && cur == nil:
		return nil, core.Errf("ValidationException", "A parameter type is required when you create a parameter.") // [unverified]
	case typ == "":
		typ = cur.typ
	case cur != nil && typ != cur.typ && strings.HasPrefix(name, "/"):
		return nil, core.Errf("HierarchyTypeMismatchException", "Parameter Store does not support changing a parameter type in a hierarchy. For example, you can't change a parameter from a String type to a SecureString type. You must create a new, unique parameter.")
	}
	if r.hasKey && typ != ssmSecureString {
		return nil, core.Errf("ValidationException", "KeyId is only valid for a SecureString parameter.") // [unverified]
	}
	policies := r.policies
	if !r.hasPolicies && cur != nil {
		policies = cur.policies
	}
	tier := tierFor(r.tier, cur, len(r.value), policies != "")
	if cur != nil && cur.tier == tierAdvanced && tier == tierStandard {
		return nil, core.Errf("ValidationException", "This parameter uses the advanced-parameter tier. You can't downgrade a parameter from the advanced-parameter tier to the standard-parameter tier. If necessary, you can delete the advanced parameter and recreate it as a standard parameter.") // [unverified wording]
	}
	if policies != "" && tier != tierAdvanced {
		return nil, core.Errf("IncompatiblePolicyException", "Parameter policies are supported only by the advanced-parameter tier.") // [unverified wording]
	}
	limit := ssmStandardValueMax
	if tier == tierAdvanced {
		limit = ssmAdvancedValueMax
	}
	if len(r.value) > limit {
		if tier == tierStandard {
			return nil, core.Errf("ValidationException", "Standard tier parameters support a maximum parameter value of 4096 characters. To create a larger parameter value, upgrade the parameter to use the advanced-parameter tier.") // [unverified wording]
		}
		return nil, core.ErrConstraint("value", fmt.Sprintf("Member must have length less than or equal to %d", ssmAdvancedValueMax))
	}
	if (cur == nil || cur.tier != tier) && st.count(tier) >= e.ssmCountLimit(tier) {
		return nil, core.Errf("ParameterLimitExceeded", "You have exceeded the number of parameters for this AWS account. Delete unused parameters and try again.")
	}
	keyID := ""
	if typ == ssmSecureString {
		keyID = DefaultKMSAlias
		if r.hasKey {
			keyID = r.keyID
		}
		if _, aerr := e.resolveSSMKey(keyID); aerr != nil {
			return nil, aerr
		}
	}
	v := &paramVersion{
		version: 1, typ: typ, value: r.value, keyID: keyID, tier: tier, policies: policies,
		dataType: r.dataType, description: r.description, pattern: r.pattern,
		modified: e.Now(), user: e.ssmUser(),
	}
	if cur != nil {
		v.version = cur.version + 1
		if !r.hasDescription {
			v.description = cur.description
		}
		if !r.hasPattern {
			v.pattern = cur.pattern
		}
		if len(p.versions) >= ssmMaxVersions {
			if len(p.versions[0].labels) > 0 {
				return nil, core.Errf("ParameterMaxVersionLimitExceeded", "You attempted to create a new version of %s by calling the PutParameter API with the overwrite flag. Version %d, the oldest version, can't be deleted because it has a label associated with it. Move the label to another version of the parameter, and try again.", name, p.versions[0].version)
			}
			p.versions = slices.Delete(p.versions, 0, 1)
		}
		p.versions = append(p.versions, v)
	} else {
		p = &parameter{name: name, versions: []*paramVersion{v}}
		p.setTags(r.tags)
		st.byKey[ssmKey(name)] = p
	}
	return putParameterOut{Version: v.version, Tier: tier}, nil
}

// ssmCountLimit is the number of parameters of a tier an account may have
// in a Region; Faults.SSMParameterLimit lowers both for tests.
func (e *Call) ssmCountLimit(tier string) int {
	if n := e.ParameterLimit(); n > 0 {
		return n
	}
	if tier == tierAdvanced {
		return ssmAdvancedCount
	}
	return ssmStandardCount
}

// find resolves a read's name (with its selector) to a parameter and a
// version. The caller holds the lock.
func (e *Call) find(raw string) (*parameter, *paramVersion, *core.Error) {
	name, sel := ssmLookupName(raw)
	p := e.Params.byKey[ssmKey(name)]
	if p == nil {
		return nil, nil, errParamNotFound(strings.TrimSpace(raw))
	}
	if sel == "" {
		return p, p.latest(), nil
	}
	if n, err := strconv.ParseInt(sel, 10, 64); err == nil {
		if v := p.version(n); v != nil {
			return p, v, nil
		}
		return nil, nil, errVersionNotFound(n, name)
	}
	if v := p.labelled(sel); v != nil {
		return p, v, nil
	}
	return nil, nil, errParamNotFound(strings.TrimSpace(raw))
}

// paramOut is a parameter's version as GetParameter(s) and
// GetParametersByPath return it; a SecureString read without decryption
// shows the stand-in ciphertext. A decryption under an unusable key fails.
func (e *Call) paramOut(p *parameter, v *paramVersion, sel string, decrypt bool) (parameterOut, *core.Error) {
	out := parameterOut{
		Name: p.name, Type: v.typ, Value: v.value, Version: v.version, Selector: sel,
		LastModifiedDate: core.Ep(v.modified), ARN: e.paramARN(p), DataType: v.dataType,
	}
	if v.typ == ssmSecureString {
		if !decrypt {
			out.Value = ssmCiphertext(p, v)
		} else if _, aerr := e.resolveSSMKey(v.keyID); aerr != nil {
			return parameterOut{}, aerr
		}
	}
	return out, nil
}

func (e *Call) getParameter(in *getParameterIn) (any, *core.Error) {
	if in.Name == nil {
		return nil, core.ErrMissing("name")
	}
	e.Lock()
	defer e.Unlock()
	p, v, aerr := e.find(*in.Name)
	if aerr != nil {
		return nil, aerr
	}
	_, sel := ssmLookupName(*in.Name)
	if sel != "" {
		sel = ":" + sel
	}
	out, aerr := e.paramOut(p, v, sel, in.WithDecryption != nil && *in.WithDecryption)
	if aerr != nil {
		return nil, aerr
	}
	return getParameterOut{Parameter: out}, nil
}

func checkNames(names []string) *core.Error {
	if len(names) == 0 {
		return core.ErrTooShort("names", 1)
	}
	if len(names) > ssmMaxNames {
		return core.Errf("ValidationException", "1 validation error detected: Value '[%s]' at 'names' failed to satisfy constraint: Member must have length less than or equal to 10.", strings.Join(names, ", "))
	}
	return nil
}

func (e *Call) getParameters(in *getParametersIn) (any, *core.Error) {
	if aerr := checkNames(in.Names); aerr != nil {
		return nil, aerr
	}
	e.Lock()
	defer e.Unlock()
	out := getParametersOut{Parameters: []parameterOut{}, InvalidParameters: []string{}}
	seen := map[string]bool{}
	for _, n := range in.Names {
		if seen[n] {
			continue
		}
		seen[n] = true
		p, v, aerr := e.find(n)
		if aerr != nil {
			if aerr.Code == "ParameterNotFound" || aerr.Code == "ParameterVersionNotFound" {
				out.InvalidParameters = append(out.InvalidParameters, n)
				continue
			}
			return nil, aerr
		}
		_, sel := ssmLookupName(n)
		if sel != "" {
			sel = ":" + sel
		}
		po, aerr := e.paramOut(p, v, sel, in.WithDecryption != nil && *in.WithDecryption)
		if aerr != nil {
			return nil, aerr
		}
		out.Parameters = append(out.Parameters, po)
	}
	return out, nil
}

func (e *Call) deleteParameter(in *deleteParameterIn) (any, *core.Error) {
	if in.Name == nil {
		return nil, core.ErrMissing("name")
	}
	e.Lock()
	defer e.Unlock()
	k := ssmKey(strings.TrimSpace(*in.Name))
	if e.Params.byKey[k] == nil {
		return nil, errParamNotFound(*in.Name)
	}
	delete(e.Params.byKey, k)
	return struct{}{}, nil
}

func (e *Call) deleteParameters(in *deleteParametersIn) (any, *core.Error) {
	if aerr := checkNames(in.Names); aerr != nil {
		return nil, aerr
	}
	e.Lock()
	defer e.Unlock()
	out := deleteParametersOut{DeletedParameters: []string{}, InvalidParameters: []string{}}
	for _, n := range in.Names {
		k := ssmKey(strings.TrimSpace(n))
		if e.Params.byKey[k] == nil {
			out.InvalidParameters = append(out.InvalidParameters, n)
			continue
		}
		delete(e.Params.byKey, k)
		out.DeletedParameters = append(out.DeletedParameters, n)
	}
	return out, nil
}

var ssmResourceTypes = []string{"Document", "ManagedInstance", "MaintenanceWindow", "Parameter", "PatchBaseline", "OpsItem", "OpsMetadata", "Automation", "Association"}

// tagged resolves a tagging request's resource: only parameters are
// modelled. The caller holds the lock.
func (e *Call) tagged(in *ssmResourceIn) (*parameter, *core.Error) {
	switch {
	case in.ResourceType == nil:
		return nil, core.ErrMissing("resourceType")
	case in.ResourceID == nil:
		return nil, core.ErrMissing("resourceId")
	case !slices.Contains(ssmResourceTypes, *in.ResourceType):
		return nil, core.ErrEnum("resourceType", *in.ResourceType, ssmResourceTypes)
	case *in.ResourceType != "Parameter":
		return nil, core.Errf("InvalidResourceType", "The emulator tags parameters only.")
	}
	p := e.Params.byKey[ssmKey(strings.TrimSpace(*in.ResourceID))]
	if p == nil {
		return nil, core.Errf("InvalidResourceId", "The resource ID \"%s\" is not valid. Verify the ID and try again.", *in.ResourceID)
	}
	return p, nil
}

func (e *Call) addTagsToResource(in *ssmResourceIn) (any, *core.Error) {
	tags, aerr := ssmTags(in.Tags)
	if aerr != nil {
		return nil, aerr
	}
	if len(tags) == 0 {
		return nil, core.ErrTooShort("tags", 1)
	}
	e.Lock()
	defer e.Unlock()
	p, aerr := e.tagged(in)
	if aerr != nil {
		return nil, aerr
	}
	n := len(p.tags)
	for _, t := range tags {
		if _, ok := p.tags[t.Key]; !ok {
			n++
		}
	}
	if n > ssmMaxTags {
		return nil, core.Errf("TooManyTagsError", "The Targets parameter includes too many tags. Remove one or more tags and try the command again.")
	}
	p.setTags(tags)
	return struct{}{}, nil
}

func (e *Call) removeTagsFromResource(in *ssmResourceIn) (any, *core.Error) {
	if len(in.TagKeys) == 0 {
		return nil, core.ErrTooShort("tagKeys", 1)
	}
	e.Lock()
	defer e.Unlock()
	p, aerr := e.tagged(in)
	if aerr != nil {
		return nil, aerr
	}
	for _, k := range in.TagKeys {
		if _, ok := p.tags[k]; ok {
			delete(p.tags, k)
			p.tagOrder = slices.DeleteFunc(p.tagOrder, func(x string) bool { return x == k })
		}
	}
	return struct{}{}, nil
}

func (p *parameter) tagList() []core.TagOut {
	out := make([]core.TagOut, 0, len(p.tags))
	for _, k := range p.tagOrder {
		out = append(out, core.TagOut{Key: k, Value: p.tags[k]})
	}
	return out
}

func (e *Call) listTagsForResource(in *ssmResourceIn) (any, *core.Error) {
	e.Lock()
	defer e.Unlock()
	p, aerr := e.tagged(in)
	if aerr != nil {
		return nil, aerr
	}
	return listTagsOut{TagList: p.tagList()}, nil
}

// validLabel reports whether a label may be attached (API reference
// LabelParameterVersion: letters, digits, _ . -; not beginning with a
// digit, "aws" or "ssm"; no "/").
func validLabel(l string) bool {
	low := strings.ToLower(l)
	return ssmLabelRE.MatchString(l) && (l[0] < '0' || l[0] > '9') &&
		!strings.HasPrefix(low, "aws") && !strings.HasPrefix(low, "ssm")
}

func (e *Call) labelParameterVersion(in *labelIn) (any, *core.Error) {
	if in.Name == nil {
		return nil, core.ErrMissing("name")
	}
	if len(in.Labels) == 0 {
		return nil, core.ErrTooShort("labels", 1)
	}
	if len(in.Labels) > ssmMaxLabels {
		return nil, core.ErrTooLong("labels", ssmMaxLabels)
	}
	for _, l := range in.Labels {
		if l == "" || utf8.RuneCountInString(l) > 100 {
			return nil, core.Errf("ValidationException", "1 validation error detected: Value '[%s]' at 'labels' failed to satisfy constraint: Member must satisfy constraint: [Member must have length less than or equal to 100, Member must have length greater than or equal to 1]", strings.Join(in.Labels, ", "))
		}
	}
	e.Lock()
	defer e.Unlock()
	name := strings.TrimSpace(*in.Name)
	p := e.Params.byKey[ssmKey(name)]
	if p == nil {
		return nil, errParamNotFound(name)
	}
	v := p.latest()
	if in.ParameterVersion != nil {
		if v = p.version(*in.ParameterVersion); v == nil {
			return nil, errVersionNotFound(*in.ParameterVersion, name)
		}
	}
	out := labelOut{InvalidLabels: []string{}, ParameterVersion: v.version}
	var add []string
	for _, l := range in.Labels {
		if !validLabel(l) {
			out.InvalidLabels = append(out.InvalidLabels, l)
		} else if !slices.Contains(v.labels, l) && !slices.Contains(add, l) {
			add = append(add, l)
		}
	}
	if len(v.labels)+len(add) > ssmMaxLabels {
		return nil, core.Errf("ParameterVersionLabelLimitExceeded", "A parameter version can have maximum 10 labels.Move one or more labels to another version and try again.")
	}
	for _, l := range add {
		for _, o := range p.versions {
			o.labels = slices.DeleteFunc(o.labels, func(x string) bool { return x == l })
		}
		v.labels = append(v.labels, l)
	}
	return out, nil
}

func policiesOut(text string) []policyOutSSM {
	out := []policyOutSSM{}
	var pol []map[string]any
	if text == "" || json.Unmarshal([]byte(text), &pol) != nil {
		return out
	}
	for _, x := range pol {
		b, _ := json.Marshal(x)
		typ, _ := x["Type"].(string)
		out = append(out, policyOutSSM{PolicyText: string(b), PolicyType: typ, PolicyStatus: "Pending"})
	}
	return out
}

func (e *Call) getParameterHistory(in *historyIn) (any, *core.Error) {
	if in.Name == nil {
		return nil, core.ErrMissing("name")
	}
	max := int64(ssmHistoryMax)
	if in.MaxResults != nil {
		if *in.MaxResults > ssmHistoryMax {
			return nil, core.Errf("ValidationException", "1 validation error detected: Value '%d' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 50.", *in.MaxResults)
		}
		if *in.MaxResults < 1 {
			return nil, core.ErrConstraint("maxResults", "Member must have value greater than or equal to 1")
		}
		max = *in.MaxResults
	}
	e.Lock()
	defer e.Unlock()
	name := strings.TrimSpace(*in.Name)
	p := e.Params.byKey[ssmKey(name)]
	if p == nil {
		return nil, errParamNotFound(name)
	}
	start := 0
	if in.NextToken != nil && *in.NextToken != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(*in.NextToken, "h:"))
		if err != nil || !strings.HasPrefix(*in.NextToken, "h:") || n < 0 || n > len(p.versions) {
			return nil, core.Errf("InvalidNextToken", "The specified token isn't valid.")
		}
		start = n
	}
	end := min(len(p.versions), start+int(max))
	out := historyOut{Parameters: []historyEntryOut{}}
	decrypt := in.WithDecryption != nil && *in.WithDecryption
	for _, v := range p.versions[start:end] {
		h := historyEntryOut{
			Name: p.name, Type: v.typ, KeyID: v.keyID, LastModifiedDate: core.Ep(v.modified), LastModifiedUser: v.user,
			Description: v.description, Value: v.value, AllowedPattern: v.pattern, Version: v.version,
			Labels: slices.Clone(v.labels), Tier: v.tier, Policies: policiesOut(v.policies), DataType: v.dataType,
		}
		if h.Labels == nil {
			h.Labels = []string{}
		}
		if v.typ == ssmSecureString && !decrypt {
			h.Value = ssmCiphertext(p, v)
		}
		out.Parameters = append(out.Parameters, h)
	}
	if end < len(p.versions) {
		out.NextToken = "h:" + strconv.Itoa(end)
	}
	return out, nil
}
