package awssm

import (
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awscore"
)

// KeepConnections is a client option that wraps the client's HTTP client
// in awscore.GuardBody. The adapter applies it to every call it makes
// (New), so every client an adapter is built over, the CLI's and the
// tests' alike, sends each call once when the service answers it.
func KeepConnections(o *secretsmanager.Options) { o.HTTPClient = awscore.GuardBody(o.HTTPClient) }
