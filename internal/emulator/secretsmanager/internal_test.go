package secretsmanager

import (
	"testing"
	"time"
)

// Unit tests of the pure pieces: history lookup, filter semantics, page
// tokens.

func TestRecordAtReadsThePast(t *testing.T) {
	t0 := time.Unix(1000, 0)
	st := NewStore()
	s1 := &secret{name: "a", arn: "arn:a"}
	r := st.create(s1, t0)
	s2 := s1.clone()
	st.commit(r, s2, t0.Add(10*time.Second), time.Minute)
	st.commit(r, nil, t0.Add(20*time.Second), time.Minute)
	cases := []struct {
		at   time.Duration
		want *secret
	}{{-time.Second, nil}, {0, s1}, {5 * time.Second, s1}, {10 * time.Second, s2}, {19 * time.Second, s2}, {20 * time.Second, nil}}
	for _, c := range cases {
		if got := r.at(t0.Add(c.at)); got != c.want {
			t.Fatalf("at +%v: got %p want %p", c.at, got, c.want)
		}
	}
	if st.lookup("a") != nil || st.lookup("arn:a") != nil {
		t.Fatal("purged record still indexed")
	}
}

func TestHistoryIsPrunedToTheLagWindow(t *testing.T) {
	t0 := time.Unix(1000, 0)
	st := NewStore()
	r := st.create(&secret{name: "a", arn: "arn:a"}, t0)
	for i := 1; i <= 100; i++ {
		st.commit(r, r.cur().clone(), t0.Add(time.Duration(i)*time.Second), 10*time.Second)
	}
	if n := len(r.history); n > 12 {
		t.Fatalf("history holds %d entries for a 10 s window of 1 write/s", n)
	}
	if r.at(t0.Add(90*time.Second)) == nil {
		t.Fatal("state at the window's start lost")
	}
	st.commit(r, r.cur().clone(), t0.Add(200*time.Second), 0)
	if len(r.history) != 1 {
		t.Fatalf("without lag history holds %d entries", len(r.history))
	}
}

func TestFilterNegationAndOr(t *testing.T) {
	s := &secret{name: "prod/db", tags: []tag{{"team", "core"}}}
	fs, err := compileFilters([]wireFilter{{Key: ptr("name"), Values: []string{"dev/", "prod/"}}})
	if err != nil || !matchAll(s, fs) {
		t.Fatal("OR of values")
	}
	fs, _ = compileFilters([]wireFilter{{Key: ptr("name"), Values: []string{"prod/", "!prod/d"}}})
	if matchAll(s, fs) {
		t.Fatal("a matching negation must exclude")
	}
	fs, _ = compileFilters([]wireFilter{{Key: ptr("tag-key"), Values: []string{"!other"}}})
	if !matchAll(s, fs) {
		t.Fatal("a negation alone keeps what it does not match")
	}
}

func TestPageTokensRoundTripAndRejectGarbage(t *testing.T) {
	tk := listToken{sortBy: "name", order: "desc", key: "a/b", seq: 42}
	got, ok := decodeListToken(tk.encode())
	if !ok || got != tk {
		t.Fatalf("round trip %+v %v", got, ok)
	}
	for _, bad := range []string{"", "!!!", encodeOffsetToken(3), "djEAbmFtZQ"} {
		if _, ok := decodeListToken(bad); ok {
			t.Fatalf("accepted %q", bad)
		}
	}
	if n, ok := decodeOffsetToken(encodeOffsetToken(7)); !ok || n != 7 {
		t.Fatal("offset token")
	}
}

func ptr(s string) *string { return &s }
