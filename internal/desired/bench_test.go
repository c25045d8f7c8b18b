package desired

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/aes"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/cmd/sops/common"
	"github.com/getsops/sops/v3/cmd/sops/formats"
	"github.com/getsops/sops/v3/config"
	"github.com/getsops/sops/v3/keys"
	"github.com/getsops/sops/v3/version"
)

// encryptWithLibrary encrypts a JSON plaintext to the test age key with the
// SOPS library, following the steps of the sops CLI's encrypt command. It
// exists only to make 1,000 distinct documents for the benchmark quickly;
// every test fixture is written by the real sops CLI.
func encryptWithLibrary(tb testing.TB, plain []byte) []byte {
	tb.Helper()
	store := common.StoreForFormat(formats.Json, config.NewStoresConfig())
	branches, err := store.LoadPlainFile(plain)
	if err != nil {
		tb.Fatal(err)
	}
	key, err := sopsage.MasterKeyFromRecipient(testRecipient)
	if err != nil {
		tb.Fatal(err)
	}
	tree := sops.Tree{Branches: branches, Metadata: sops.Metadata{
		KeyGroups:         []sops.KeyGroup{[]keys.MasterKey{key}},
		UnencryptedSuffix: "_unencrypted",
		Version:           version.Version,
	}}
	dataKey, errs := tree.GenerateDataKey()
	if len(errs) > 0 {
		tb.Fatal(errs)
	}
	if err := common.EncryptTree(common.EncryptTreeOpts{DataKey: dataKey, Tree: &tree, Cipher: aes.NewCipher()}); err != nil {
		tb.Fatal(err)
	}
	out, err := store.EmitEncryptedFile(tree)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// benchRepo commits n small, distinct age-encrypted documents.
func benchRepo(tb testing.TB, n int) string {
	files := make(map[string][]byte, n)
	for i := 0; i < n; i++ {
		plain := fmt.Sprintf(`{"user":"svc-%04d","password":"p-%08d","port":%d,"tls":true}`, i, i*7919, 1000+i)
		files[fmt.Sprintf("secrets/team-%02d/svc-%04d.sops.json", i%20, i)] = encryptWithLibrary(tb, []byte(plain))
	}
	dir, _ := newRepo(tb, files)
	gitCmd(tb, dir, "gc", "-q") // packed, as in a fresh clone
	return dir
}

func TestLibraryEncryptedDocumentsLoad(t *testing.T) {
	dir := benchRepo(t, 3)
	st, err := Load(context.Background(), baseOptions(dir))
	if err != nil || len(st.Secrets) != 3 || string(st.Secrets[1].Value) != `{"password":"p-00007919","port":1001,"tls":true,"user":"svc-0001"}` {
		t.Fatalf("%v %+v", err, st.Secrets)
	}
}

// BenchmarkLoad1000 loads and decrypts 1,000 small age-encrypted documents
// from one commit (target: under 1 s per Load on a 2-core machine; the
// figure is recorded in docs/desired-state.md).
func BenchmarkLoad1000(b *testing.B) {
	dir := benchRepo(b, 1000)
	// Concurrency arrives resolved (1..64, config); GOMAXPROCS is what the
	// earlier "0" rows of docs/desired-state.md measured.
	for _, conc := range []int{runtime.GOMAXPROCS(0), 1, 32} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			opts := baseOptions(dir)
			opts.Concurrency = conc
			b.ReportAllocs()
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				st, err := Load(context.Background(), opts)
				if err != nil || len(st.Secrets) != 1000 {
					b.Fatalf("%v, %d secrets", err, len(st.Secrets))
				}
			}
			b.StopTimer()
			// CPU time per Load (user+system, all threads): a figure that
			// does not depend on how busy the machine is.
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCheck10000 is validate --no-decrypt's load of 10,000 small
// age-encrypted documents from one commit (SPEC §15, issue 34: "in
// seconds"): Open (the walk, the Git-side checks, names, collisions) then
// Check (every document read and checked without a key). The figure is in
// docs/benchmarks.md ("validate --no-decrypt").
func BenchmarkCheck10000(b *testing.B) {
	dir := benchRepo(b, 10000)
	opts := baseOptions(dir)
	opts.Concurrency = 28
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := Open(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Check(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
		if n := len(l.Arrival().Outline().Secrets); n != 10000 {
			b.Fatalf("%d documents", n)
		}
	}
	b.StopTimer()
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}
