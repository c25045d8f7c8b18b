package emulator_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// A model-based property test: random sequences of valid and conflicting
// calls (tokens and values drawn from small sets so that replays, conflicts,
// deletions and restores collide often) must leave the emulator in the state
// a small reference model predicts, and every answer's error code must be
// the one AWS gives in that state. KMS keys (issue 14): secrets name one of
// two customer keys or the default one, keys become unusable at random, and
// UpdateSecret re-encrypts the labelled versions when the key changes.

type mSecret struct {
	pending                   bool
	current, previous, staged string              // tokens under AWSCURRENT, AWSPREVIOUS, AWSPENDING ("" = none)
	versions                  map[string]string   // token → value
	keys                      map[string][]string // token → model keys that can decrypt it ("D", "A", "B"), oldest first
	key                       string              // the secret's model key
	tags                      map[string]string
}

// Model KMS keys: D is aws/secretsmanager, A and B customer keys; refs are
// the KmsKeyId values the test sends ("" means D, alias/missing is unknown).
var (
	mKeyIDs  = map[string]string{"D": "DefaultEncryptionKey", "A": "1234abcd-12ab-34cd-56ef-1234567890ab", "B": "0987dcba-09fe-87dc-65ba-ab0987654321"}
	mKeyRefs = map[string]string{"": "D", "alias/aws/secretsmanager": "D", "1234abcd-12ab-34cd-56ef-1234567890ab": "A", "alias/b": "B", "alias/missing": ""}
	mRefs    = []string{"", "alias/aws/secretsmanager", "1234abcd-12ab-34cd-56ef-1234567890ab", "alias/b", "alias/missing"}
)

type model map[string]*mSecret

func do(e *emulator.Emulator, op string, body any) (int, string) {
	b, _ := json.Marshal(body)
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(b))
	req.Header.Set("X-Amz-Target", "secretsmanager."+op)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	var m struct {
		Type string `json:"__type"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &m)
	return rec.Code, m.Type
}

func tok(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

func TestModel_RandomCallSequencesMatchReferenceModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		e := emulator.New(emulator.WithKMSKeys(
			emulator.KMSKey{KeyID: mKeyIDs["A"]},
			emulator.KMSKey{KeyID: mKeyIDs["B"], Aliases: []string{"alias/b"}}))
		m := model{}
		kmsState := map[string]string{} // model key → "", disabled or access-denied
		refs := rapid.SampledFrom(mRefs)
		// kmsErr is the error code for a key in state st ("" when usable).
		kmsErr := func(k string, encrypt bool) string {
			switch kmsState[k] {
			case emulator.KMSAccessDenied:
				return "AccessDeniedException"
			case emulator.KMSDisabled:
				if encrypt {
					return "EncryptionFailure"
				}
				return "DecryptionFailure"
			}
			return ""
		}
		decryptErr := func(ks []string) string {
			last := ""
			for _, k := range ks {
				if last = kmsErr(k, false); last == "" {
					return ""
				}
			}
			return last
		}
		names := rapid.SampledFrom([]string{"a", "b/c", "d"})
		values := rapid.SampledFrom([]string{"x", "y", "z"})
		tokens := rapid.IntRange(1, 6)
		expect := func(rt *rapid.T, op string, code int, typ, want string) {
			if want == "" && code != 200 || want != "" && typ != want {
				rt.Fatalf("%s: got %d %s, want %q", op, code, typ, want)
			}
		}
		// replay applies a versioned write of value under token; it returns
		// the expected error code ("" for success) and whether a new version
		// is created.
		replay := func(s *mSecret, token, value string) (string, bool) {
			if old, ok := s.versions[token]; ok {
				if old == value {
					return "", false
				}
				return "ResourceExistsException", false
			}
			return "", true
		}
		moveCurrent := func(s *mSecret, tok string) {
			if s.current != "" {
				s.previous = s.current
			}
			s.current = tok
		}
		addVersion := func(s *mSecret, tok, value string) {
			s.versions[tok] = value
			s.keys[tok] = []string{s.key}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"create": func(rt *rapid.T) {
				name, tk := names.Draw(rt, "name"), tok(tokens.Draw(rt, "tok"))
				withValue := rapid.Bool().Draw(rt, "withValue")
				value := values.Draw(rt, "value")
				ref := refs.Draw(rt, "kmsKeyId")
				body := map[string]any{"Name": name, "ClientRequestToken": tk, "KmsKeyId": ref}
				if withValue {
					body["SecretString"] = value
				}
				code, typ := do(e, "CreateSecret", body)
				s := m[name]
				switch {
				case s != nil && s.pending:
					expect(rt, "create", code, typ, "InvalidRequestException")
				case s != nil:
					want := "ResourceExistsException"
					if old, ok := s.versions[tk]; ok && withValue && old == value {
						want = ""
					}
					expect(rt, "create", code, typ, want)
				case mKeyRefs[ref] == "":
					expect(rt, "create", code, typ, "InvalidParameterException")
				case withValue && kmsErr(mKeyRefs[ref], true) != "":
					expect(rt, "create", code, typ, kmsErr(mKeyRefs[ref], true))
				default:
					expect(rt, "create", code, typ, "")
					ns := &mSecret{versions: map[string]string{}, keys: map[string][]string{}, tags: map[string]string{}, key: mKeyRefs[ref]}
					if withValue {
						addVersion(ns, tk, value)
						ns.current = tk
					}
					m[name] = ns
				}
			},
			"put": func(rt *rapid.T) {
				name, tk, value := names.Draw(rt, "name"), tok(tokens.Draw(rt, "tok")), values.Draw(rt, "value")
				pending := rapid.Bool().Draw(rt, "AWSPENDING")
				body := map[string]any{"SecretId": name, "ClientRequestToken": tk, "SecretString": value}
				if pending {
					body["VersionStages"] = []string{"AWSPENDING"}
				}
				code, typ := do(e, "PutSecretValue", body)
				s := m[name]
				switch {
				case s == nil:
					expect(rt, "put", code, typ, "ResourceNotFoundException")
				case s.pending:
					expect(rt, "put", code, typ, "InvalidRequestException")
				default:
					want, created := replay(s, tk, value)
					if created && kmsErr(s.key, true) != "" {
						want, created = kmsErr(s.key, true), false
					}
					expect(rt, "put", code, typ, want)
					if created {
						first := len(s.versions) == 0
						addVersion(s, tk, value)
						if pending {
							s.staged = tk
							if first {
								s.current = tk
							}
						} else {
							moveCurrent(s, tk)
						}
					}
				}
			},
			"update": func(rt *rapid.T) {
				name, tk, value := names.Draw(rt, "name"), tok(tokens.Draw(rt, "tok")), values.Draw(rt, "value")
				withValue, withKey := rapid.Bool().Draw(rt, "withValue"), rapid.Bool().Draw(rt, "withKey")
				ref := refs.Draw(rt, "kmsKeyId")
				body := map[string]any{"SecretId": name, "ClientRequestToken": tk, "Description": "d"}
				if withValue {
					body["SecretString"] = value
				}
				if withKey {
					body["KmsKeyId"] = ref
				}
				code, typ := do(e, "UpdateSecret", body)
				s := m[name]
				switch {
				case s == nil:
					expect(rt, "update", code, typ, "ResourceNotFoundException")
				case s.pending:
					expect(rt, "update", code, typ, "InvalidRequestException")
				case withKey && mKeyRefs[ref] == "":
					expect(rt, "update", code, typ, "InvalidParameterException")
				default:
					newKey := s.key
					if withKey {
						newKey = mKeyRefs[ref]
					}
					want, created := "", false
					if withValue {
						want, created = replay(s, tk, value)
						if created && kmsErr(newKey, true) != "" {
							want, created = kmsErr(newKey, true), false
						}
					}
					expect(rt, "update", code, typ, want)
					if want != "" {
						return
					}
					if newKey != s.key && kmsErr(newKey, true) == "" {
						for _, t := range []string{s.current, s.previous, s.staged} {
							if t != "" && decryptErr(s.keys[t]) == "" && !slices.Contains(s.keys[t], newKey) {
								s.keys[t] = append(s.keys[t], newKey)
							}
						}
					}
					s.key = newKey
					if created {
						addVersion(s, tk, value)
						moveCurrent(s, tk)
					}
				}
			},
			"delete": func(rt *rapid.T) {
				name := names.Draw(rt, "name")
				code, typ := do(e, "DeleteSecret", map[string]any{"SecretId": name, "RecoveryWindowInDays": 7})
				s := m[name]
				switch {
				case s == nil:
					expect(rt, "delete", code, typ, "ResourceNotFoundException")
				case s.pending:
					expect(rt, "delete", code, typ, "InvalidRequestException")
				default:
					expect(rt, "delete", code, typ, "")
					s.pending = true
				}
			},
			"forceDelete": func(rt *rapid.T) {
				name := names.Draw(rt, "name")
				code, typ := do(e, "DeleteSecret", map[string]any{"SecretId": name, "ForceDeleteWithoutRecovery": true})
				expect(rt, "forceDelete", code, typ, "")
				delete(m, name)
			},
			"restore": func(rt *rapid.T) {
				name := names.Draw(rt, "name")
				code, typ := do(e, "RestoreSecret", map[string]any{"SecretId": name})
				if s := m[name]; s == nil {
					expect(rt, "restore", code, typ, "ResourceNotFoundException")
				} else {
					expect(rt, "restore", code, typ, "")
					s.pending = false
				}
			},
			"tag": func(rt *rapid.T) {
				name, k, v := names.Draw(rt, "name"), rapid.SampledFrom([]string{"k1", "k2"}).Draw(rt, "key"), values.Draw(rt, "tagValue")
				untag := rapid.Bool().Draw(rt, "untag")
				var code int
				var typ string
				if untag {
					code, typ = do(e, "UntagResource", map[string]any{"SecretId": name, "TagKeys": []string{k}})
				} else {
					code, typ = do(e, "TagResource", map[string]any{"SecretId": name, "Tags": []map[string]string{{"Key": k, "Value": v}}})
				}
				s := m[name]
				switch {
				case s == nil:
					expect(rt, "tag", code, typ, "ResourceNotFoundException")
				case s.pending:
					expect(rt, "tag", code, typ, "InvalidRequestException")
				default:
					expect(rt, "tag", code, typ, "")
					if untag {
						delete(s.tags, k)
					} else {
						s.tags[k] = v
					}
				}
			},
			"get": func(rt *rapid.T) {
				name := names.Draw(rt, "name")
				stage := rapid.SampledFrom([]string{"AWSCURRENT", "AWSPREVIOUS", "AWSPENDING"}).Draw(rt, "stage")
				code, typ := do(e, "GetSecretValue", map[string]any{"SecretId": name, "VersionStage": stage})
				s := m[name]
				switch {
				case s == nil:
					expect(rt, "get", code, typ, "ResourceNotFoundException")
				case s.pending:
					expect(rt, "get", code, typ, "InvalidRequestException")
				default:
					t := map[string]string{"AWSCURRENT": s.current, "AWSPREVIOUS": s.previous, "AWSPENDING": s.staged}[stage]
					if t == "" {
						expect(rt, "get", code, typ, "ResourceNotFoundException")
					} else {
						expect(rt, "get", code, typ, decryptErr(s.keys[t]))
					}
				}
			},
			"kmsFault": func(rt *rapid.T) {
				var fs []emulator.KMSKeyFault
				for _, k := range []string{"D", "A", "B"} {
					kmsState[k] = rapid.SampledFrom([]string{"", "", emulator.KMSDisabled, emulator.KMSAccessDenied}).Draw(rt, "state"+k)
					if kmsState[k] != "" {
						ref := map[string]string{"D": "alias/aws/secretsmanager", "A": mKeyIDs["A"], "B": "alias/b"}[k]
						fs = append(fs, emulator.KMSKeyFault{Key: ref, State: kmsState[k]})
					}
				}
				if err := e.SetFaults(emulator.Faults{KMSKeyFaults: fs}); err != nil {
					rt.Fatal(err)
				}
			},
			"windowEnds": func(rt *rapid.T) {
				e.AdvanceClock(7 * 24 * time.Hour)
				for name, s := range m {
					if s.pending {
						delete(m, name)
					}
				}
			},
			"": func(rt *rapid.T) {
				st := e.State()
				if len(st.Secrets) != len(m) {
					rt.Fatalf("%d secrets, model has %d", len(st.Secrets), len(m))
				}
				for _, sd := range st.Secrets {
					s := m[sd.Name]
					if s == nil {
						rt.Fatalf("unexpected secret %s", sd.Name)
					}
					if (sd.DeletedDate != nil) != s.pending {
						rt.Fatalf("%s pending %v, model %v", sd.Name, sd.DeletedDate != nil, s.pending)
					}
					got := map[string]string{}
					seen := map[string]bool{}
					for _, v := range sd.Versions {
						for _, l := range v.Stages {
							if seen[l] {
								rt.Fatalf("%s: label %s on two versions", sd.Name, l)
							}
							seen[l] = true
							got[l] = v.VersionID
						}
						if *v.SecretString != s.versions[v.VersionID] {
							rt.Fatalf("%s/%s holds %q, model %q", sd.Name, v.VersionID, *v.SecretString, s.versions[v.VersionID])
						}
						var want []string
						for _, k := range s.keys[v.VersionID] {
							want = append(want, mKeyIDs[k])
						}
						if !slices.Equal(v.KmsKeyIDs, want) {
							rt.Fatalf("%s/%s keys %v, model %v", sd.Name, v.VersionID, v.KmsKeyIDs, want)
						}
					}
					if got["AWSCURRENT"] != s.current || got["AWSPREVIOUS"] != s.previous || got["AWSPENDING"] != s.staged {
						rt.Fatalf("%s labels %v, model current %q previous %q pending %q", sd.Name, got, s.current, s.previous, s.staged)
					}
					if len(sd.Versions) != len(s.versions) {
						rt.Fatalf("%s: %d versions, model %d", sd.Name, len(sd.Versions), len(s.versions))
					}
					wantRef := map[string]bool{"D": sd.KmsKeyID == "" || sd.KmsKeyID == "alias/aws/secretsmanager", "A": sd.KmsKeyID == mKeyIDs["A"], "B": sd.KmsKeyID == "alias/b"}
					if !wantRef[s.key] {
						rt.Fatalf("%s KmsKeyId %q, model key %s", sd.Name, sd.KmsKeyID, s.key)
					}
					keys := func(mm map[string]string) []string {
						var ks []string
						for k, v := range mm {
							ks = append(ks, k+"="+v)
						}
						slices.Sort(ks)
						return ks
					}
					if !slices.Equal(keys(sd.Tags), keys(s.tags)) {
						rt.Fatalf("%s tags %v, model %v", sd.Name, sd.Tags, s.tags)
					}
				}
			},
		})
	})
}
