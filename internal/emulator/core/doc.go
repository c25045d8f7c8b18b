// Package core is what every service of the emulator shares: the awsJson1_1
// wire protocol (a request body decoded into an operation's input shape, an
// answer or an error written with the headers the SDK reads), the
// validation answers in the service model's words, the shapes two services
// declare alike (tags, epoch timestamps), how a request names its account
// and Region (the SigV4 credential scope) and its SDK attempt, and the
// interfaces through which one service uses another's (Keys: the KMS keys
// Secrets Manager and Parameter Store encrypt under).
//
// A service package (secretsmanager, kms, sts, ssm under internal/emulator)
// imports core and never another service; internal/emulator composes them
// on one listener. Nothing here holds state of a service.
package core
