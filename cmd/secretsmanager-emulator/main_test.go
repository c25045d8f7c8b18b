package main

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
)

// End to end: the real built binary, the real SDK over loopback, a signal.
func TestBinary_ServesSDKAndExitsZeroOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "secretsmanager-emulator")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(bin, "--listen", "127.0.0.1:0", "--region", "us-west-2")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimSuffix(line, "\n")
		if !regexp.MustCompile(`^listening on http://127\.0\.0\.1:[0-9]+$`).MatchString(line) {
			t.Fatalf("first line %q", line)
		}
		c := secretsmanager.New(secretsmanager.Options{
			Region:       "us-west-2",
			Credentials:  credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
			BaseEndpoint: aws.String(strings.TrimPrefix(line, "listening on ")),
		})
		out, err := c.CreateSecret(context.Background(), &secretsmanager.CreateSecretInput{Name: aws.String("e2e"), SecretString: aws.String("v")})
		if err != nil || !strings.Contains(*out.ARN, ":us-west-2:") {
			t.Fatalf("create: %v %v", out, err)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%v: exit %v", sig, err)
		}
	}
}
