// Command secretsmanager-emulator serves a local AWS Secrets Manager with
// fault injection, and Parameter Store and STS on the same listener (see
// docs/emulator.md).
package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatorcmd"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	os.Exit(emulatorcmd.Run(os.Args[1:], os.Stdout, os.Stderr, stop))
}
