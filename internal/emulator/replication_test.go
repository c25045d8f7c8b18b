package emulator_test

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

// Replication: replicas in other Regions of the same account, their
// status, lag and failures, and the writes refused on them.

const msgReplicaRO = "Operation not permitted on a replica secret. Call must be made in primary secret's region."

type regions struct {
	srv        *emulatortest.Server
	east, west *secretsmanager.Client // us-east-1 (primary), eu-west-1
	west2      *secretsmanager.Client // eu-west-2
}

func startRegions(t *testing.T, f emulator.Faults) regions {
	t.Helper()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) // a fixed clock: only AdvanceClock moves it
	srv := emulatortest.Start(t, emulator.WithClock(func() time.Time { return t0 }),
		emulator.WithIAM(emulator.IAM{AccessKeys: map[string]string{keyProd: acctProd}}))
	srv.SetFaults(t, f)
	return regions{srv: srv,
		east:  srv.ClientIn(t, "us-east-1", keyProd, noRetry),
		west:  srv.ClientIn(t, "eu-west-1", keyProd, noRetry),
		west2: srv.ClientIn(t, "eu-west-2", keyProd, noRetry)}
}

func statuses(rs []types.ReplicationStatusType) map[string]string {
	m := map[string]string{}
	for _, r := range rs {
		m[*r.Region] = string(r.Status)
		if r.StatusMessage != nil {
			m[*r.Region] += ": " + *r.StatusMessage
		}
	}
	return m
}

func describeIn(t *testing.T, c *secretsmanager.Client, id string) *secretsmanager.DescribeSecretOutput {
	t.Helper()
	return must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String(id)}))
}

func value(t *testing.T, c *secretsmanager.Client, id string) string {
	t.Helper()
	return *must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(id)})).SecretString
}

func TestReplication_CreateWithReplicasLagsThenInSync(t *testing.T) {
	r := startRegions(t, emulator.Faults{ReplicationLagMS: 5000})
	out := must[*secretsmanager.CreateSecretOutput](t)(r.east.CreateSecret(ctx, &secretsmanager.CreateSecretInput{
		Name: aws.String("app/db"), SecretString: aws.String("v1"), Description: aws.String("d"),
		Tags:              []types.Tag{{Key: aws.String("team"), Value: aws.String("payments")}},
		AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}, {Region: aws.String("eu-west-2"), KmsKeyId: aws.String("alias/dr")}},
	}))
	want := map[string]string{"eu-west-1": "InProgress", "eu-west-2": "InProgress"}
	if got := statuses(out.ReplicationStatus); !mapsEqual(got, want) {
		t.Fatalf("create status %v", got)
	}
	if k := *out.ReplicationStatus[0].KmsKeyId; k != "alias/aws/secretsmanager" {
		t.Fatalf("default replica key shown as %q", k)
	}
	d := describeIn(t, r.east, "app/db")
	if *d.PrimaryRegion != "us-east-1" || !mapsEqual(statuses(d.ReplicationStatus), want) {
		t.Fatalf("describe %v %v", *d.PrimaryRegion, statuses(d.ReplicationStatus))
	}
	r.srv.AdvanceClock(t, 4999*time.Millisecond)
	if got := statuses(describeIn(t, r.east, "app/db").ReplicationStatus); got["eu-west-1"] != "InProgress" {
		t.Fatalf("before the lag: %v", got)
	}
	r.srv.AdvanceClock(t, time.Millisecond)
	if got := statuses(describeIn(t, r.east, "app/db").ReplicationStatus); !mapsEqual(got, map[string]string{"eu-west-1": "InSync", "eu-west-2": "InSync"}) {
		t.Fatalf("after the lag: %v", got)
	}
	// ListSecrets shows the same status and PrimaryRegion.
	l := must[*secretsmanager.ListSecretsOutput](t)(r.east.ListSecrets(ctx, &secretsmanager.ListSecretsInput{}))
	if len(l.SecretList) != 1 || *l.SecretList[0].PrimaryRegion != "us-east-1" {
		t.Fatalf("list %+v", l.SecretList)
	}

	// The replica: same name, the primary's ARN in its Region, value,
	// description and tags; PrimaryRegion the primary's; no ReplicationStatus.
	rep := describeIn(t, r.west, "app/db")
	if *rep.ARN != strings.Replace(*out.ARN, ":us-east-1:", ":eu-west-1:", 1) || *rep.PrimaryRegion != "us-east-1" ||
		len(rep.ReplicationStatus) != 0 || *rep.Description != "d" || len(rep.Tags) != 1 || *rep.Tags[0].Value != "payments" {
		t.Fatalf("replica %+v", rep)
	}
	if v := value(t, r.west, "app/db"); v != "v1" {
		t.Fatalf("replica value %q", v)
	}
	if k := aws.ToString(describeIn(t, r.west2, "app/db").KmsKeyId); k != "alias/dr" {
		t.Fatalf("replica key %q", k)
	}
	// Discovery in the replica's Region can tell it apart.
	l = must[*secretsmanager.ListSecretsOutput](t)(r.west.ListSecrets(ctx, &secretsmanager.ListSecretsInput{
		Filters: []types.Filter{{Key: types.FilterNameStringTypePrimaryRegion, Values: []string{"us-east-1"}}}}))
	if len(l.SecretList) != 1 || *l.SecretList[0].PrimaryRegion != "us-east-1" {
		t.Fatalf("primary-region filter in the replica's Region %+v", l.SecretList)
	}
	st := r.srv.State(t)
	if len(st.Secrets) != 3 || !st.Secrets[1].Replica || st.Secrets[1].PrimaryRegion != "us-east-1" || st.Secrets[0].ReplicationStatus[0].Status != "InSync" {
		t.Fatalf("state %+v", st.Secrets)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestReplication_ChangesReachReplicasAfterTheLag(t *testing.T) {
	r := startRegions(t, emulator.Faults{})
	out := create(t, r.east, "app", "v1")
	rep := must[*secretsmanager.ReplicateSecretToRegionsOutput](t)(r.east.ReplicateSecretToRegions(ctx, &secretsmanager.ReplicateSecretToRegionsInput{
		SecretId: out.ARN, AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}}}))
	if *rep.ARN != *out.ARN || statuses(rep.ReplicationStatus)["eu-west-1"] != "InSync" {
		t.Fatalf("replicate %+v", rep)
	}
	// Idempotent: asking again changes nothing.
	must[*secretsmanager.ReplicateSecretToRegionsOutput](t)(r.east.ReplicateSecretToRegions(ctx, &secretsmanager.ReplicateSecretToRegionsInput{
		SecretId: aws.String("app"), AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}}}))
	if n := len(describeIn(t, r.east, "app").ReplicationStatus); n != 1 {
		t.Fatalf("%d replicas", n)
	}
	r.srv.SetFaults(t, emulator.Faults{ReplicationLagMS: 2000})
	must[*secretsmanager.PutSecretValueOutput](t)(r.east.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: aws.String("app"), SecretString: aws.String("v2"), ClientRequestToken: token(2)}))
	must[*secretsmanager.TagResourceOutput](t)(r.east.TagResource(ctx, &secretsmanager.TagResourceInput{SecretId: aws.String("app"), Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}))
	if got := statuses(describeIn(t, r.east, "app").ReplicationStatus); got["eu-west-1"] != "InProgress" {
		t.Fatalf("after a change: %v", got)
	}
	r.srv.AdvanceClock(t, 2*time.Second)
	if got := statuses(describeIn(t, r.east, "app").ReplicationStatus); got["eu-west-1"] != "InSync" {
		t.Fatalf("after the lag: %v", got)
	}
	if v := value(t, r.west, "app"); v != "v2" {
		t.Fatalf("replica value %q", v)
	}
	d := describeIn(t, r.west, "app")
	if len(d.Tags) != 1 || len(d.VersionIdsToStages) != 2 {
		t.Fatalf("replica tags %v versions %v", d.Tags, d.VersionIdsToStages)
	}
}

func TestReplication_WritesToAReplicaAreRefused(t *testing.T) {
	r := startRegions(t, emulator.Faults{})
	out := must[*secretsmanager.CreateSecretOutput](t)(r.east.CreateSecret(ctx, &secretsmanager.CreateSecretInput{
		Name: aws.String("app"), SecretString: aws.String("v"), AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}}}))
	arn := aws.String(strings.Replace(*out.ARN, ":us-east-1:", ":eu-west-1:", 1))
	w := r.west
	calls := map[string]func() error{
		"PutSecretValue": func() error {
			_, err := w.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: arn, SecretString: aws.String("x"), ClientRequestToken: token(9)})
			return err
		},
		"UpdateSecret": func() error {
			_, err := w.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: arn, Description: aws.String("x")})
			return err
		},
		"TagResource": func() error {
			_, err := w.TagResource(ctx, &secretsmanager.TagResourceInput{SecretId: arn, Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
			return err
		},
		"UntagResource": func() error {
			_, err := w.UntagResource(ctx, &secretsmanager.UntagResourceInput{SecretId: arn, TagKeys: []string{"k"}})
			return err
		},
		"UpdateSecretVersionStage": func() error {
			_, err := w.UpdateSecretVersionStage(ctx, &secretsmanager.UpdateSecretVersionStageInput{SecretId: arn, VersionStage: aws.String("X"), MoveToVersionId: out.VersionId})
			return err
		},
		"DeleteSecret": func() error {
			_, err := w.DeleteSecret(ctx, &secretsmanager.DeleteSecretInput{SecretId: arn, ForceDeleteWithoutRecovery: aws.Bool(true)})
			return err
		},
		"RestoreSecret": func() error {
			_, err := w.RestoreSecret(ctx, &secretsmanager.RestoreSecretInput{SecretId: arn})
			return err
		},
		"ReplicateSecretToRegions": func() error {
			_, err := w.ReplicateSecretToRegions(ctx, &secretsmanager.ReplicateSecretToRegionsInput{SecretId: arn, AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-2")}}})
			return err
		},
		"RemoveRegionsFromReplication": func() error {
			_, err := w.RemoveRegionsFromReplication(ctx, &secretsmanager.RemoveRegionsFromReplicationInput{SecretId: arn, RemoveReplicaRegions: []string{"eu-west-1"}})
			return err
		},
	}
	for op, call := range calls {
		err := call()
		var ae interface{ ErrorCode() string }
		if !errorsAs(err, &ae) {
			t.Fatalf("%s: %v", op, err)
		}
		wantAPIError(t, err, "InvalidParameterException", msgReplicaRO)
	}
	if v := value(t, w, "app"); v != "v" {
		t.Fatalf("replica changed: %q", v)
	}
	// Reads work on the replica.
	must[*secretsmanager.ListSecretVersionIdsOutput](t)(w.ListSecretVersionIds(ctx, &secretsmanager.ListSecretVersionIdsInput{SecretId: arn}))
	must[*secretsmanager.BatchGetSecretValueOutput](t)(w.BatchGetSecretValue(ctx, &secretsmanager.BatchGetSecretValueInput{SecretIdList: []string{"app"}}))
}

func TestReplication_DeleteRefusedWhileReplicasExist(t *testing.T) {
	r := startRegions(t, emulator.Faults{})
	out := must[*secretsmanager.CreateSecretOutput](t)(r.east.CreateSecret(ctx, &secretsmanager.CreateSecretInput{
		Name: aws.String("app"), SecretString: aws.String("v"),
		AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}, {Region: aws.String("eu-west-2")}}}))
	for _, force := range []bool{false, true} {
		_, err := r.east.DeleteSecret(ctx, &secretsmanager.DeleteSecretInput{SecretId: aws.String("app"), ForceDeleteWithoutRecovery: aws.Bool(force)})
		wantAPIError(t, err, "InvalidParameterException", "You can't delete secret "+*out.ARN+" that still has replica regions [eu-west-1, eu-west-2]")
	}
	rm := must[*secretsmanager.RemoveRegionsFromReplicationOutput](t)(r.east.RemoveRegionsFromReplication(ctx, &secretsmanager.RemoveRegionsFromReplicationInput{
		SecretId: aws.String("app"), RemoveReplicaRegions: []string{"eu-west-1"}}))
	if got := statuses(rm.ReplicationStatus); !mapsEqual(got, map[string]string{"eu-west-2": "InSync"}) {
		t.Fatalf("remaining %v", got)
	}
	// The replica is gone at once, with no recovery window.
	_, err := r.west.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("app")})
	wantCode(t, err, "ResourceNotFoundException")
	// Removing again is not an error.
	must[*secretsmanager.RemoveRegionsFromReplicationOutput](t)(r.east.RemoveRegionsFromReplication(ctx, &secretsmanager.RemoveRegionsFromReplicationInput{
		SecretId: aws.String("app"), RemoveReplicaRegions: []string{"eu-west-1", "eu-west-2"}}))
	d := describeIn(t, r.east, "app")
	if d.PrimaryRegion != nil || len(d.ReplicationStatus) != 0 {
		t.Fatalf("after removing every replica: %v %v", d.PrimaryRegion, d.ReplicationStatus)
	}
	must[*secretsmanager.DeleteSecretOutput](t)(r.east.DeleteSecret(ctx, &secretsmanager.DeleteSecretInput{SecretId: aws.String("app")}))
	// Restore, then replicate again (the order SPEC §12 gives).
	must[*secretsmanager.RestoreSecretOutput](t)(r.east.RestoreSecret(ctx, &secretsmanager.RestoreSecretInput{SecretId: aws.String("app")}))
	must[*secretsmanager.ReplicateSecretToRegionsOutput](t)(r.east.ReplicateSecretToRegions(ctx, &secretsmanager.ReplicateSecretToRegionsInput{
		SecretId: aws.String("app"), AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}}}))
	if v := value(t, r.west, "app"); v != "v" {
		t.Fatal("re-replicated value")
	}
}

func TestReplication_FailureFaultEndsFailedWithAMessage(t *testing.T) {
	r := startRegions(t, emulator.Faults{ReplicationLagMS: 1000, ReplicaFailures: []emulator.ReplicaFailure{{Region: "eu-west-2", Message: "Access to KMS is not allowed"}}})
	out := must[*secretsmanager.CreateSecretOutput](t)(r.east.CreateSecret(ctx, &secretsmanager.CreateSecretInput{
		Name: aws.String("app"), SecretString: aws.String("v"),
		AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}, {Region: aws.String("eu-west-2")}}}))
	if got := statuses(out.ReplicationStatus); got["eu-west-2"] != "InProgress" {
		t.Fatalf("during the lag %v", got)
	}
	r.srv.AdvanceClock(t, time.Second)
	want := map[string]string{"eu-west-1": "InSync", "eu-west-2": "Failed: Access to KMS is not allowed"}
	if got := statuses(describeIn(t, r.east, "app").ReplicationStatus); !mapsEqual(got, want) {
		t.Fatalf("status %v", got)
	}
	_, err := r.west2.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("app")})
	wantCode(t, err, "ResourceNotFoundException")
	if n := r.srv.Stats(t).Faults["replica-failure"]; n != 1 {
		t.Fatalf("replica-failure faults %d", n)
	}
	// A replica that was InSync and then failed on a change keeps its old
	// value, and replicating again updates it (it is no name clash).
	r.srv.SetFaults(t, emulator.Faults{})
	must[*secretsmanager.ReplicateSecretToRegionsOutput](t)(r.east.ReplicateSecretToRegions(ctx, &secretsmanager.ReplicateSecretToRegionsInput{
		SecretId: aws.String("app"), AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}}}))
	r.srv.SetFaults(t, emulator.Faults{ReplicaFailures: []emulator.ReplicaFailure{{Region: "eu-west-1"}}})
	must[*secretsmanager.PutSecretValueOutput](t)(r.east.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: aws.String("app"), SecretString: aws.String("v1b"), ClientRequestToken: token(7)}))
	if got := statuses(describeIn(t, r.east, "app").ReplicationStatus)["eu-west-1"]; !strings.HasPrefix(got, "Failed: ") {
		t.Fatalf("eu-west-1 after a failed change: %q", got)
	}
	if v := value(t, r.west, "app"); v != "v" {
		t.Fatalf("failed replica updated to %q", v)
	}
	r.srv.SetFaults(t, emulator.Faults{})
	rep1 := must[*secretsmanager.ReplicateSecretToRegionsOutput](t)(r.east.ReplicateSecretToRegions(ctx, &secretsmanager.ReplicateSecretToRegionsInput{
		SecretId: aws.String("app"), AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}}}))
	if got := statuses(rep1.ReplicationStatus)["eu-west-1"]; got != "InSync" {
		t.Fatalf("re-replicated a stale replica: %q", got)
	}
	if v := value(t, r.west, "app"); v != "v1b" {
		t.Fatalf("re-replicated value %q", v)
	}
	r.srv.SetFaults(t, emulator.Faults{ReplicationLagMS: 1000, ReplicaFailures: []emulator.ReplicaFailure{{Region: "eu-west-2", Message: "Access to KMS is not allowed"}}})
	want["eu-west-1"] = "InSync"

	// A change of the primary leaves a failed replica failed.
	must[*secretsmanager.PutSecretValueOutput](t)(r.east.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: aws.String("app"), SecretString: aws.String("v2"), ClientRequestToken: token(2)}))
	r.srv.AdvanceClock(t, time.Second)
	if got := statuses(describeIn(t, r.east, "app").ReplicationStatus); !mapsEqual(got, want) {
		t.Fatalf("after a change %v", got)
	}
	// Without the fault, replicating the failed Region again succeeds.
	r.srv.SetFaults(t, emulator.Faults{})
	rep := must[*secretsmanager.ReplicateSecretToRegionsOutput](t)(r.east.ReplicateSecretToRegions(ctx, &secretsmanager.ReplicateSecretToRegionsInput{
		SecretId: aws.String("app"), AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-2")}}}))
	if got := statuses(rep.ReplicationStatus); got["eu-west-2"] != "InSync" {
		t.Fatalf("retry %v", got)
	}
	if v := value(t, r.west2, "app"); v != "v2" {
		t.Fatalf("retried replica value %q", v)
	}
}

func TestReplication_NameClashInTheTargetRegion(t *testing.T) {
	r := startRegions(t, emulator.Faults{})
	create(t, r.west, "app", "theirs")
	create(t, r.east, "app", "ours")
	rep := must[*secretsmanager.ReplicateSecretToRegionsOutput](t)(r.east.ReplicateSecretToRegions(ctx, &secretsmanager.ReplicateSecretToRegionsInput{
		SecretId: aws.String("app"), AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}}}))
	if got := statuses(rep.ReplicationStatus)["eu-west-1"]; got != "Failed: Replication failed: Secret name app already exists in region eu-west-1." {
		t.Fatalf("clash %q", got)
	}
	if v := value(t, r.west, "app"); v != "theirs" {
		t.Fatal("the other secret was touched")
	}
	rep = must[*secretsmanager.ReplicateSecretToRegionsOutput](t)(r.east.ReplicateSecretToRegions(ctx, &secretsmanager.ReplicateSecretToRegionsInput{
		SecretId: aws.String("app"), AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}}, ForceOverwriteReplicaSecret: true}))
	if got := statuses(rep.ReplicationStatus)["eu-west-1"]; got != "InSync" {
		t.Fatalf("force %q", got)
	}
	if v := value(t, r.west, "app"); v != "ours" {
		t.Fatal("force did not overwrite")
	}
}

func TestReplication_InvalidRegionsAndQuotas(t *testing.T) {
	r := startRegions(t, emulator.Faults{})
	create(t, r.east, "app", "v")
	for _, reg := range []string{"us-east-1", "Mars"} {
		_, err := r.east.ReplicateSecretToRegions(ctx, &secretsmanager.ReplicateSecretToRegionsInput{SecretId: aws.String("app"), AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String(reg)}}})
		wantAPIError(t, err, "InvalidParameterException", "Invalid replica region.")
	}
	_, err := r.east.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("b"), AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("us-east-1")}}})
	wantAPIError(t, err, "InvalidParameterException", "Invalid replica region.")
	_, err = r.east.ReplicateSecretToRegions(ctx, &secretsmanager.ReplicateSecretToRegionsInput{SecretId: aws.String("nope"), AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}}})
	wantCode(t, err, "ResourceNotFoundException")

	// Replication calls share the primary Region's PutSecretValue quota;
	// carrying a change to a replica costs the replica's Region nothing.
	r.srv.SetFaults(t, emulator.Faults{Quotas: true, QuotaScales: map[string]float64{"PutSecretValue": 0.02}}) // 1/s, burst 1
	must[*secretsmanager.ReplicateSecretToRegionsOutput](t)(r.east.ReplicateSecretToRegions(ctx, &secretsmanager.ReplicateSecretToRegionsInput{
		SecretId: aws.String("app"), AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}}}))
	_, err = r.east.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: aws.String("app"), SecretString: aws.String("x"), ClientRequestToken: token(3)})
	wantCode(t, err, "ThrottlingException")
	create(t, r.west, "other", "v")
	must[*secretsmanager.PutSecretValueOutput](t)(r.west.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: aws.String("other"), SecretString: aws.String("x"), ClientRequestToken: token(4)}))
	st := r.srv.Stats(t)
	if st.CallsByAccountRegion[acctProd+"/us-east-1"]["ReplicateSecretToRegions"] != 4 || st.CallsByAccountRegion[acctProd+"/eu-west-1"]["ReplicateSecretToRegions"] != 0 {
		t.Fatalf("calls %v", st.CallsByAccountRegion)
	}
}

func TestReplication_ConditionsMakeRealReplicas(t *testing.T) {
	r := startRegions(t, emulator.Faults{ReplicationLagMS: 60000})
	out := create(t, r.east, "app", "v")
	r.srv.SetConditions(t, emulator.Conditions{Name: *out.ARN, ReplicaRegions: []string{"eu-west-1"}})
	if got := statuses(describeIn(t, r.east, "app").ReplicationStatus); got["eu-west-1"] != "InSync" {
		t.Fatalf("conditions replica %v", got)
	}
	if v := value(t, r.west, "app"); v != "v" {
		t.Fatal("conditions replica value")
	}
	r.srv.SetConditions(t, emulator.Conditions{Name: *out.ARN, ReplicaRegions: []string{}})
	_, err := r.west.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("app")})
	wantCode(t, err, "ResourceNotFoundException")
	if err := r.srv.Control().SetConditions(ctx, emulator.Conditions{Name: *out.ARN, ReplicaRegions: []string{"us-east-1"}}); err == nil {
		t.Fatal("replica in the secret's own Region accepted")
	}
}

// A replica overwritten by another primary's ForceOverwriteReplicaSecret
// belongs to that primary: the first primary's changes and removals leave
// it alone.
func TestRegression_ReplicaOverwrittenByAnotherPrimaryIsNotWrittenByTheFirst(t *testing.T) {
	r := startRegions(t, emulator.Faults{})
	must[*secretsmanager.CreateSecretOutput](t)(r.east.CreateSecret(ctx, &secretsmanager.CreateSecretInput{
		Name: aws.String("app"), SecretString: aws.String("east"), AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}}}))
	must[*secretsmanager.CreateSecretOutput](t)(r.west2.CreateSecret(ctx, &secretsmanager.CreateSecretInput{
		Name: aws.String("app"), SecretString: aws.String("west2"), ForceOverwriteReplicaSecret: true,
		AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}}}))
	if d := describeIn(t, r.west, "app"); *d.PrimaryRegion != "eu-west-2" {
		t.Fatalf("replica's primary %s", *d.PrimaryRegion)
	}
	must[*secretsmanager.PutSecretValueOutput](t)(r.east.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: aws.String("app"), SecretString: aws.String("east2"), ClientRequestToken: token(5)}))
	if v := value(t, r.west, "app"); v != "west2" {
		t.Fatalf("the other primary's replica holds %q", v)
	}
	must[*secretsmanager.RemoveRegionsFromReplicationOutput](t)(r.east.RemoveRegionsFromReplication(ctx, &secretsmanager.RemoveRegionsFromReplicationInput{
		SecretId: aws.String("app"), RemoveReplicaRegions: []string{"eu-west-1"}}))
	if v := value(t, r.west, "app"); v != "west2" {
		t.Fatal("removal deleted the other primary's replica")
	}
}

func TestResourcePolicy_PutGetDeleteAndReplicated(t *testing.T) {
	r := startRegions(t, emulator.Faults{})
	const policy = `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"secretsmanager:GetSecretValue","Resource":"*"}]}`
	out := must[*secretsmanager.CreateSecretOutput](t)(r.east.CreateSecret(ctx, &secretsmanager.CreateSecretInput{
		Name: aws.String("app"), SecretString: aws.String("v"), AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}}}))
	g := must[*secretsmanager.GetResourcePolicyOutput](t)(r.east.GetResourcePolicy(ctx, &secretsmanager.GetResourcePolicyInput{SecretId: aws.String("app")}))
	if g.ResourcePolicy != nil || *g.ARN != *out.ARN {
		t.Fatalf("no policy yet: %+v", g)
	}
	must[*secretsmanager.PutResourcePolicyOutput](t)(r.east.PutResourcePolicy(ctx, &secretsmanager.PutResourcePolicyInput{SecretId: aws.String("app"), ResourcePolicy: aws.String(policy)}))
	g = must[*secretsmanager.GetResourcePolicyOutput](t)(r.east.GetResourcePolicy(ctx, &secretsmanager.GetResourcePolicyInput{SecretId: aws.String("app")}))
	if aws.ToString(g.ResourcePolicy) != policy {
		t.Fatalf("policy %v", g.ResourcePolicy)
	}
	// Replicated: the replica carries it (seen in the state; policy calls
	// on a replica are refused).
	st := r.srv.State(t)
	if st.Secrets[1].Region != "eu-west-1" || st.Secrets[1].ResourcePolicy != policy {
		t.Fatalf("replica policy %+v", st.Secrets[1])
	}
	_, err := r.west.GetResourcePolicy(ctx, &secretsmanager.GetResourcePolicyInput{SecretId: aws.String("app")})
	wantAPIError(t, err, "InvalidParameterException", msgReplicaRO)
	_, err = r.west.PutResourcePolicy(ctx, &secretsmanager.PutResourcePolicyInput{SecretId: aws.String("app"), ResourcePolicy: aws.String(policy)})
	wantAPIError(t, err, "InvalidParameterException", msgReplicaRO)
	_, err = r.east.PutResourcePolicy(ctx, &secretsmanager.PutResourcePolicyInput{SecretId: aws.String("app"), ResourcePolicy: aws.String("not json")})
	wantCode(t, err, "MalformedPolicyDocumentException")
	must[*secretsmanager.DeleteResourcePolicyOutput](t)(r.east.DeleteResourcePolicy(ctx, &secretsmanager.DeleteResourcePolicyInput{SecretId: aws.String("app")}))
	if st := r.srv.State(t); st.Secrets[0].ResourcePolicy != "" || st.Secrets[1].ResourcePolicy != "" {
		t.Fatalf("after delete %+v", st.Secrets)
	}
}
