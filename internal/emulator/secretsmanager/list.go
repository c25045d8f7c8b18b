package secretsmanager

import (
	"encoding/base64"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// ListSecrets and BatchGetSecretValue-by-filter (reference §1). With list
// lag on, both read each secret's snapshot as of now-lag; the default
// created-date order walks the creation-ordered records without sorting.

var filterKeys = []string{"description", "name", "tag-key", "tag-value", "primary-region", "owning-service", "all"}

type filter struct {
	key      string
	pos, neg []string
}

func validFilterValue(v string) bool {
	// ^\!?[a-zA-Z0-9 :_@\/\+\=\.\-\!]*$
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(" :_@/+=.-!", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

func compileFilters(in []wireFilter) ([]filter, *core.Error) {
	if len(in) > 10 {
		return nil, core.ErrConstraint("filters", "Member must have length less than or equal to 10")
	}
	out := make([]filter, 0, len(in))
	for _, f := range in {
		if f.Key == nil {
			return nil, core.Errf("InvalidParameterException", "Invalid filter key")
		}
		if !slices.Contains(filterKeys, *f.Key) {
			return nil, core.ErrConstraint("filters.member.key", "Member must satisfy enum value set: ["+strings.Join(filterKeys, ", ")+"]")
		}
		if len(f.Values) == 0 {
			return nil, core.Errf("InvalidParameterException", "Invalid filter values for key: %s", *f.Key)
		}
		if len(f.Values) > 10 {
			return nil, core.ErrConstraint("filters.member.values", "Member must have length less than or equal to 10")
		}
		c := filter{key: *f.Key}
		for _, v := range f.Values {
			if len(v) > 512 || !validFilterValue(v) {
				return nil, core.ErrConstraint("filters.member.values.member", `Member must have length less than or equal to 512 and satisfy regular expression pattern: ^\!?[a-zA-Z0-9 :_@\/\+\=\.\-\!]*$`)
			}
			if neg, ok := strings.CutPrefix(v, "!"); ok {
				c.neg = append(c.neg, neg)
			} else {
				c.pos = append(c.pos, v)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// matchAll reports whether s passes every filter (filters AND; values of one
// filter OR; a "!" value excludes what it matches).
func matchAll(s *secret, fs []filter) bool {
	for i := range fs {
		if !fs[i].match(s) {
			return false
		}
	}
	return true
}

func (f *filter) match(s *secret) bool {
	for _, v := range f.neg {
		if matchValue(f.key, s, v) {
			return false
		}
	}
	if len(f.pos) == 0 {
		return true
	}
	for _, v := range f.pos {
		if matchValue(f.key, s, v) {
			return true
		}
	}
	return false
}

func matchValue(key string, s *secret, v string) bool {
	switch key {
	case "name":
		return strings.HasPrefix(s.name, v)
	case "tag-key":
		for _, t := range s.tags {
			if strings.HasPrefix(t.key, v) {
				return true
			}
		}
		return false
	case "tag-value":
		for _, t := range s.tags {
			if strings.HasPrefix(t.value, v) {
				return true
			}
		}
		return false
	case "primary-region":
		return strings.HasPrefix(s.primaryRegion, v)
	case "owning-service":
		return strings.HasPrefix(s.owningService, v)
	case "description":
		return wordPrefix(s.description, strings.ToLower(v))
	case "all":
		for _, w := range strings.Fields(strings.ToLower(v)) {
			if !allMatch(s, w) {
				return false
			}
		}
		return true
	}
	return false
}

// wordPrefix: lv (lower case) is a case-insensitive prefix of text or of
// one of its words (split on spaces and "/").
func wordPrefix(text, lv string) bool {
	lt := strings.ToLower(text)
	if strings.HasPrefix(lt, lv) {
		return true
	}
	for _, w := range strings.FieldsFunc(lt, func(r rune) bool { return r == ' ' || r == '/' }) {
		if strings.HasPrefix(w, lv) {
			return true
		}
	}
	return false
}

func allMatch(s *secret, w string) bool {
	if wordPrefix(s.name, w) || wordPrefix(s.description, w) || wordPrefix(s.primaryRegion, w) || wordPrefix(s.owningService, w) {
		return true
	}
	for _, t := range s.tags {
		if wordPrefix(t.key, w) || wordPrefix(t.value, w) {
			return true
		}
	}
	return false
}

// listToken is the decoded NextToken: where the previous page stopped, for
// one sort order.
type listToken struct {
	sortBy, order string
	key           string
	seq           uint64
}

func (t listToken) encode() string {
	raw := fmt.Sprintf("v1\x00%s\x00%s\x00%s\x00%d", t.sortBy, t.order, t.key, t.seq)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

func decodeListToken(s string) (listToken, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return listToken{}, false
	}
	p := strings.Split(string(raw), "\x00")
	if len(p) != 5 || p[0] != "v1" {
		return listToken{}, false
	}
	seq, err := strconv.ParseUint(p[4], 10, 64)
	if err != nil {
		return listToken{}, false
	}
	return listToken{sortBy: p[1], order: p[2], key: p[3], seq: seq}, true
}

func encodeOffsetToken(n int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("o1\x00" + strconv.Itoa(n)))
}

func decodeOffsetToken(s string) (int, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, false
	}
	v, ok := strings.CutPrefix(string(raw), "o1\x00")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// listQuery is one page request over the secrets.
type listQuery struct {
	filters        []filter
	includePlanned bool
	sortBy, order  string
	max            int
	token          *listToken
	scanLimit      int // records examined per page at most (0: no limit); created-date order only
}

type listHit struct {
	r *record
	s *secret
}

func sortKey(sortBy string, h listHit) string {
	switch sortBy {
	case "name":
		return h.s.name
	case "last-changed-date":
		return fmt.Sprintf("%020d", h.s.lastChanged.UnixNano())
	case "last-accessed-date":
		return fmt.Sprintf("%020d", h.r.lastAccessed.UnixNano())
	}
	return ""
}

// page runs q against the state visible at now-lag. It returns the hits and
// the token of the next page ("" when none). Caller holds e.mu.
func (e *Call) page(q listQuery, now time.Time, lag time.Duration) ([]listHit, string) {
	view := func(r *record) *secret {
		if lag <= 0 {
			return r.cur()
		}
		return r.at(now.Add(-lag))
	}
	keep := func(r *record) (listHit, bool) {
		s := view(r)
		if s == nil || (s.pending() && !q.includePlanned) || !matchAll(s, q.filters) {
			return listHit{}, false
		}
		return listHit{r, s}, true
	}
	order := e.Secrets.order
	var hits []listHit
	if q.sortBy == "created-date" {
		// Walk the creation-ordered records from the token in the requested
		// direction; stop at a full page or when scanLimit records were
		// examined (then the page may be short or empty, with a token).
		i, step := 0, 1
		if q.order == "desc" {
			i, step = len(order)-1, -1
		}
		if q.token != nil {
			if step > 0 {
				i = sort.Search(len(order), func(i int) bool { return order[i].seq > q.token.seq })
			} else {
				i = sort.Search(len(order), func(i int) bool { return order[i].seq >= q.token.seq }) - 1
			}
		}
		more := func(i int) bool { return i+step >= 0 && i+step < len(order) }
		tokenAt := func(i int) string {
			return listToken{sortBy: q.sortBy, order: q.order, seq: order[i].seq}.encode()
		}
		for scanned := 1; i >= 0 && i < len(order); i, scanned = i+step, scanned+1 {
			if h, ok := keep(order[i]); ok {
				hits = append(hits, h)
				if len(hits) == q.max {
					if more(i) {
						return hits, tokenAt(i)
					}
					return hits, ""
				}
			}
			if q.scanLimit > 0 && scanned >= q.scanLimit && more(i) {
				return hits, tokenAt(i)
			}
		}
		return hits, ""
	}
	// Other sort keys: collect, sort by (key, seq), skip past the token.
	var all []listHit
	for _, r := range order {
		if h, ok := keep(r); ok {
			all = append(all, h)
		}
	}
	type keyed struct {
		h   listHit
		key string
	}
	ks := make([]keyed, len(all))
	for i, h := range all {
		ks[i] = keyed{h, sortKey(q.sortBy, h)}
	}
	less := func(a, b keyed) int {
		if c := strings.Compare(a.key, b.key); c != 0 {
			return c
		}
		switch {
		case a.h.r.seq < b.h.r.seq:
			return -1
		case a.h.r.seq > b.h.r.seq:
			return 1
		}
		return 0
	}
	slices.SortFunc(ks, less)
	if q.order == "desc" {
		slices.Reverse(ks)
	}
	start := 0
	if q.token != nil {
		tk := keyed{key: q.token.key, h: listHit{r: &record{seq: q.token.seq}}}
		start = sort.Search(len(ks), func(i int) bool {
			c := less(ks[i], tk)
			if q.order == "desc" {
				return c < 0
			}
			return c > 0
		})
	}
	end := min(len(ks), start+q.max)
	for _, k := range ks[start:end] {
		hits = append(hits, k.h)
	}
	if end < len(ks) {
		last := ks[end-1]
		return hits, listToken{sortBy: q.sortBy, order: q.order, key: last.key, seq: last.h.r.seq}.encode()
	}
	return hits, ""
}

func parseListQuery(filters []wireFilter, sortBy, order, token *string, maxResults *int64, maxPage int64) (listQuery, *core.Error) {
	q := listQuery{sortBy: "created-date", order: "asc", max: int(maxPage)}
	fs, err := compileFilters(filters)
	if err != nil {
		return q, err
	}
	q.filters = fs
	if sortBy != nil {
		switch *sortBy {
		case "created-date", "last-accessed-date", "last-changed-date", "name":
			q.sortBy = *sortBy
		default:
			return q, core.ErrConstraint("sortBy", "Member must satisfy enum value set: [created-date, last-accessed-date, last-changed-date, name]")
		}
	}
	if order != nil {
		switch *order {
		case "asc", "desc":
			q.order = *order
		default:
			return q, core.ErrConstraint("sortOrder", "Member must satisfy enum value set: [asc, desc]")
		}
	}
	if err := validMaxResults(maxResults, maxPage); err != nil {
		return q, err
	}
	if maxResults != nil {
		q.max = int(*maxResults)
	}
	if token != nil {
		t, ok := decodeListToken(*token)
		if !ok || t.sortBy != q.sortBy || t.order != q.order {
			return q, core.Errf("InvalidNextTokenException", "The NextToken value is invalid.")
		}
		q.token = &t
	}
	return q, nil
}

func (e *Call) listSecrets(in *listSecretsIn) (any, *core.Error) {
	q, aerr := parseListQuery(in.Filters, in.SortBy, in.SortOrder, in.NextToken, in.MaxResults, 100)
	if aerr != nil {
		return nil, aerr
	}
	q.includePlanned = in.IncludePlannedDeletion != nil && *in.IncludePlannedDeletion
	now, lag := e.begin()
	defer e.Unlock()
	q.scanLimit = int(e.ListScanLimit())
	e.Secrets.compact(now, lag)
	hits, next := e.page(q, now, lag)
	out := listSecretsOut{SecretList: make([]listEntryOut, 0, len(hits)), NextToken: next}
	for _, h := range hits {
		out.SecretList = append(out.SecretList, listEntryOut{secretMeta: e.meta(h.s, h.r), SecretVersionsToStages: h.s.stageMap()})
	}
	return out, nil
}

func (e *Call) batchGetSecretValue(in *batchGetIn) (any, *core.Error) {
	if (in.SecretIDList != nil) == (in.Filters != nil) {
		return nil, core.Errf("InvalidParameterException", "Either 'SecretIdList' or 'Filters' must be provided, but not both.")
	}
	if in.MaxResults != nil && in.Filters == nil {
		return nil, core.Errf("InvalidParameterException", "'Filters' not specified. 'Filters' must also be specified when 'MaxResults' is provided.")
	}
	out := batchGetOut{SecretValues: []secretValueOut{}}
	if in.SecretIDList != nil {
		if len(in.SecretIDList) < 1 || len(in.SecretIDList) > 20 {
			return nil, core.ErrConstraint("secretIdList", "Member must have length between 1 and 20")
		}
		now, _ := e.begin()
		defer e.Unlock()
		for _, id := range in.SecretIDList {
			r, s, aerr := e.get(id, true)
			if aerr == nil {
				var v *version
				if v, aerr = resolveVersion(s, nil, nil); aerr == nil {
					aerr = e.decrypt(v)
				}
				if aerr == nil {
					r.lastAccessed = day(now)
					out.SecretValues = append(out.SecretValues, valueOut(s, v))
					continue
				}
			}
			out.Errors = append(out.Errors, batchErrorOut{SecretID: id, ErrorCode: aerr.Code, Message: aerr.Message})
		}
		return out, nil
	}
	q, aerr := parseListQuery(in.Filters, nil, nil, in.NextToken, in.MaxResults, 20)
	if aerr != nil {
		return nil, aerr
	}
	now, lag := e.begin()
	defer e.Unlock()
	hits, next := e.page(q, now, lag)
	out.NextToken = next
	for _, h := range hits {
		s := h.r.cur()
		id := h.s.name
		if s == nil {
			out.Errors = append(out.Errors, batchErrorOut{SecretID: id, ErrorCode: "ResourceNotFoundException", Message: msgNotFound})
			continue
		}
		if s.pending() {
			out.Errors = append(out.Errors, batchErrorOut{SecretID: id, ErrorCode: "InvalidRequestException", Message: msgMarkedForDeletion})
			continue
		}
		v, verr := resolveVersion(s, nil, nil)
		if verr == nil {
			verr = e.decrypt(v)
		}
		if verr != nil {
			out.Errors = append(out.Errors, batchErrorOut{SecretID: id, ErrorCode: verr.Code, Message: verr.Message})
			continue
		}
		h.r.lastAccessed = day(now)
		out.SecretValues = append(out.SecretValues, valueOut(s, v))
	}
	return out, nil
}
