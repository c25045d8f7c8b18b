package emulator

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// FuzzServeAPI feeds arbitrary bodies to every operation (and to an unknown
// one) on one long-lived emulator. The emulator must never panic, must
// answer 200, 400 or 500 with a JSON object body (an error body carries
// __type and Message), and its state must stay well-formed. Seed corpus:
// testdata/fuzz/FuzzServeAPI.
func FuzzServeAPI(f *testing.F) {
	ops := Operations()
	slices.Sort(ops)
	ops = append(ops, "RotateSecret")
	f.Add(uint8(0), []byte(`{"Name":"a","SecretString":"v"}`))
	// Replication: create with replicas, replicate, remove (indices into
	// the sorted operations: see ops).
	for i, op := range ops {
		switch op {
		case "CreateSecret":
			f.Add(uint8(i), []byte(`{"Name":"r","SecretString":"v","AddReplicaRegions":[{"Region":"eu-west-1"},{"Region":"eu-west-2","KmsKeyId":"alias/fuzz"}]}`))
		case "ReplicateSecretToRegions":
			f.Add(uint8(i), []byte(`{"SecretId":"a","AddReplicaRegions":[{"Region":"eu-west-1"}],"ForceOverwriteReplicaSecret":true}`))
		case "RemoveRegionsFromReplication":
			f.Add(uint8(i), []byte(`{"SecretId":"r","RemoveReplicaRegions":["eu-west-1"]}`))
		}
	}
	// A customer key with an alias, so KmsKeyId seeds reach the valid paths
	// (testdata/fuzz/FuzzServeAPI/kms-*), and a fault on the alias's key,
	// so that writes and reads under it take the failure paths too.
	e := New(WithKMSKeys(KMSKey{KeyID: "1234abcd-12ab-34cd-56ef-1234567890ab", Aliases: []string{"alias/fuzz"}},
		KMSKey{KeyID: "mrk-0123456789abcdef0123456789abcdef"}))
	if err := e.SetFaults(Faults{KMSKeyFaults: []KMSKeyFault{{Key: "mrk-0123456789abcdef0123456789abcdef", State: KMSDisabled}},
		ReplicationLagMS: 1, ReplicaFailures: []ReplicaFailure{{Region: "eu-west-2"}}}); err != nil {
		f.Fatal(err)
	}
	calls := 0
	f.Fuzz(func(t *testing.T, opIdx uint8, body []byte) {
		if len(body) > 16<<10 {
			return // size limits have unit tests; large inputs only slow minimisation
		}
		calls++
		if calls%500 == 0 {
			e.Reset()
		}
		op := ops[int(opIdx)%len(ops)]
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set("X-Amz-Target", "secretsmanager."+op)
		req.Header.Set("Content-Type", core.AmzJSON)
		if opIdx >= 128 { // signed for a replica Region: reads and refused writes there
			req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAFUZZEXAMPLE00001/20260101/eu-west-1/secretsmanager/aws4_request, SignedHeaders=host, Signature=00")
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		switch rec.Code {
		case 200, 400, 500:
		default:
			t.Fatalf("%s %q: status %d", op, body, rec.Code)
		}
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatalf("%s %q: body %q is not a JSON object", op, body, rec.Body.Bytes())
		}
		if rec.Code != 200 {
			if _, ok := m["__type"].(string); !ok {
				t.Fatalf("%s: error body without __type: %s", op, rec.Body.Bytes())
			}
			if _, ok := m["Message"].(string); !ok {
				t.Fatalf("%s: error body without Message: %s", op, rec.Body.Bytes())
			}
		}
		checkWellFormed(t, e)
	})
}

// checkWellFormed asserts the store's invariants: names unique among live
// secrets of one account and Region, every label on a known version, no
// label on two versions except AWSCURRENT put there by Conditions (never by
// the API), every version encrypted under at least one KMS key and no key
// listed twice; a replica's primary exists in its PrimaryRegion and lists
// it, and an InSync replica exists.
func checkWellFormed(t *testing.T, e *Emulator) {
	t.Helper()
	names := map[string]SecretDump{}
	st := e.State()
	for _, s := range st.Secrets {
		k := s.Account + "/" + s.Region + "/" + s.Name
		if _, dup := names[k]; dup {
			t.Fatalf("duplicate live name %q", k)
		}
		names[k] = s
	}
	for _, s := range st.Secrets {
		if s.Replica {
			p, ok := names[s.Account+"/"+s.PrimaryRegion+"/"+s.Name]
			if !ok || p.Replica || !slices.Contains(p.ReplicaRegions, s.Region) || s.PrimaryRegion == s.Region {
				t.Fatalf("replica %s/%s/%s has no primary listing it", s.Account, s.Region, s.Name)
			}
		}
		for _, rs := range s.ReplicationStatus {
			if r, ok := names[s.Account+"/"+rs.Region+"/"+s.Name]; rs.Status == "InSync" && (!ok || !r.Replica) {
				t.Fatalf("%s: InSync replica in %s missing", s.Name, rs.Region)
			}
		}
		seen := map[string]string{}
		for _, v := range s.Versions {
			if (v.SecretString == nil) == (v.SecretBinary == nil) {
				t.Fatalf("%s/%s holds both or neither of string and binary", s.Name, v.VersionID)
			}
			if len(v.KmsKeyIDs) == 0 || len(slices.Compact(slices.Sorted(slices.Values(v.KmsKeyIDs)))) != len(v.KmsKeyIDs) {
				t.Fatalf("%s/%s KMS keys %v: none, or one twice", s.Name, v.VersionID, v.KmsKeyIDs)
			}
			for _, l := range v.Stages {
				if other, dup := seen[l]; dup {
					t.Fatalf("label %s on %s and %s", l, other, v.VersionID)
				}
				seen[l] = v.VersionID
			}
		}
	}
}

// FuzzControl feeds arbitrary bodies to the control endpoints (faults,
// conditions, clock, KMS keys and aliases): never a panic, only 200 or 400,
// always a JSON body.
func FuzzControl(f *testing.F) {
	paths := []struct{ method, path string }{
		{http.MethodPut, "/_emulator/faults"},
		{http.MethodPost, "/_emulator/conditions"},
		{http.MethodPost, "/_emulator/clock"},
		{http.MethodPost, "/_emulator/kms/keys"},
		{http.MethodPost, "/_emulator/kms/aliases"},
		{http.MethodPut, "/_emulator/iam"},
	}
	f.Add(uint8(0), []byte(`{"seed":1,"error_rate":0.5}`))
	e := New()
	e.SetClock(func() (t0 timeT) { return fixedTime })
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		p := paths[int(which)%len(paths)]
		req := httptest.NewRequest(p.method, p.path, bytes.NewReader(body))
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code != 200 && rec.Code != 400 {
			t.Fatalf("%s %q: status %d", p.path, body, rec.Code)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s: invalid JSON answer %q", p.path, rec.Body.Bytes())
		}
		_ = e.SetFaults(Faults{}) // keep faults off between inputs
	})
}

// FuzzServeSTS feeds arbitrary form bodies to the emulator's STS (every
// served action and an unknown one), signed with a mapped key, an unmapped
// key, an issued session's key, or not at all. The emulator must never
// panic, must answer 200, 400 or 403 with an XML document (an error is an
// ErrorResponse with a Code), and a success must be the action's response.
func FuzzServeSTS(f *testing.F) {
	actions := []string{"AssumeRole", "AssumeRoleWithWebIdentity", "GetCallerIdentity", "GetSessionToken"}
	f.Add(uint8(0), uint8(0), "RoleArn=arn:aws:iam::111111111111:role/r&RoleSessionName=s1")
	f.Add(uint8(0), uint8(2), "RoleArn=arn:aws:iam::111111111111:role/r&RoleSessionName=s1&DurationSeconds=3601")
	f.Add(uint8(1), uint8(3), "RoleArn=arn:aws:iam::222222222222:role/r&RoleSessionName=s1&WebIdentityToken=eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJyZXBvOmEvYjpyZWY6bWFpbiJ9.c2ln")
	f.Add(uint8(2), uint8(1), "")
	e := New(WithIAM(IAM{
		AccessKeys: map[string]string{"AKIAFUZZEXAMPLE00001": "111111111111"},
		Roles: []Role{{ARN: "arn:aws:iam::111111111111:role/r", Trust: []string{"111111111111", "arn:aws:iam::222222222222:role/r"}, WebIdentitySubjects: []string{"repo:a/b:*"}},
			{ARN: "arn:aws:iam::333333333333:role/denied", Deny: true}},
	}))
	f.Fuzz(func(t *testing.T, actionIdx, who uint8, form string) {
		if len(form) > 16<<10 {
			return
		}
		action := actions[int(actionIdx)%len(actions)]
		body := "Action=" + action + "&Version=2011-06-15&" + form
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
		key := ""
		switch who % 4 {
		case 0:
			key = "AKIAFUZZEXAMPLE00001"
		case 1:
			key = "AKIAUNMAPPEDFUZZ0001"
		case 2:
			ss := e.Sessions().Sessions
			if len(ss) > 0 {
				key = ss[len(ss)-1].AccessKeyID
			}
		}
		if key != "" {
			req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+key+"/20260101/us-east-1/sts/aws4_request, SignedHeaders=host, Signature=00")
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		switch rec.Code {
		case 200, 400, 403:
		default:
			t.Fatalf("%s %q: status %d", action, form, rec.Code)
		}
		var doc struct {
			XMLName xml.Name
			Error   struct{ Code string }
		}
		if err := xml.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			t.Fatalf("%s %q: body %q is not XML", action, form, rec.Body.Bytes())
		}
		if rec.Code == 200 && doc.XMLName.Local != action+"Response" {
			t.Fatalf("%s: success body %s", action, rec.Body.Bytes())
		}
		if rec.Code != 200 && (doc.XMLName.Local != "ErrorResponse" || doc.Error.Code == "") {
			t.Fatalf("%s: error body %s", action, rec.Body.Bytes())
		}
	})
}

// FuzzServeOrganizations feeds arbitrary bodies (NextTokens, ids, tags,
// names) to every Organizations operation of an emulator whose default
// account manages an organization: never a panic, only 200, 400 or 500,
// always a JSON object (an error one with __type and Message), and the
// organization stays well formed (every account and OU under a unit that
// exists, OU names unique under one parent, at most five OU levels).
func FuzzServeOrganizations(f *testing.F) {
	ops := OrganizationsOperations()
	for i, op := range ops {
		switch op {
		case "CreateOrganizationalUnit":
			f.Add(uint8(i), []byte(`{"ParentId":"r-aaaa","Name":"x","Tags":[{"Key":"k","Value":"v"}]}`))
		case "ListAccounts":
			f.Add(uint8(i), []byte(`{"MaxResults":1,"NextToken":"TGlzdEFjY291bnRzAAAx"}`))
		case "CreateAccount":
			f.Add(uint8(i), []byte(`{"AccountName":"a","Email":"a@example.com","Tags":[{"Key":"k","Value":"v"}]}`))
		case "TagResource":
			f.Add(uint8(i), []byte(`{"ResourceId":"123456789012","Tags":[{"Key":"k","Value":"v"}]}`))
		case "MoveAccount":
			f.Add(uint8(i), []byte(`{"AccountId":"123456789012","SourceParentId":"r-aaaa","DestinationParentId":"ou-aaaa-aaaaaaaa"}`))
		}
	}
	e := New()
	create := func() {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{}`))
		req.Header.Set("X-Amz-Target", "AWSOrganizationsV20161128.CreateOrganization")
		e.ServeHTTP(httptest.NewRecorder(), req)
	}
	create()
	calls := 0
	f.Fuzz(func(t *testing.T, opIdx uint8, body []byte) {
		if len(body) > 16<<10 {
			return
		}
		calls++
		if calls%500 == 0 {
			e.Reset()
			create()
		}
		op := ops[int(opIdx)%len(ops)]
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set("X-Amz-Target", "AWSOrganizationsV20161128."+op)
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		switch rec.Code {
		case 200, 400, 500:
		default:
			t.Fatalf("%s %q: status %d", op, body, rec.Code)
		}
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatalf("%s %q: body %q is not a JSON object", op, body, rec.Body.Bytes())
		}
		if rec.Code != 200 {
			if _, ok := m["__type"].(string); !ok {
				t.Fatalf("%s: error body without __type: %s", op, rec.Body.Bytes())
			}
		}
		for _, o := range e.Organizations().Organizations {
			units := map[string]OrgUnitDump{o.Root.ID: o.Root}
			for _, u := range o.Units {
				units[u.ID] = u
			}
			seen := map[string]bool{}
			for _, u := range o.Units {
				if _, ok := units[u.Parent]; !ok || seen[u.Parent+"/"+u.Name] || strings.Count(u.Path, "/") >= 5 {
					t.Fatalf("OU %+v: missing parent, duplicate name or too deep", u)
				}
				seen[u.Parent+"/"+u.Name] = true
			}
			for _, a := range o.Accounts {
				if _, ok := units[a.Parent]; !ok {
					t.Fatalf("account %s under a missing parent %s", a.ID, a.Parent)
				}
			}
		}
	})
}
