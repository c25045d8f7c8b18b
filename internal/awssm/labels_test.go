package awssm_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awssm"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

// TestMoveLabel_MovesOrRemovesALabelOnlyFromItsHolder: MoveLabel is
// UpdateSecretVersionStage: with a version to move to, the label leaves
// from for to (AWSCURRENT moved back makes the version it left
// AWSPREVIOUS); without one, the label is only removed from from; a from
// that does not hold the label is refused and nothing moves (the
// compare-and-swap the engine's lineage relies on, SPEC §13).
func TestMoveLabel_MovesOrRemovesALabelOnlyFromItsHolder(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	arn := create(t, c, "app/db", `{"v":1}`, nil)
	a := awssm.New(c, awssm.Options{})
	holder := func(label string) string {
		t.Helper()
		o, err := a.Describe(ctx, arn)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range o.Versions {
			if slices.Contains(v.Stages, label) {
				return v.ID
			}
		}
		return ""
	}
	first := holder(plan.StageCurrent)
	res, err := a.PutValue(ctx, arn, []byte(`{"v":2}`), model.KindJSON, "22222222-2222-2222-2222-222222222222")
	if err != nil {
		t.Fatal(err)
	}
	second := res.VersionID

	if err := a.MoveLabel(ctx, arn, plan.StageCurrent, first, second); err != nil {
		t.Fatal(err)
	}
	if holder(plan.StageCurrent) != first || holder("AWSPREVIOUS") != second {
		t.Fatalf("AWSCURRENT on %q, AWSPREVIOUS on %q; want %q, %q", holder(plan.StageCurrent), holder("AWSPREVIOUS"), first, second)
	}

	if _, err := c.UpdateSecretVersionStage(ctx, &secretsmanager.UpdateSecretVersionStageInput{SecretId: aws.String(arn),
		VersionStage: aws.String(plan.StagePending), MoveToVersionId: aws.String(second)}); err != nil {
		t.Fatal(err)
	}
	err = a.MoveLabel(ctx, arn, plan.StagePending, "", first)
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != "InvalidParameterException" {
		t.Fatalf("a move from a version without the label → %#v, want InvalidParameterException", err)
	}
	if holder(plan.StagePending) != second {
		t.Fatal("a refused move moved the label")
	}
	if err := a.MoveLabel(ctx, arn, plan.StagePending, "", second); err != nil {
		t.Fatal(err)
	}
	if got := holder(plan.StagePending); got != "" {
		t.Fatalf("AWSPENDING still on %q after its removal", got)
	}
	if holder(plan.StageCurrent) != first {
		t.Fatal("removing AWSPENDING moved AWSCURRENT")
	}
}
