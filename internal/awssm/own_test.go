package awssm

import (
	"testing"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/aws"

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
	m := ownStages(map[string][]string{id: {stage}})
	for k, v := range m {
		if k != "v-1" || unsafe.StringData(k) == unsafe.StringData(id) || len(v) != 1 || v[0] != "AWSCURRENT" || unsafe.StringData(v[0]) == unsafe.StringData(stage) {
			t.Fatalf("ownStages kept the response's memory or changed the map: %q → %q", k, v)
		}
	}
	if ownStages(nil) != nil {
		t.Fatal("ownStages(nil) is not nil")
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
