package engine

import (
	"slices"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// TestBeforeAWS: each refusal the engine makes before its first AWS call,
// from the settings, the outline and the Region alone (what validate
// applies too), in order and each once; none for a scope that fits, and
// no replica check without a Region.
func TestBeforeAWS(t *testing.T) {
	outline := model.State{Scope: model.Scope{Prefix: "p"}, Secrets: []model.Secret{{Name: "p/db"}, {Name: "p/cert", Kind: model.KindText}}}
	replicas := func(v string) []model.Replica {
		r, err := model.ParseReplicaRegions(v)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	owned := func(secret string, keys ...string) []model.AWSOwned {
		return []model.AWSOwned{{Secret: secret, Keys: keys}}
	}
	where := diag.Subject{Setting: "scopes.one.replica-regions", Origin: diag.OriginFile}
	for name, c := range map[string]struct {
		engine  config.Engine
		region  string
		subject diag.Subject
		want    []string
	}{
		"fits":                              {engine: config.Engine{Adopt: []string{"p/db"}, AWSOwned: owned("db", "/password"), Replicas: replicas("eu-west-1")}, region: "us-east-1"},
		"adopt names no document":           {engine: config.Engine{Adopt: []string{"p/db", "p/gone"}}, want: []string{diag.ConfigAdoptNotDesired}},
		"aws-owned matches no document":     {engine: config.Engine{AWSOwned: owned("gone", "/password")}, want: []string{diag.ConfigAWSOwned}},
		"aws-owned key of a whole value":    {engine: config.Engine{AWSOwned: owned("cert", "/password")}, want: []string{diag.ConfigAWSOwned}},
		"replica in the scope's Region":     {engine: config.Engine{Replicas: replicas("eu-west-1")}, region: "eu-west-1", subject: where, want: []string{diag.ConfigReplicaRegion}},
		"replica in another partition":      {engine: config.Engine{Replicas: replicas("cn-north-1")}, region: "eu-west-1", want: []string{diag.ConfigReplicaRegion}},
		"Region unknown: replicas unjudged": {engine: config.Engine{Replicas: replicas("eu-west-1")}},
		"all three, in order": {engine: config.Engine{Adopt: []string{"p/gone"}, AWSOwned: owned("gone", "/k"), Replicas: replicas("us-east-1")}, region: "us-east-1",
			want: []string{diag.ConfigAdoptNotDesired, diag.ConfigAWSOwned, diag.ConfigReplicaRegion}},
	} {
		ds := BeforeAWS(Config{Engine: c.engine, ReplicasSetting: c.subject}, outline, c.region)
		var got []string
		for _, d := range ds {
			got = append(got, d.Class)
			if d.Class == diag.ConfigReplicaRegion {
				want := c.subject
				if want.Setting == "" {
					want = diag.Subject{Setting: config.ReplicaRegions}
				}
				if d.Subject != want {
					t.Errorf("%s: subject %+v, want %+v", name, d.Subject, want)
				}
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: classes %v, want %v", name, got, c.want)
		}
	}
}
