package awssm

import (
	"testing"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// The fields kept from an SDK response share no memory with it (the SDK
// carves its strings from one arena block per response; keeping one kept
// the block), and the tag keys and scope-wide tag values are interned.
func TestOwn_KeptFieldsShareNoMemoryWithTheResponse(t *testing.T) {
	arena := []byte("app/db" + "AWSCURRENT" + "v-1")
	name := unsafe.String(&arena[0], 6)
	if got := own(&name); got != name || unsafe.StringData(got) == unsafe.StringData(name) {
		t.Fatalf("own(%q) = %q, sharing its memory", name, got)
	}
	if own(nil) != "" || ownTagKey(nil) != "" || ownTagValue(nil, nil) != "" {
		t.Fatal("a nil field is not the empty string")
	}
	stage := unsafe.String(&arena[6], 10)
	id := unsafe.String(&arena[16], 3)
	id2 := string([]byte("v-0"))
	vs := ownVersions(map[string][]string{id: {stage}, id2: {}})
	if len(vs) != 2 || vs[0].ID != "v-0" || vs[1].ID != "v-1" || unsafe.StringData(vs[1].ID) == unsafe.StringData(id) ||
		len(vs[1].Stages) != 1 || vs[1].Stages[0] != "AWSCURRENT" || unsafe.StringData(vs[1].Stages[0]) == unsafe.StringData(stage) {
		t.Fatalf("ownVersions kept the response's memory, changed an entry or left them unsorted: %+v", vs)
	}
	other := string([]byte("AWSCURRENT"))
	if again := ownVersions(map[string][]string{"v-2": {other}}); unsafe.StringData(again[0].Stages[0]) != unsafe.StringData(vs[1].Stages[0]) {
		t.Fatal("equal staging labels are not one string")
	}
	if ownVersions(nil) != nil {
		t.Fatal("ownVersions(nil) is not nil")
	}

	k1, k2 := []byte(model.TagScope), []byte(model.TagScope)
	s1, s2 := unsafe.String(&k1[0], len(k1)), unsafe.String(&k2[0], len(k2))
	if a, b := ownTagKey(&s1), ownTagKey(&s2); a != model.TagScope || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Fatal("equal tag keys are not one string")
	}
	v1, v2 := string([]byte("digest-0123")), string([]byte("digest-0123"))
	if a, b := ownTagValue(aws.String(model.TagScope), &v1), ownTagValue(aws.String(model.TagScope), &v2); a != v1 || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Fatal("the scope tag's value is not interned")
	}
	src := "source-digest"
	if got := ownTagValue(aws.String(model.TagSource), &src); got != src || unsafe.StringData(got) == unsafe.StringData(src) {
		t.Fatal("a per-secret tag value shares the response's memory")
	}
}

// A value read for the version DescribeSecret showed as current keeps the
// request's version id string (held once per secret); another id is a copy
// that shares no memory with the response.
func TestOwnVersionID_CurrentIDIsHeldOnce(t *testing.T) {
	cur := string([]byte("3f2a-current"))
	req := engine.ValueRequest{ID: "arn", Name: "app/db", CurrentVersionID: cur}
	read := string([]byte("3f2a-current"))
	if got := ownVersionID(&read, req); got != cur || unsafe.StringData(got) != unsafe.StringData(cur) {
		t.Fatal("the current version id read back is a second string")
	}
	other := string([]byte("9c1b-other"))
	if got := ownVersionID(&other, req); got != other || unsafe.StringData(got) == unsafe.StringData(other) {
		t.Fatalf("another version id = %q, or shares the response's memory", got)
	}
	if ownVersionID(nil, req) != "" {
		t.Fatal("a nil version id is not the empty string")
	}
}

// A name or ARN equal to what the secret was described by is the caller's
// string; anything else is a copy that shares no memory with the response.
func TestOwnAs_DescribedByIDIsHeldOnce(t *testing.T) {
	id := string([]byte("app/db"))
	same := string([]byte("app/db"))
	if got := ownAs(&same, id); got != id || unsafe.StringData(got) != unsafe.StringData(id) {
		t.Fatal("the name the secret was described by is held twice")
	}
	arn := string([]byte("arn:aws:secretsmanager:us-east-1:1:secret:app/db-AbCdEf"))
	if got := ownAs(&arn, id); got != arn || unsafe.StringData(got) == unsafe.StringData(arn) {
		t.Fatalf("another field = %q, or shares the response's memory", got)
	}
	if ownAs(nil, id) != "" {
		t.Fatal("a nil field is not the empty string")
	}
}
