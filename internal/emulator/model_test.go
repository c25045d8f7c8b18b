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
// the one AWS gives in that state.

type mSecret struct {
	pending                   bool
	current, previous, staged string            // values under AWSCURRENT, AWSPREVIOUS, AWSPENDING ("" = none)
	versions                  map[string]string // token → value
	tags                      map[string]string
}

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
		e := emulator.New()
		m := model{}
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
		moveCurrent := func(s *mSecret, value string) {
			if s.current != "" {
				s.previous = s.current
			}
			s.current = value
		}
		rt.Repeat(map[string]func(*rapid.T){
			"create": func(rt *rapid.T) {
				name, tk := names.Draw(rt, "name"), tok(tokens.Draw(rt, "tok"))
				withValue := rapid.Bool().Draw(rt, "withValue")
				value := values.Draw(rt, "value")
				body := map[string]any{"Name": name, "ClientRequestToken": tk}
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
				default:
					expect(rt, "create", code, typ, "")
					ns := &mSecret{versions: map[string]string{}, tags: map[string]string{}}
					if withValue {
						ns.versions[tk] = value
						ns.current = value
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
					expect(rt, "put", code, typ, want)
					if created {
						first := len(s.versions) == 0
						s.versions[tk] = value
						if pending {
							s.staged = value
							if first {
								s.current = value
							}
						} else {
							moveCurrent(s, value)
						}
					}
				}
			},
			"update": func(rt *rapid.T) {
				name, tk, value := names.Draw(rt, "name"), tok(tokens.Draw(rt, "tok")), values.Draw(rt, "value")
				code, typ := do(e, "UpdateSecret", map[string]any{"SecretId": name, "ClientRequestToken": tk, "SecretString": value})
				s := m[name]
				switch {
				case s == nil:
					expect(rt, "update", code, typ, "ResourceNotFoundException")
				case s.pending:
					expect(rt, "update", code, typ, "InvalidRequestException")
				default:
					want, created := replay(s, tk, value)
					expect(rt, "update", code, typ, want)
					if created {
						s.versions[tk] = value
						moveCurrent(s, value)
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
							got[l] = *v.SecretString
						}
					}
					if got["AWSCURRENT"] != s.current || got["AWSPREVIOUS"] != s.previous || got["AWSPENDING"] != s.staged {
						rt.Fatalf("%s labels %v, model current %q previous %q pending %q", sd.Name, got, s.current, s.previous, s.staged)
					}
					if len(sd.Versions) != len(s.versions) {
						rt.Fatalf("%s: %d versions, model %d", sd.Name, len(sd.Versions), len(s.versions))
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
