package emulator_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// Many clients mutate, read and list at once (with list lag, so histories
// are kept) while the control API reads state and advances the clock; run
// under -race. Afterwards every secret's value is the last one written to it.
func TestConcurrency_MixedCallsKeepStateConsistent(t *testing.T) {
	srv, c := start(t)
	srv.SetFaults(t, emulator.Faults{ListLagMS: 50})
	const workers, perWorker = 6, 25
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				name := fmt.Sprintf("w%d/s%d", w, i%5)
				if i < 5 {
					if _, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String(name), SecretString: aws.String("0"),
						Tags: []types.Tag{{Key: aws.String("worker"), Value: aws.String(fmt.Sprint(w))}}}); err != nil {
						t.Error(err)
						return
					}
					continue
				}
				if _, err := c.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: aws.String(name), SecretString: aws.String(fmt.Sprint(i))}); err != nil {
					t.Error(err)
					return
				}
				if _, err := c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{Filters: []types.Filter{{Key: types.FilterNameStringTypeTagValue, Values: []string{fmt.Sprint(w)}}}}); err != nil {
					t.Error(err)
					return
				}
				if _, err := c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String(name)}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 20 {
			srv.Emu.State()
			srv.Emu.Stats()
			srv.Emu.AdvanceClock(time.Millisecond)
		}
	}()
	wg.Wait()
	st := srv.State(t)
	if len(st.Secrets) != workers*5 {
		t.Fatalf("%d secrets", len(st.Secrets))
	}
	for _, s := range st.Secrets {
		var cur string
		for _, v := range s.Versions {
			for _, l := range v.Stages {
				if l == "AWSCURRENT" {
					cur = *v.SecretString
				}
			}
		}
		var idx int
		fmt.Sscanf(s.Name[len(s.Name)-1:], "%d", &idx)
		if want := fmt.Sprint(perWorker - 5 + idx); cur != want {
			t.Fatalf("%s current %q, want %q", s.Name, cur, want)
		}
	}
	if n := srv.Stats(t).Calls["PutSecretValue"]; n != workers*(perWorker-5) {
		t.Fatalf("PutSecretValue calls %d", n)
	}
}
