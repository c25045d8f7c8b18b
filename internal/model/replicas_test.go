package model

import (
	"reflect"
	"testing"
)

func TestParseReplicaRegions(t *testing.T) {
	got, err := ParseReplicaRegions(" us-west-2 , eu-west-1=alias/dr,ap-south-1=arn:aws:kms:ap-south-1:111122223333:key/mrk-0123456789abcdef0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	want := []Replica{
		{Region: "ap-south-1", KMSKeyID: "arn:aws:kms:ap-south-1:111122223333:key/mrk-0123456789abcdef0123456789abcdef"},
		{Region: "eu-west-1", KMSKeyID: "alias/dr"}, {Region: "us-west-2"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v (sorted by Region)", got, want)
	}
	if rs, err := ParseReplicaRegions(""); err != nil || rs != nil {
		t.Fatalf("empty: %v %v", rs, err)
	}
	for _, bad := range []string{
		"eu-west-1,,us-west-2",    // empty entry
		"mars-north-1",            // not a Region
		"eu-west-1,eu-west-1",     // twice
		"eu-west-1,cn-north-1",    // two partitions
		"eu-west-1=alias/aws/ebs", // a key form KMS refuses here
		"eu-west-1=arn:aws:kms:us-east-1:111122223333:alias/dr",    // a key of another Region
		"eu-west-1=arn:aws-cn:kms:cn-north-1:111122223333:alias/x", // a key of another partition
		"eu-west-1=", // empty key
	} {
		if _, err := ParseReplicaRegions(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestCheckReplicaHome(t *testing.T) {
	rs := []Replica{{Region: "eu-west-1"}}
	if err := CheckReplicaHome("us-east-1", rs); err != nil {
		t.Fatal(err)
	}
	if err := CheckReplicaHome("", rs); err != nil {
		t.Fatal("an unknown own Region is not checked")
	}
	if CheckReplicaHome("eu-west-1", rs) == nil {
		t.Error("the scope's own Region accepted as a replica")
	}
	if CheckReplicaHome("cn-north-1", rs) == nil {
		t.Error("a replica in another partition accepted")
	}
}

// TestReplicaRegionsOf: the Regions in the replicas' order; none is nil.
func TestReplicaRegionsOf(t *testing.T) {
	got := ReplicaRegionsOf([]Replica{{Region: "us-west-2"}, {Region: "eu-west-1"}})
	if !reflect.DeepEqual(got, []string{"us-west-2", "eu-west-1"}) {
		t.Errorf("ReplicaRegionsOf = %v, want [us-west-2 eu-west-1]", got)
	}
	if got := ReplicaRegionsOf(nil); got != nil {
		t.Errorf("ReplicaRegionsOf(nil) = %v, want nil", got)
	}
}
