package canonical

import (
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// benchDoc is a document of the benchmark corpus's shape: four members,
// one a ~1 KiB string, indented as SOPS emits it.
var benchDoc = []byte("{\n  \"enabled\": true,\n  \"id\": \"secret-00042\",\n  \"payload\": \"" + strings.Repeat("aB3x", 240) + "\",\n  \"port\": 5042\n}\n")

func BenchmarkFromJSON(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromJSON(benchDoc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateJSON(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if e := validateJSON(benchDoc); e != nil {
			b.Fatal(e)
		}
	}
}

func BenchmarkJCSTransform(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jcs.Transform(benchDoc); err != nil {
			b.Fatal(err)
		}
	}
}
