package emulator_test

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// Rotation rehearsed as its four steps (POST /_emulator/rotation): the
// stages each step leaves, as a rotation Lambda leaves them (user guide
// "Rotation by Lambda function"), and DescribeSecret's rotation fields.
func TestRotation_FourStepsMoveTheStagesAsALambdaDoes(t *testing.T) {
	srv, c := start(t)
	out := create(t, c, "db/main", `{"host":"h1","password":"p0"}`)
	srv.SetConditions(t, emulator.Conditions{Name: "db/main", RotationEnabled: aws.Bool(true)})
	d := must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("db/main")}))
	if d.LastRotatedDate != nil || d.NextRotationDate == nil || d.RotationRules == nil || aws.ToInt64(d.RotationRules.AutomaticallyAfterDays) != 30 {
		t.Fatalf("before any rotation: last %v next %v rules %+v", d.LastRotatedDate, d.NextRotationDate, d.RotationRules)
	}

	pending := srv.Rotate(t, emulator.Rotation{Name: "db/main", Step: emulator.RotationCreate, Values: map[string]string{"/password": "p1"}})
	if pending == *out.VersionId {
		t.Fatal("create made no new version")
	}
	cur := must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("db/main")}))
	if *cur.SecretString != `{"host":"h1","password":"p0"}` || *cur.VersionId != *out.VersionId {
		t.Fatalf("AWSCURRENT moved at create: %s %s", *cur.VersionId, *cur.SecretString)
	}
	pv := must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("db/main"), VersionStage: aws.String("AWSPENDING")}))
	if *pv.SecretString != `{"host":"h1","password":"p1"}` || *pv.VersionId != pending {
		t.Fatalf("pending %s %s", *pv.VersionId, *pv.SecretString)
	}
	for _, step := range []string{emulator.RotationSet, emulator.RotationTest} {
		if id := srv.Rotate(t, emulator.Rotation{Name: "db/main", Step: step}); id != pending {
			t.Fatalf("%s answered %s, want %s", step, id, pending)
		}
	}
	srv.AdvanceClock(t, time.Hour)
	srv.Rotate(t, emulator.Rotation{Name: "db/main", Step: emulator.RotationFinish})

	d = must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("db/main")}))
	if !slices.Equal(sorted(d.VersionIdsToStages[pending]), []string{"AWSCURRENT", "AWSPENDING"}) || !slices.Equal(d.VersionIdsToStages[*out.VersionId], []string{"AWSPREVIOUS"}) {
		t.Fatalf("stages after finish %v (AWSPENDING left on the new current version, as AWS may leave it)", d.VersionIdsToStages)
	}
	now := srv.Emu.Now()
	if d.LastRotatedDate == nil || d.LastRotatedDate.Sub(now).Abs() > time.Second {
		t.Fatalf("LastRotatedDate %v, want about %v", d.LastRotatedDate, now)
	}
	wantNext := now.UTC().Truncate(24*time.Hour).AddDate(0, 0, 30).Add(24*time.Hour - time.Second)
	if d.NextRotationDate == nil || !d.NextRotationDate.Equal(wantNext) {
		t.Fatalf("NextRotationDate %v, want %v (end of the day 30 days after the rotation)", d.NextRotationDate, wantNext)
	}
	if st := srv.State(t); st.Secrets[0].LastRotatedDate == nil {
		t.Fatal("state dump has no last_rotated_date")
	}
	// ListSecrets shows the same rotation fields.
	l := must[*secretsmanager.ListSecretsOutput](t)(c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{}))
	if len(l.SecretList) != 1 || l.SecretList[0].LastRotatedDate == nil || l.SecretList[0].NextRotationDate == nil {
		t.Fatalf("list entry %+v", l.SecretList)
	}
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

// stagesOf is VersionIdsToStages of name, each list sorted.
func stagesOf(t *testing.T, c *secretsmanager.Client, name string) map[string][]string {
	t.Helper()
	d := must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String(name)}))
	out := map[string][]string{}
	for id, st := range d.VersionIdsToStages {
		out[id] = sorted(st)
	}
	return out
}

// Finish with remove_pending removes AWSPENDING from the new current
// version (a rotation function that cleans up after itself); without it
// the label stays there (RotateSecret's reference: after a successful
// rotation AWSPENDING "might be attached to the same version as the
// AWSCURRENT version, or it might not be attached to any version").
func TestRotation_FinishRemovesPendingOnlyWhenAsked(t *testing.T) {
	for _, remove := range []bool{false, true} {
		srv, c := start(t)
		out := create(t, c, "s", `{"p":"x"}`)
		srv.SetConditions(t, emulator.Conditions{Name: "s", RotationEnabled: aws.Bool(true)})
		pending := srv.Rotate(t, emulator.Rotation{Name: "s", Step: emulator.RotationCreate, Values: map[string]string{"/p": "y"}})
		srv.Rotate(t, emulator.Rotation{Name: "s", Step: emulator.RotationFinish, RemovePending: remove})
		want := map[string][]string{pending: {"AWSCURRENT", "AWSPENDING"}, *out.VersionId: {"AWSPREVIOUS"}}
		if remove {
			want[pending] = []string{"AWSCURRENT"}
		}
		if got := stagesOf(t, c, "s"); !maps.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("remove_pending %v: stages %v, want %v", remove, got, want)
		}
		// Either way the rotation is over: the next one starts.
		next := srv.Rotate(t, emulator.Rotation{Name: "s", Step: emulator.RotationCreate, Values: map[string]string{"/p": "z"}})
		if got := stagesOf(t, c, "s"); !slices.Equal(got[next], []string{"AWSPENDING"}) || !slices.Equal(got[pending], []string{"AWSCURRENT"}) {
			t.Fatalf("remove_pending %v: stages after the next create %v", remove, got)
		}
	}
}

// The leftover label as AWS treats it: PutSecretValue moves AWSCURRENT
// and AWSPREVIOUS only, so AWSPENDING stays on the replaced version, which
// is then a rotation in flight (the next create is refused, as AWS's
// RotateSecret refuses "a previous rotation ... in progress");
// UpdateSecretVersionStage with only RemoveFromVersionId removes the label
// (reference: UpdateSecretVersionStage; rotation functions clean up this
// way) and the next rotation starts.
func TestRotation_LeftoverPendingFollowsNoWriteAndIsRemovedByUpdateSecretVersionStage(t *testing.T) {
	srv, c := start(t)
	create(t, c, "s", `{"a":"1","p":"x"}`)
	srv.SetConditions(t, emulator.Conditions{Name: "s", RotationEnabled: aws.Bool(true)})
	rotated := srv.Rotate(t, emulator.Rotation{Name: "s", Step: emulator.RotationCreate, Values: map[string]string{"/p": "y"}})
	srv.Rotate(t, emulator.Rotation{Name: "s", Step: emulator.RotationFinish})
	w := put(t, c, "s", `{"a":"2","p":"y"}`, 9)
	want := map[string][]string{*w.VersionId: {"AWSCURRENT"}, rotated: {"AWSPENDING", "AWSPREVIOUS"}}
	if got := stagesOf(t, c, "s"); !maps.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("stages after the write %v, want %v", got, want)
	}
	if _, err := srv.Control().Rotate(ctx, emulator.Rotation{Name: "s", Step: emulator.RotationCreate, Values: map[string]string{"/p": "z"}}); err == nil || !strings.Contains(err.Error(), "already in flight") {
		t.Fatalf("create with AWSPENDING on a replaced version: %v, want refused as in flight", err)
	}
	_, err := c.UpdateSecretVersionStage(ctx, &secretsmanager.UpdateSecretVersionStageInput{SecretId: aws.String("s"), VersionStage: aws.String("AWSPENDING"), RemoveFromVersionId: w.VersionId})
	wantAPIError(t, err, "InvalidParameterException", "Staging label AWSPENDING is not attached to version "+*w.VersionId+".")
	must[*secretsmanager.UpdateSecretVersionStageOutput](t)(c.UpdateSecretVersionStage(ctx, &secretsmanager.UpdateSecretVersionStageInput{SecretId: aws.String("s"), VersionStage: aws.String("AWSPENDING"), RemoveFromVersionId: aws.String(rotated)}))
	want[rotated] = []string{"AWSPREVIOUS"}
	if got := stagesOf(t, c, "s"); !maps.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("stages after UpdateSecretVersionStage %v, want %v", got, want)
	}
	srv.Rotate(t, emulator.Rotation{Name: "s", Step: emulator.RotationCreate, Values: map[string]string{"/p": "z"}})
}

// A write between create and finish is dropped by finish, as in AWS: the
// reason the tool refuses to write while a rotation is in flight.
func TestRotation_FinishDropsAWriteMadeDuringTheRotation(t *testing.T) {
	srv, c := start(t)
	create(t, c, "s", `{"a":"1","p":"x"}`)
	srv.SetConditions(t, emulator.Conditions{Name: "s", RotationEnabled: aws.Bool(true)})
	srv.Rotate(t, emulator.Rotation{Name: "s", Step: emulator.RotationCreate, Values: map[string]string{"/p": "y"}, Remove: []string{"/a"}})
	put(t, c, "s", `{"a":"2","p":"x"}`, 7)
	srv.Rotate(t, emulator.Rotation{Name: "s", Step: emulator.RotationFinish})
	cur := must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("s")}))
	if *cur.SecretString != `{"p":"y"}` {
		t.Fatalf("current after finish %s", *cur.SecretString)
	}
}

func TestRotation_RefusesStepsOutOfOrder(t *testing.T) {
	srv, c := start(t)
	create(t, c, "s", `{"p":"x"}`)
	ctl := srv.Control()
	try := func(rot emulator.Rotation, want string) {
		t.Helper()
		_, err := ctl.Rotate(ctx, rot)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%+v: %v, want %q", rot, err, want)
		}
	}
	try(emulator.Rotation{Name: "s", Step: emulator.RotationCreate, Values: map[string]string{"/p": "y"}}, "does not have rotation enabled")
	srv.SetConditions(t, emulator.Conditions{Name: "s", RotationEnabled: aws.Bool(true)})
	try(emulator.Rotation{Name: "s", Step: emulator.RotationFinish}, "no rotation in flight")
	try(emulator.Rotation{Name: "s", Step: "rotate"}, "step must be")
	try(emulator.Rotation{Name: "s", Step: emulator.RotationCreate}, "needs values")
	try(emulator.Rotation{Name: "s", Step: emulator.RotationCreate, Values: map[string]string{"p": "y"}}, "must be")
	try(emulator.Rotation{Name: "s", Step: emulator.RotationCreate, Values: map[string]string{"/a/b": "y"}}, "parent")
	try(emulator.Rotation{Name: "missing", Step: emulator.RotationSet}, "not found")
	srv.Rotate(t, emulator.Rotation{Name: "s", Step: emulator.RotationCreate, Values: map[string]string{"": "whole"}})
	try(emulator.Rotation{Name: "s", Step: emulator.RotationCreate, Values: map[string]string{"/p": "z"}}, "already in flight")
	try(emulator.Rotation{Name: "s", Step: emulator.RotationSet, Values: map[string]string{"/p": "z"}}, "belong to step create")
	try(emulator.Rotation{Name: "s", Step: emulator.RotationTest, RemovePending: true}, "remove_pending belongs to step finish")
}
