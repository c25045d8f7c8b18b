package awssm_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awssm"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

// TestReplicas_CreateReplicateRemoveAndDescribe: the adapter's replica
// calls through the real SDK against the emulator: a create with
// AddReplicaRegions (the replica key given), Describe's PrimaryRegion and
// statuses (never the status message), DescribeIn another Region,
// Replicate, RemoveReplicas, and the list entry's PrimaryRegion.
func TestReplicas_CreateReplicateRemoveAndDescribe(t *testing.T) {
	const canary = "CANARY-replica-message"
	srv := emulatortest.Start(t)
	srv.SetFaults(t, emulator.Faults{ReplicaFailures: []emulator.ReplicaFailure{{Region: "ap-south-1", Message: canary}}})
	a := awssm.New(srv.Client(t), awssm.Options{OperationTimeout: 5 * time.Second})
	ctx := context.Background()
	if a.Region() != "us-east-1" {
		t.Fatalf("Region() = %q", a.Region())
	}
	res, err := a.Create(ctx, engine.CreateRequest{Name: "app/db", Value: []byte(`{}`), Token: strings.Repeat("a", 32),
		Tags: sc.Tags("secrets/db.sops.json"), Replicas: []model.Replica{{Region: "ap-south-1"}, {Region: "eu-west-1", KMSKeyID: "alias/dr"}}})
	if err != nil {
		t.Fatal(err)
	}
	o, err := a.Describe(ctx, res.ARN)
	if err != nil {
		t.Fatal(err)
	}
	want := []plan.ObservedReplica{{Region: "ap-south-1", KMSKeyID: "alias/aws/secretsmanager", Status: model.ReplicaFailed},
		{Region: "eu-west-1", KMSKeyID: "alias/dr", Status: model.ReplicaInSync}}
	if o.PrimaryRegion != "us-east-1" || !slices.Equal(o.Replicas, want) || !slices.Equal(o.ReplicaRegions, []string{"ap-south-1", "eu-west-1"}) {
		t.Fatalf("observed %+v", o)
	}
	if strings.Contains(strings.Join([]string{o.Replicas[0].Status, o.Replicas[0].KMSKeyID}, " "), canary) {
		t.Fatal("status message kept")
	}

	there, err := a.DescribeIn(ctx, "eu-west-1", "app/db")
	if err != nil || !there.Exists || there.PrimaryRegion != "us-east-1" || !strings.Contains(there.ARN, ":eu-west-1:") {
		t.Fatalf("DescribeIn = %+v, %v", there, err)
	}
	if absent, err := a.DescribeIn(ctx, "us-west-2", "app/db"); err != nil || absent.Exists {
		t.Fatalf("DescribeIn(absent) = %+v, %v", absent, err)
	}

	srv.SetFaults(t, emulator.Faults{})
	if err := a.Replicate(ctx, res.ARN, []model.Replica{{Region: "us-west-2"}}); err != nil {
		t.Fatal(err)
	}
	if err := a.RemoveReplicas(ctx, res.ARN, []string{"ap-south-1", "eu-west-1"}); err != nil {
		t.Fatal(err)
	}
	if err := a.RemoveReplicas(ctx, res.ARN, []string{"eu-west-1"}); err != nil {
		t.Fatalf("removing again must be harmless: %v", err)
	}
	o, _ = a.Describe(ctx, res.ARN)
	if !slices.Equal(o.ReplicaRegions, []string{"us-west-2"}) {
		t.Fatalf("replicas %v", o.ReplicaRegions)
	}

	west := awssm.New(srv.ClientIn(t, "us-west-2", emulatortest.DefaultAccessKey), awssm.Options{})
	cands, err := west.ListCandidates(ctx, "")
	if err != nil || len(cands) != 1 || cands[0].PrimaryRegion != "us-east-1" {
		t.Fatalf("candidates in the replica Region %+v, %v", cands, err)
	}
}
