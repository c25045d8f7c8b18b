package model

import "slices"

// TestTarget is a row a test adds to the target table (AddTestTarget): a
// store no adapter of the product reaches, with its own ARN form
// (arn:PARTITION:Service:REGION:ACCOUNT:ARNResource NAME), IAM prefix
// (Service) and words, and none of the optional capabilities (it lacks
// every Capability: its deletion is immediate, it has no replicas and no
// keys owned by AWS, whose settings it refuses, and its listing settles
// nothing), no tiers, no binary values, no managed KMS key.
// It proves a new target is an adapter plus a row (docs/architecture.md,
// the outputs × results table).
type TestTarget struct {
	Target Target
	// Service is its ARNs' service and its IAM actions' prefix.
	Service string
	// ARNResource is its ARNs' resource type with its separator
	// ("entry/"): the resource of a secret name is ARNResource+name.
	ARNResource string
	// MaxValue is the largest value in bytes; MaxDescription the longest
	// description in characters.
	MaxValue, MaxDescription int
	Words                    TargetWords
}

// AddTestTarget adds t's row after the product's and returns the function
// that removes it again. Only tests call it, before anything reads the
// table concurrently (a TestMain): no product file calls it (the rule
// "Targets are asked, not compared", internal/archtest), so the product's
// table, and with it every setting, wire file and view of a run, holds
// only the targets declared in target.go.
func AddTestTarget(t TestTarget) (remove func()) {
	row := targetRow{
		Target: t.Target, service: t.Service,
		arn:          func(resource, name string) bool { return resource == t.ARNResource+name },
		arnResource:  t.ARNResource,
		resourceName: func(n string) string { return n },
		maxValue:     t.MaxValue, maxDescription: t.MaxDescription, ownBucket: true,
		lacks: map[Capability]string{
			CapRestore:  "its deletion is immediate",
			CapReplicas: "the store has no replicas",
			CapLabels:   "the store owns no key of a value (no rotation)",
			CapSurvey:   "every listed entry is described",
		},
		words: t.Words,
	}
	targets = append(targets, row)
	Targets = append(Targets, t.Target)
	return func() {
		targets = slices.DeleteFunc(targets, func(r targetRow) bool { return r.Target == t.Target })
		Targets = slices.DeleteFunc(Targets, func(x Target) bool { return x == t.Target })
	}
}
