// Package sts is the emulator's AWS STS, on the same listener as the other
// services (the SDK's AWS_ENDPOINT_URL_STS): AssumeRole,
// AssumeRoleWithWebIdentity and GetCallerIdentity in the Query protocol
// (form-encoded POST with Action and Version, XML answers; STS API
// reference, "Common parameters" and each action's "Response Elements").
// Temporary credentials map to the role's account, so calls made with them
// land in that account. Which roles may be assumed, by whom, is the IAM
// configuration's Roles (emulator.IAM). It imports no other service; the
// emulator lends it the server through Host.
package sts
