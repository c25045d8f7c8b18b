// Command sops-aws-sync makes an owned namespace of AWS Secrets Manager
// equal to the SOPS-encrypted documents committed at one Git commit
// (see README.md and docs/).
package main

import (
	"os"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/root"
)

// Set at link time: -ldflags "-X main.version=… -X main.commit=… -X main.date=…".
var (
	version = "dev"
	commit  = "unknown"
	date    = "unknown"
)

func main() {
	os.Exit(root.Main(factory.BuildInfo{Version: version, Commit: commit, Date: date}, os.Args[1:]))
}
