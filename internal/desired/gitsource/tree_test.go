package gitsource

import "testing"

// Text that only mentions the LFS URL later is not a pointer; a pointer is
// one whatever follows its version line.
func TestIsLFSPointer(t *testing.T) {
	pointer := "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
	if isLFSPointer([]byte("{\"v\": \"version https://git-lfs.github.com/spec/v1\"}")) {
		t.Fatal("a JSON document mentioning the LFS URL was taken for a pointer")
	}
	for _, p := range []string{pointer, "version https://hawser.github.com/spec/v1\n"} {
		if !isLFSPointer([]byte(p)) {
			t.Fatalf("pointer %q not recognised", p[:30])
		}
	}
}
