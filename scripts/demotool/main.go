// Command demotool is the helper of scripts/demo.sh: it makes an age key,
// plays an out-of-band writer with the real AWS SDK, and prints the
// emulator's view of a prefix (read through emulatortest.Control, the one
// typed client of the control API). It is a demo aid, not part of the
// product.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"filippo.io/age"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "demotool:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: demotool keygen FILE | put ENDPOINT NAME VALUE | show ENDPOINT PREFIX | show-params ENDPOINT PATH")
	}
	switch {
	case args[0] == "keygen" && len(args) == 2:
		id, err := age.GenerateX25519Identity()
		if err != nil {
			return err
		}
		if err := os.WriteFile(args[1], []byte(id.String()+"\n"), 0o600); err != nil {
			return err
		}
		fmt.Println(id.Recipient().String())
		return nil
	case args[0] == "put" && len(args) == 4:
		c := secretsmanager.New(secretsmanager.Options{
			Region: "us-east-1", BaseEndpoint: aws.String(args[1]),
			Credentials: credentials.NewStaticCredentialsProvider("demo", "demo", ""),
		})
		_, err := c.PutSecretValue(context.Background(), &secretsmanager.PutSecretValueInput{
			SecretId: aws.String(args[2]), SecretString: aws.String(args[3]),
		})
		return err
	case args[0] == "show" && len(args) == 3:
		st, err := emulatortest.Control{URL: args[1]}.State(context.Background())
		if err != nil {
			return err
		}
		for _, s := range st.Secrets {
			if !strings.HasPrefix(s.Name, args[2]) {
				continue
			}
			state := "active"
			if s.DeletedDate != nil {
				state = "scheduled for deletion"
			}
			cur := ""
			for _, v := range s.Versions {
				for _, stg := range v.Stages {
					if stg == "AWSCURRENT" && v.SecretString != nil {
						cur = *v.SecretString
					}
				}
			}
			fmt.Printf("  %-28s %-24s %d version(s)  AWSCURRENT=%s\n", s.Name, state, len(s.Versions), cur)
		}
		return nil
	case args[0] == "show-params" && len(args) == 3:
		// The Parameter Store half of the emulator's state: every
		// parameter whose name starts with PATH (e.g. "/demo/params/").
		st, err := emulatortest.Control{URL: args[1]}.State(context.Background())
		if err != nil {
			return err
		}
		for _, p := range st.Parameters {
			if strings.HasPrefix(p.Name, args[2]) {
				fmt.Printf("  %-28s %s %s %s  version %d  value=%s\n", p.Name, p.Type, p.Tier, p.KeyID, p.Version, p.Value)
			}
		}
		return nil
	}
	return fmt.Errorf("unknown or incomplete command")
}
