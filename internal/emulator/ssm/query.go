package ssm

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// DescribeParameters and GetParametersByPath: filters and pages.
//
// Pages are taken in name order. A page examines at most MaxResults
// parameters of the candidates (those under the Path filter, or the path
// asked for, and those a Name BeginsWith filter allows) and returns the
// ones the other filters keep, so a filtered page may be short, or empty,
// with a NextToken: a client must follow NextToken until it is absent, as
// field reports say of AWS [the window's size is unverified]. NextToken
// names the next candidate, so a parameter created or deleted between two
// pages never shifts another one out of the listing.

var ssmFilterKeyRE = regexp.MustCompile(`^(tag:.+|Name|Type|KeyId|Path|Label|Tier|DataType)$`)

// paramFilter is one checked filter.
type paramFilter struct {
	key, option string
	values      []string
}

// checkFilters validates ParameterFilters for DescribeParameters (byPath
// false) or GetParametersByPath (byPath true); messages are moto's.
func checkFilters(in []paramFilterIn, byPath bool) ([]paramFilter, *core.Error) {
	var problems []string
	for _, f := range in {
		switch {
		case f.Key == nil:
			problems = append(problems, "Value null at 'parameterFilters.member.key' failed to satisfy constraint: Member must not be null")
		case utf8.RuneCountInString(*f.Key) > 132:
			problems = append(problems, "Value '"+*f.Key+"' at 'parameterFilters.member.key' failed to satisfy constraint: Member must have length less than or equal to 132")
		case !ssmFilterKeyRE.MatchString(*f.Key):
			problems = append(problems, "Value '"+*f.Key+"' at 'parameterFilters.member.key' failed to satisfy constraint: Member must satisfy regular expression pattern: tag:.+|Name|Type|KeyId|Path|Label|Tier")
		}
		if f.Option != nil && utf8.RuneCountInString(*f.Option) > 10 {
			problems = append(problems, "Value '"+*f.Option+"' at 'parameterFilters.member.option' failed to satisfy constraint: Member must have length less than or equal to 10")
		}
		if len(f.Values) > 50 {
			problems = append(problems, "Value at 'parameterFilters.member.values' failed to satisfy constraint: Member must have length less than or equal to 50")
		}
		for _, v := range f.Values {
			if v == "" || utf8.RuneCountInString(v) > 1024 {
				problems = append(problems, "Value at 'parameterFilters.member.values' failed to satisfy constraint: Member must have length less than or equal to 1024, Member must have length greater than or equal to 1")
				break
			}
		}
	}
	if len(problems) == 1 {
		return nil, core.Errf("ValidationException", "1 validation error detected: %s", problems[0])
	}
	if len(problems) > 1 {
		return nil, core.Errf("ValidationException", "%d validation errors detected: %s", len(problems), strings.Join(problems, "; "))
	}
	out := make([]paramFilter, 0, len(in))
	seen := map[string]bool{}
	for _, f := range in {
		key := *f.Key
		isTag := strings.HasPrefix(key, "tag:")
		if byPath && key != "Type" && key != "KeyId" && key != "Label" {
			return nil, core.Errf("InvalidFilterKey", "The following filter key is not valid: %s. Valid filter keys include: [Type, KeyId].", key)
		}
		if !byPath && key == "Label" {
			return nil, core.Errf("InvalidFilterKey", "The following filter key is not valid: Label. Valid filter keys include: [Path, Name, Type, KeyId, Tier]")
		}
		if seen[key] {
			return nil, core.Errf("InvalidFilterKey", "The following filter is duplicated in the request: %s. A request can contain only one occurrence of a specific filter.", key)
		}
		seen[key] = true
		if len(f.Values) == 0 && !isTag {
			return nil, core.Errf("InvalidFilterValue", "The following filter values are missing : null for filter key %s", key)
		}
		opt := "Equals"
		if f.Option != nil && *f.Option != "" {
			opt = *f.Option
		}
		valid := []string{"Equals"}
		switch {
		case key == "Path":
			valid = []string{"Recursive", "OneLevel"}
			if f.Option == nil || *f.Option == "" {
				opt = "OneLevel"
			}
		case key == "Name":
			valid = []string{"BeginsWith", "Equals", "Contains"}
		case isTag:
			valid = []string{"Equals"}
		}
		if !slices.Contains(valid, opt) {
			return nil, core.Errf("InvalidFilterOption", "The following filter option is not valid: %s. Valid options include: [%s]", opt, strings.Join(valid, ", "))
		}
		for _, v := range f.Values {
			switch key {
			case "Path":
				first, _, _ := strings.Cut(strings.TrimPrefix(v, "/"), "/")
				low := strings.ToLower(first)
				if strings.HasPrefix(low, "aws") || strings.HasPrefix(low, "ssm") {
					return nil, core.Errf("ValidationException", `Filters for common parameters can't be prefixed with "aws" or "ssm" (case-insensitive).`)
				}
				if !strings.HasPrefix(v, "/") {
					return nil, core.Errf("InvalidFilterValue", "The parameter doesn't meet the parameter name requirements. The parameter name must begin with a forward slash \"/\". It can't be prefixed with \"aws\" or \"ssm\" (case-insensitive). It must use only letters, numbers, or the following symbols: . (period), - (hyphen), _ (underscore). Special characters are not allowed. All sub-paths, if specified, must use the forward slash symbol \"/\". Valid example: /get/parameters2-/by1./path0_.")
				}
			case "Tier":
				if !slices.Contains(ssmTiers, v) {
					return nil, core.Errf("InvalidFilterValue", "The following filter value is not valid: %s. Valid values include: [Standard, Advanced, Intelligent-Tiering]", v)
				}
			case "Type":
				if !slices.Contains(ssmTypes, v) {
					return nil, core.Errf("InvalidFilterValue", "The following filter value is not valid: %s. Valid values include: [SecureString, StringList, String]", v)
				}
			}
		}
		out = append(out, paramFilter{key: key, option: opt, values: f.Values})
	}
	return out, nil
}

// canon is a name's form with one leading "/" (see ssmKey).
func canon(name string) string { return "/" + ssmKey(name) }

// underPath reports whether name lies under path p: its direct children
// (recursive false) or anywhere below it.
func underPath(name, p string, recursive bool) bool {
	p = strings.TrimSuffix(p, "/")
	c := canon(name)
	if !strings.HasPrefix(c, p+"/") {
		return false
	}
	return recursive || !strings.Contains(c[len(p)+1:], "/")
}

// keep reports whether p passes filter f; a Label filter also picks the
// labelled version (nil when p has no such label).
func (f paramFilter) keep(p *parameter) bool {
	v := p.latest()
	switch {
	case f.key == "Path":
		return slices.ContainsFunc(f.values, func(x string) bool { return underPath(p.name, x, f.option == "Recursive") })
	case f.key == "Name":
		return slices.ContainsFunc(f.values, func(x string) bool {
			switch f.option {
			case "BeginsWith":
				return strings.HasPrefix(canon(p.name), canon(x))
			case "Contains":
				return strings.Contains(p.name, x)
			}
			return ssmKey(p.name) == ssmKey(x)
		})
	case f.key == "Type":
		return slices.Contains(f.values, v.typ)
	case f.key == "KeyId":
		return v.keyID != "" && slices.Contains(f.values, v.keyID)
	case f.key == "Tier":
		return slices.Contains(f.values, v.tier)
	case f.key == "DataType":
		return slices.Contains(f.values, v.dataType)
	case f.key == "Label":
		return slices.ContainsFunc(f.values, func(x string) bool { return p.labelled(x) != nil })
	case strings.HasPrefix(f.key, "tag:"):
		val, ok := p.tags[strings.TrimPrefix(f.key, "tag:")]
		return ok && (len(f.values) == 0 || slices.Contains(f.values, val))
	}
	return false
}

func keepAll(fs []paramFilter, p *parameter) bool {
	for _, f := range fs {
		if !f.keep(p) {
			return false
		}
	}
	return true
}

func encodeSSMToken(key string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("ssm1:" + key))
}

func decodeSSMToken(tok *string) (string, bool, *core.Error) {
	if tok == nil || *tok == "" {
		return "", false, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(*tok)
	if err != nil || !strings.HasPrefix(string(b), "ssm1:") {
		return "", false, core.Errf("InvalidNextToken", "The specified token isn't valid.")
	}
	return strings.TrimPrefix(string(b), "ssm1:"), true, nil
}

// page returns the window of candidate keys a page examines (from the
// token on, at most max) and the token of the next page ("" at the end).
func (e *Call) paramPage(candidate func(*parameter) bool, tok *string, max int) ([]*parameter, string, *core.Error) {
	from, has, aerr := decodeSSMToken(tok)
	if aerr != nil {
		return nil, "", aerr
	}
	var window []*parameter
	for _, k := range e.Params.sortedKeys() {
		if has && k < from {
			continue
		}
		p := e.Params.byKey[k]
		if !candidate(p) {
			continue
		}
		if len(window) == max {
			return window, encodeSSMToken(k), nil
		}
		window = append(window, p)
	}
	return window, "", nil
}

func maxResults(in *int64, limit int, quoted bool) (int, *core.Error) {
	if in == nil {
		return min(ssmDefaultPage, limit), nil
	}
	if *in > int64(limit) {
		return 0, errMaxValue("maxResults", *in, limit, quoted)
	}
	if *in < 1 {
		return 0, core.ErrConstraint("maxResults", "Member must have value greater than or equal to 1")
	}
	return int(*in), nil
}

func (e *Call) describeParameters(in *describeParametersIn) (any, *core.Error) {
	if len(in.Filters) > 0 && len(in.ParameterFilters) > 0 {
		return nil, core.Errf("ValidationException", "You can use either Filters or ParameterFilters in a single request.")
	}
	raw := in.ParameterFilters
	for _, f := range in.Filters { // the older ParametersFilter: Name, Type, KeyId, matched exactly
		if f.Key == nil || (*f.Key != "Name" && *f.Key != "Type" && *f.Key != "KeyId") {
			return nil, core.Errf("ValidationException", "1 validation error detected: Value at 'filters.member.key' failed to satisfy constraint: Member must satisfy enum value set: [Name, Type, KeyId]")
		}
		raw = append(raw, paramFilterIn{Key: f.Key, Values: f.Values})
	}
	fs, aerr := checkFilters(raw, false)
	if aerr != nil {
		return nil, aerr
	}
	max, aerr := maxResults(in.MaxResults, ssmDescribeMax, true)
	if aerr != nil {
		return nil, aerr
	}
	if in.Shared != nil && *in.Shared {
		return describeParametersOut{Parameters: []parameterMetaOut{}}, nil // no shared parameters are modelled
	}
	var index []paramFilter // the filters a page's window is drawn through
	for _, f := range fs {
		if f.key == "Path" || (f.key == "Name" && f.option == "BeginsWith") {
			index = append(index, f)
		}
	}
	e.Lock()
	defer e.Unlock()
	window, next, aerr := e.paramPage(func(p *parameter) bool { return keepAll(index, p) }, in.NextToken, max)
	if aerr != nil {
		return nil, aerr
	}
	out := describeParametersOut{Parameters: []parameterMetaOut{}, NextToken: next}
	for _, p := range window {
		if !keepAll(fs, p) {
			continue
		}
		v := p.latest()
		arn := e.paramARN(p)
		if e.DescribeWithoutARN() {
			arn = "" // optional in the API reference: left out of the answer
		}
		out.Parameters = append(out.Parameters, parameterMetaOut{
			Name: p.name, ARN: arn, Type: v.typ, KeyID: v.keyID, LastModifiedDate: core.Ep(v.modified),
			LastModifiedUser: v.user, Description: v.description, AllowedPattern: v.pattern, Version: v.version,
			Tier: v.tier, Policies: policiesOut(v.policies), DataType: v.dataType,
		})
	}
	return out, nil
}

func (e *Call) getParametersByPath(in *getByPathIn) (any, *core.Error) {
	if in.Path == nil {
		return nil, core.ErrMissing("path")
	}
	path := *in.Path
	if !strings.HasPrefix(path, "/") || (path != "/" && !ssmNameRE.MatchString(path)) || utf8.RuneCountInString(path) > ssmMaxNameLen {
		return nil, core.Errf("ValidationException", "The parameter doesn't meet the parameter name requirements. The parameter name must begin with a forward slash \"/\". It can't be prefixed with \"aws\" or \"ssm\" (case-insensitive). It must use only letters, numbers, or the following symbols: . (period), - (hyphen), _ (underscore). Special characters are not allowed. All sub-paths, if specified, must use the forward slash symbol \"/\". Valid example: /get/parameters2-/by1./path0_.")
	}
	fs, aerr := checkFilters(in.ParameterFilters, true)
	if aerr != nil {
		return nil, aerr
	}
	max, aerr := maxResults(in.MaxResults, ssmByPathMax, false)
	if aerr != nil {
		return nil, aerr
	}
	recursive := in.Recursive != nil && *in.Recursive
	decrypt := in.WithDecryption != nil && *in.WithDecryption
	e.Lock()
	defer e.Unlock()
	window, next, aerr := e.paramPage(func(p *parameter) bool { return underPath(p.name, path, recursive) }, in.NextToken, max)
	if aerr != nil {
		return nil, aerr
	}
	out := getByPathOut{Parameters: []parameterOut{}, NextToken: next}
	for _, p := range window {
		if !keepAll(fs, p) {
			continue
		}
		v, sel := p.latest(), ""
		for _, f := range fs {
			if f.key == "Label" {
				for _, l := range f.values {
					if lv := p.labelled(l); lv != nil {
						v, sel = lv, ":"+l
						break
					}
				}
			}
		}
		po, aerr := e.paramOut(p, v, sel, decrypt)
		if aerr != nil {
			return nil, aerr
		}
		out.Parameters = append(out.Parameters, po)
	}
	return out, nil
}
