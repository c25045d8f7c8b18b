package emulator_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// Benchmarks: what the emulator itself costs per call (figures in
// docs/emulator.md). Run: make emulator-bench.

func call(b *testing.B, e *emulator.Emulator, op, body string) int {
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader([]byte(body)))
	req.Header.Set("X-Amz-Target", "secretsmanager."+op)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec.Code
}

const scopeA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
const scopeB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

// load creates n owned secrets, half in scope A and half in scope B, the
// way the tool tags them.
func load(b *testing.B, e *emulator.Emulator, n int) {
	for i := range n {
		scope := scopeA
		if i%2 == 1 {
			scope = scopeB
		}
		body := fmt.Sprintf(`{"Name":"team/app/secret-%05d","SecretString":"value-%d","ClientRequestToken":"00000000-0000-4000-8000-%012d","Tags":[{"Key":"sops-aws-sync:managed-by","Value":"sops-aws-sync"},{"Key":"sops-aws-sync:scope","Value":"%s"},{"Key":"sops-aws-sync:source","Value":"%064d"}]}`, i, i, i, scope, i)
		if code := call(b, e, "CreateSecret", body); code != 200 {
			b.Fatalf("load: %d", code)
		}
	}
}

func BenchmarkHandler_GetSecretValue_10k(b *testing.B) {
	e := emulator.New()
	load(b, e, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	done := measureCPU(b)
	for i := 0; b.Loop(); i++ {
		if code := call(b, e, "GetSecretValue", fmt.Sprintf(`{"SecretId":"team/app/secret-%05d"}`, i%10_000)); code != 200 {
			b.Fatal(code)
		}
	}
	done()
}

func BenchmarkHandler_DescribeSecret_10k(b *testing.B) {
	e := emulator.New()
	load(b, e, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	done := measureCPU(b)
	for i := 0; b.Loop(); i++ {
		if code := call(b, e, "DescribeSecret", fmt.Sprintf(`{"SecretId":"team/app/secret-%05d"}`, i%10_000)); code != 200 {
			b.Fatal(code)
		}
	}
	done()
}

func BenchmarkHandler_CreateSecret(b *testing.B) {
	e := emulator.New()
	b.ReportAllocs()
	done := measureCPU(b)
	for i := 0; b.Loop(); i++ {
		body := fmt.Sprintf(`{"Name":"s-%d","SecretString":"v","ClientRequestToken":"00000000-0000-4000-8000-%012d","Tags":[{"Key":"sops-aws-sync:managed-by","Value":"sops-aws-sync"}]}`, i, i)
		if code := call(b, e, "CreateSecret", body); code != 200 {
			b.Fatal(code)
		}
	}
	done()
}

func BenchmarkHandler_PutSecretValue_10k(b *testing.B) {
	e := emulator.New()
	load(b, e, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	done := measureCPU(b)
	for i := 0; b.Loop(); i++ {
		body := fmt.Sprintf(`{"SecretId":"team/app/secret-%05d","SecretString":"new-%d","ClientRequestToken":"10000000-0000-4000-8000-%012d"}`, i%10_000, i, i)
		if code := call(b, e, "PutSecretValue", body); code != 200 {
			b.Fatal(code)
		}
	}
	done()
}

// One page (100 entries) of the tool's discovery query over 10,000 secrets,
// 5,000 of them in the queried scope.
func BenchmarkHandler_ListSecrets_ScopeFilterPage_10k(b *testing.B) {
	e := emulator.New()
	load(b, e, 10_000)
	body := `{"IncludePlannedDeletion":true,"MaxResults":100,"Filters":[{"Key":"tag-key","Values":["sops-aws-sync:managed-by"]},{"Key":"tag-value","Values":["` + scopeA + `"]}]}`
	b.ReportAllocs()
	b.ResetTimer()
	done := measureCPU(b)
	for b.Loop() {
		if code := call(b, e, "ListSecrets", body); code != 200 {
			b.Fatal(code)
		}
	}
	done()
}

// The same page with list lag on and a history of recent writes to read.
func BenchmarkHandler_ListSecrets_ScopeFilterPage_10k_Lag(b *testing.B) {
	e := emulator.New()
	if err := e.SetFaults(emulator.Faults{ListLagMS: 60_000}); err != nil {
		b.Fatal(err)
	}
	load(b, e, 10_000)
	e.AdvanceClock(2 * time.Minute)
	for i := range 10_000 {
		call(b, e, "PutSecretValue", fmt.Sprintf(`{"SecretId":"team/app/secret-%05d","SecretString":"x","ClientRequestToken":"20000000-0000-4000-8000-%012d"}`, i, i))
	}
	e.AdvanceClock(30 * time.Second)
	body := `{"IncludePlannedDeletion":true,"MaxResults":100,"Filters":[{"Key":"tag-key","Values":["sops-aws-sync:managed-by"]},{"Key":"tag-value","Values":["` + scopeA + `"]}]}`
	b.ReportAllocs()
	b.ResetTimer()
	done := measureCPU(b)
	for b.Loop() {
		if code := call(b, e, "ListSecrets", body); code != 200 {
			b.Fatal(code)
		}
	}
	done()
}

// A query that matches nothing scans all 10,000 secrets in one page.
func BenchmarkHandler_ListSecrets_NoMatchFullScan_10k(b *testing.B) {
	e := emulator.New()
	load(b, e, 10_000)
	body := `{"Filters":[{"Key":"tag-value","Values":["cccc"]}]}`
	b.ReportAllocs()
	b.ResetTimer()
	done := measureCPU(b)
	for b.Loop() {
		if code := call(b, e, "ListSecrets", body); code != 200 {
			b.Fatal(code)
		}
	}
	done()
}

// cpuTime is the process's user+system CPU time: under a loaded machine
// (other jobs on the 2 cores) wall time per op inflates, CPU time does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measureCPU reports cpu-us/op for the loop that follows; call the returned
// func after the loop.
func measureCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e3, "cpu-us/op")
	}
}

// timed wraps the emulator and accumulates the time spent inside it.
type timed struct {
	h     http.Handler
	total atomic.Int64
}

func (t *timed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	t.h.ServeHTTP(w, r)
	t.total.Add(int64(time.Since(start)))
}

// The real SDK over loopback at 1,000 calls/s (paced, one call per
// millisecond) against 10,000 secrets: reports the emulator's own time per
// call (server-us/op), and the client-observed mean and p99 (ms).
func BenchmarkLoopbackSDK_GetSecretValue_Paced1000PerSecond(b *testing.B) {
	e := emulator.New()
	load(b, e, 10_000)
	th := &timed{h: e}
	ts := httptest.NewServer(th)
	defer ts.Close()
	c := secretsmanager.New(secretsmanager.Options{Region: "us-east-1", BaseEndpoint: aws.String(ts.URL), Credentials: staticCreds{}})
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	var lat []time.Duration
	th.total.Store(0)
	b.ResetTimer()
	done := measureCPU(b)
	for i := 0; b.Loop(); i++ {
		<-tick.C
		start := time.Now()
		if _, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(fmt.Sprintf("team/app/secret-%05d", i%10_000))}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	done()
	slices.Sort(lat)
	var sum time.Duration
	for _, l := range lat {
		sum += l
	}
	n := len(lat)
	b.ReportMetric(float64(th.total.Load())/float64(n)/1e3, "server-us/op")
	b.ReportMetric(float64(sum)/float64(n)/1e6, "client-mean-ms")
	b.ReportMetric(float64(lat[(n*99)/100])/1e6, "client-p99-ms")
}

// Unpaced SDK round trips over loopback, 4 concurrent clients.
func BenchmarkLoopbackSDK_DescribeSecret_Parallel(b *testing.B) {
	e := emulator.New()
	load(b, e, 10_000)
	ts := httptest.NewServer(e)
	defer ts.Close()
	c := secretsmanager.New(secretsmanager.Options{Region: "us-east-1", BaseEndpoint: aws.String(ts.URL), Credentials: staticCreds{}})
	var n atomic.Int64
	b.SetParallelism(2)
	b.ResetTimer()
	done := measureCPU(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			if _, err := c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String(fmt.Sprintf("team/app/secret-%05d", i%10_000))}); err != nil {
				b.Fatal(err)
			}
		}
	})
	done()
}
