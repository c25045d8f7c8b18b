package harness

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
)

// SeedConcurrency is how many seeding calls run at once.
const SeedConcurrency = 32

// NewClient returns the real aws-sdk-go-v2 Secrets Manager client for an
// emulator at url (static credentials, us-east-1), with a connection pool
// sized for SeedConcurrency.
func NewClient(url string) *secretsmanager.Client {
	return secretsmanager.New(secretsmanager.Options{
		Region:       benchRegion,
		Credentials:  benchCredentials,
		BaseEndpoint: aws.String(url),
		HTTPClient:   seedHTTPClient(),
	})
}

// benchRegion and benchCredentials are what every client of the harness
// signs with: the emulator checks the signature's shape, not the key.
const benchRegion = "us-east-1"

var benchCredentials = credentials.NewStaticCredentialsProvider("AKIDBENCH", "bench-secret", "")

// seedHTTPClient is the HTTP client of the harness's SDK clients: a
// connection pool sized for SeedConcurrency, 60 s per request.
func seedHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = SeedConcurrency
	return &http.Client{Transport: tr, Timeout: 60 * time.Second}
}

// Seed creates one owned secret per document of c with exactly what the CLI
// writes at CreateSecret: the name, the canonical value as SecretString,
// and the three reserved tags (SPEC §4). Run it with the emulator's faults
// off: seeding is set-up, not measurement.
func Seed(ctx context.Context, sm *secretsmanager.Client, c Corpus) error {
	return parallel(ctx, len(c.Docs), func(ctx context.Context, i int) error {
		d := c.Docs[i]
		tags := c.Tags(d)
		var tt []types.Tag
		for _, k := range slices.Sorted(maps.Keys(tags)) {
			tt = append(tt, types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
		}
		_, err := sm.CreateSecret(ctx, &secretsmanager.CreateSecretInput{
			Name: aws.String(d.Name), SecretString: aws.String(string(d.Value)), Tags: tt,
		})
		if err != nil {
			return fmt.Errorf("seed CreateSecret %d: %w", i, err)
		}
		return nil
	})
}

// MakeStale gives the secrets of the documents at idx a different current
// value (PutSecretValue with the document's Stale value), so that a sync
// must update exactly those.
func MakeStale(ctx context.Context, sm *secretsmanager.Client, c Corpus, idx []int) error {
	return parallel(ctx, len(idx), func(ctx context.Context, k int) error {
		d := c.Docs[idx[k]]
		_, err := sm.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{
			SecretId: aws.String(d.Name), SecretString: aws.String(string(d.Stale)),
		})
		if err != nil {
			return fmt.Errorf("stale PutSecretValue %d: %w", idx[k], err)
		}
		return nil
	})
}

// EveryTenth returns the indexes 0, 10, 20, … below n: 10% of the corpus.
func EveryTenth(n int) []int {
	var idx []int
	for i := 0; i < n; i += 10 {
		idx = append(idx, i)
	}
	return idx
}

func parallel(ctx context.Context, n int, fn func(context.Context, int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
		next  = make(chan int)
	)
	for range min(SeedConcurrency, max(n, 1)) {
		wg.Go(func() {
			for i := range next {
				if err := fn(ctx, i); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		})
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}
