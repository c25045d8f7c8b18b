package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
)

// The GitLab CI/CD component (templates/sops-aws-sync, docs/gitlab-ci.md):
// its YAML checked for the structure GitLab requires, and its job script
// (the exact text the template embeds) run under sh and bash with GitLab's
// predefined variables, against the real CLI, the emulator's Secrets
// Manager and STS (AssumeRoleWithWebIdentity), and a loopback stand-in of
// GitLab's merge request notes API.

var updateGitLabTemplate = flag.Bool("update-gitlab-template", false, "rewrite the script embedded in templates/sops-aws-sync/template.yml from sops-aws-sync.sh")

const (
	glTemplateDir  = "templates/sops-aws-sync"
	glScriptOpen   = "      cat >\"$sops_aws_sync_script\" <<'SOPS_AWS_SYNC_GITLAB_SCRIPT'\n"
	glScriptClose  = "      SOPS_AWS_SYNC_GITLAB_SCRIPT\n"
	glProjectPath  = "e2e-group/e2e-project"
	glProjectID    = "4242"
	glMRIID        = "7"
	glBotUserID    = 990001
	glOtherUserID  = 12
	glPlanRole     = "arn:aws:iam::" + emulator.DefaultAccountID + ":role/gitlab-plan"
	glSyncRole     = "arn:aws:iam::" + emulator.DefaultAccountID + ":role/gitlab-sync"
	glSubMain      = "project_path:" + glProjectPath + ":ref_type:branch:ref:main"
	glSubFeature   = "project_path:" + glProjectPath + ":ref_type:branch:ref:feature"
	glRegion       = "us-east-1"
	glInputPattern = `\$\[\[\s*inputs\.([A-Za-z0-9_-]+)\s*\]\]`
)

var glInputRE = regexp.MustCompile(glInputPattern)

// glFile reads a file of the component directory.
func glFile(t *testing.T, name string) string {
	t.Helper()
	root, err := moduleRoot()
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(root, glTemplateDir, name))
	require.NoError(t, err)
	return string(b)
}

// embedScript is the template with the script block between its heredoc
// lines replaced by script, each line indented for the YAML block.
func embedScript(t *testing.T, template, script string) string {
	t.Helper()
	i := strings.Index(template, glScriptOpen)
	j := strings.Index(template, glScriptClose)
	require.True(t, i >= 0 && j > i, "the template has no embedded script between its heredoc lines")
	var b strings.Builder
	for _, line := range strings.SplitAfter(script, "\n") {
		if line == "" {
			continue
		}
		if line != "\n" {
			b.WriteString("      ")
		}
		b.WriteString(line)
	}
	return template[:i+len(glScriptOpen)] + b.String() + template[j:]
}

// TestGitLab_TemplateEmbedsTheScriptVerbatim: the job script in the
// template is sops-aws-sync.sh byte for byte (the tests below run the
// template's own text, so this ties the file reviewers read to it).
func TestGitLab_TemplateEmbedsTheScriptVerbatim(t *testing.T) {
	tmpl, script := glFile(t, "template.yml"), glFile(t, "sops-aws-sync.sh")
	want := embedScript(t, tmpl, script)
	if *updateGitLabTemplate {
		root, _ := moduleRoot()
		require.NoError(t, os.WriteFile(filepath.Join(root, glTemplateDir, "template.yml"), []byte(want), 0o644))
		return
	}
	require.Equal(t, want, tmpl, "template.yml does not embed sops-aws-sync.sh verbatim: run go test ./test/e2e -run %s -update-gitlab-template", t.Name())
	// And what the job runs, once YAML has stripped the indentation, is it.
	_, body := glParse(t, tmpl)
	block := glScriptBlock(t, glMap(t, body[".$[[ inputs.name ]]-job"], "the hidden job"))
	open := strings.TrimPrefix(glScriptOpen, "      ")
	i := strings.Index(block, open)
	j := strings.Index(block, strings.TrimPrefix(glScriptClose, "      "))
	require.True(t, i >= 0 && j > i)
	assert.Equal(t, script, block[i+len(open):j])
}

// glParse splits the component file into its spec header and its body,
// each decoded with yaml.v3 (two documents, as GitLab requires).
func glParse(t *testing.T, text string) (header, body map[string]any) {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(text))
	var docs []map[string]any
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		docs = append(docs, d)
	}
	require.Len(t, docs, 2, "a component file is the spec header, ---, then the configuration")
	return docs[0], docs[1]
}

func glMap(t *testing.T, v any, what string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	require.True(t, ok, "%s is not a mapping: %#v", what, v)
	return m
}

// glInputs are the declared inputs of the header.
func glInputs(t *testing.T, header map[string]any) map[string]map[string]any {
	t.Helper()
	spec := glMap(t, header["spec"], "spec")
	require.Len(t, spec, 1, "spec holds inputs only")
	out := map[string]map[string]any{}
	for name, v := range glMap(t, spec["inputs"], "spec:inputs") {
		out[name] = glMap(t, v, "input "+name)
	}
	return out
}

// glScriptBlock is the hidden job's one script entry.
func glScriptBlock(t *testing.T, job map[string]any) string {
	t.Helper()
	script, ok := job["script"].([]any)
	require.True(t, ok && len(script) == 1, "one script entry")
	s, ok := script[0].(string)
	require.True(t, ok)
	return s
}

// GitLab's rule for a resource group key (Ci::ResourceGroup: letters,
// digits, - _ / $ { } . and spaces, not starting or ending with /).
var glResourceGroupKey = regexp.MustCompile(`^[A-Za-z0-9_.${} /-]+$`)

// TestGitLab_TemplateStructure checks the component file for what GitLab
// requires of it and what the docs promise: typed inputs with valid
// defaults, every $[[ inputs.X ]] declared and every input used, the plan
// job on merge request pipelines only with drift (exit 2) alone allowed to
// fail, the sync job on the default branch only behind a resource group
// whose key GitLab accepts, the OIDC token's audience, and the script.
func TestGitLab_TemplateStructure(t *testing.T) {
	text := glFile(t, "template.yml")
	header, body := glParse(t, text)
	inputs := glInputs(t, header)

	// Typed inputs, defaults of their type matching their regex.
	for name, in := range inputs {
		for k := range in {
			assert.Contains(t, []string{"type", "default", "description", "regex", "options"}, k, "input %s: key %s", name, k)
		}
		assert.NotEmpty(t, in["description"], "input %s has no description", name)
		typ, _ := in["type"].(string)
		if typ == "" {
			typ = "string"
		}
		require.Contains(t, []string{"string", "number", "boolean", "array"}, typ, "input %s", name)
		def, has := in["default"]
		if has {
			switch typ {
			case "string":
				assert.IsType(t, "", def, "input %s default", name)
			case "boolean":
				assert.IsType(t, false, def, "input %s default", name)
			}
		}
		if re, ok := in["regex"].(string); ok {
			assert.Equal(t, "string", typ, "input %s: regex applies to strings only", name)
			rx, err := regexp.Compile(re)
			require.NoError(t, err, "input %s regex", name)
			if s, ok := def.(string); ok {
				assert.True(t, rx.MatchString(s), "input %s: its default %q fails its own regex", name, s)
			}
		}
	}
	for _, required := range []string{"image", "aws-region"} {
		_, has := inputs[required]["default"]
		assert.False(t, has, "input %s must be required (no default)", required)
	}

	// Every input used is declared, every declared input is used.
	bodyText := text[strings.Index(text, "\n---\n"):]
	used := map[string]bool{}
	for _, m := range glInputRE.FindAllStringSubmatch(bodyText, -1) {
		used[m[1]] = true
		assert.Contains(t, inputs, m[1], "$[[ inputs.%s ]] is not declared", m[1])
	}
	for name := range inputs {
		assert.True(t, used[name], "input %s is declared but never used", name)
	}
	assert.NotContains(t, glInputRE.ReplaceAllString(bodyText, ""), "$[[", "an interpolation that is not $[[ inputs.NAME ]]")

	hidden := glMap(t, body[".$[[ inputs.name ]]-job"], "hidden job")
	plan := glMap(t, body["$[[ inputs.name ]]-plan"], "plan job")
	syncJob := glMap(t, body["$[[ inputs.name ]]-sync"], "sync job")
	drift := glMap(t, body["$[[ inputs.name ]]-drift"], "drift job")
	assert.Len(t, body, 4, "the component adds exactly the hidden job, plan, sync and drift")

	// Stages: inputs whose defaults are stages every pipeline has.
	assert.Equal(t, "$[[ inputs.stage ]]", plan["stage"])
	assert.Equal(t, "$[[ inputs.sync-stage ]]", syncJob["stage"])
	assert.Equal(t, "test", inputs["stage"]["default"])
	assert.Equal(t, "deploy", inputs["sync-stage"]["default"])

	// Rules.
	for job, want := range map[string]string{
		"plan":  `$CI_PIPELINE_SOURCE == "merge_request_event"`,
		"sync":  `$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH && $CI_PIPELINE_SOURCE != "merge_request_event" && $CI_PIPELINE_SOURCE != "schedule"`,
		"drift": `$CI_PIPELINE_SOURCE == "schedule" && $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH`,
	} {
		j := map[string]map[string]any{"plan": plan, "sync": syncJob, "drift": drift}[job]
		rules, ok := j["rules"].([]any)
		require.True(t, ok && len(rules) == 1, "%s: one rule", job)
		assert.Equal(t, map[string]any{"if": want}, rules[0], "%s rule", job)
		assert.Equal(t, ".$[[ inputs.name ]]-job", j["extends"], "%s extends the hidden job", job)
	}
	assert.Equal(t, map[string]any{"mode": "plan"}, map[string]any{"mode": glMap(t, plan["variables"], "plan variables")["GL_SOPS_AWS_SYNC_MODE"]})
	assert.Equal(t, "sync", glMap(t, syncJob["variables"], "sync variables")["GL_SOPS_AWS_SYNC_MODE"])
	assert.Equal(t, "drift", glMap(t, drift["variables"], "drift variables")["GL_SOPS_AWS_SYNC_MODE"])
	assert.Equal(t, "$[[ inputs.stage ]]", drift["stage"])
	assert.Equal(t, map[string]any{"exit_codes": []any{2}}, drift["allow_failure"], "drift is a warning on the schedule")
	assert.Equal(t, true, drift["interruptible"])
	assert.Nil(t, drift["resource_group"], "a drift check writes nothing to AWS")

	// Drift alone may fail the plan job; a sync is never interrupted.
	assert.Equal(t, map[string]any{"exit_codes": []any{2}}, plan["allow_failure"])
	assert.Nil(t, syncJob["allow_failure"], "a failed sync fails the pipeline")
	assert.Equal(t, true, plan["interruptible"])
	assert.Equal(t, false, syncJob["interruptible"])

	// The one-writer lock: per Region and lock name, a key GitLab accepts
	// for every value the inputs' regexes admit.
	rg, _ := syncJob["resource_group"].(string)
	assert.Contains(t, rg, "$[[ inputs.aws-region ]]")
	assert.Nil(t, plan["resource_group"], "plan writes nothing and takes no lock")
	for _, region := range []string{"eu-west-1", "us-gov-west-1", "ap-southeast-2"} {
		for _, lock := range []string{"default", "prod.payments_v2", "A-1"} {
			key := strings.NewReplacer("$[[ inputs.aws-region ]]", region, "$[[ inputs.resource-group ]]", lock).Replace(rg)
			assert.Regexp(t, glResourceGroupKey, key)
			assert.False(t, strings.HasPrefix(key, "/") || strings.HasSuffix(key, "/"), key)
			assert.True(t, regexp.MustCompile(inputs["aws-region"]["regex"].(string)).MatchString(region))
			assert.True(t, regexp.MustCompile(inputs["resource-group"]["regex"].(string)).MatchString(lock))
		}
	}

	// OIDC: one ID token for AWS STS.
	assert.Equal(t, map[string]any{"GL_SOPS_AWS_SYNC_ID_TOKEN": map[string]any{"aud": "sts.amazonaws.com"}}, hidden["id_tokens"])
	assert.Equal(t, "$[[ inputs.image ]]", hidden["image"])

	// Artifacts: the output directory, developers only, kept on failure.
	arts := glMap(t, hidden["artifacts"], "artifacts")
	assert.Equal(t, "always", arts["when"])
	assert.Equal(t, "developer", arts["access"])
	assert.Equal(t, []any{".sops-aws-sync/$[[ inputs.name ]]/"}, arts["paths"])
	vars := glMap(t, hidden["variables"], "variables")
	assert.Equal(t, "$CI_PROJECT_DIR/.sops-aws-sync/$[[ inputs.name ]]", vars["GL_SOPS_AWS_SYNC_OUT"])
	for k := range vars {
		// The CLI refuses an unknown SOPS_AWS_SYNC_* variable (config:unknown-env).
		assert.False(t, strings.HasPrefix(k, "SOPS_AWS_SYNC_"), "variable %s would reach the CLI as a setting", k)
		assert.True(t, strings.HasPrefix(k, "GL_SOPS_AWS_SYNC_"), k)
	}

	// The script: the embedded file, run by sh in a file of its own.
	block := glScriptBlock(t, hidden)
	assert.True(t, strings.HasPrefix(block, "sops_aws_sync_script=$(mktemp)\n"), block[:80])
	assert.True(t, strings.HasSuffix(block, "SOPS_AWS_SYNC_GITLAB_SCRIPT\nsh \"$sops_aws_sync_script\"\n"))
	for _, k := range []string{"script", "before_script", "after_script"} {
		assert.Nil(t, plan[k], "plan job overrides %s", k)
		assert.Nil(t, syncJob[k], "sync job overrides %s", k)
	}
}

// glStandIn is a loopback stand-in of the GitLab REST API calls the
// script makes: GET /user, and list, create and edit the notes of one
// merge request (paginated with X-Next-Page), recording every request.
type glStandIn struct {
	srv    *httptest.Server
	token  string
	mu     sync.Mutex
	notes  []glNote
	issues []glIssue
	// mergedBy: the merge request (iid) merged as a commit (its SHA);
	// artifacts: a plan job's artifact file by "iid job path".
	mergedBy  map[string]string
	artifacts map[string][]byte
	next      int
	reqs      []glRequest
}

// glIssue is an issue of the project as the stand-in keeps it.
type glIssue struct {
	IID         int      `json:"iid"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	State       string   `json:"state"`
	Labels      []string `json:"labels"`
	Author      struct {
		ID int `json:"id"`
	} `json:"author"`
}

type glNote struct {
	ID     int    `json:"id"`
	Body   string `json:"body"`
	System bool   `json:"system"`
	Author struct {
		ID       int    `json:"id"`
		Username string `json:"username"`
	} `json:"author"`
}

type glRequest struct {
	Method, Path, Query, Body string
	Authorized                bool
}

func newGitLabStandIn(t *testing.T, token string) *glStandIn {
	g := &glStandIn{token: token, next: 1000}
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.srv.Close)
	return g
}

func (g *glStandIn) api() string { return g.srv.URL + "/api/v4" }

func (g *glStandIn) addNote(author int, body string, system bool) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.next++
	n := glNote{ID: g.next, Body: body, System: system}
	n.Author.ID = author
	n.Author.Username = "user" + strconv.Itoa(author)
	g.notes = append(g.notes, n)
	return n.ID
}

func (g *glStandIn) requests() []glRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.reqs)
}

func (g *glStandIn) note(id int) *glNote {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := range g.notes {
		if g.notes[i].ID == id {
			n := g.notes[i]
			return &n
		}
	}
	return nil
}

func (g *glStandIn) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	g.mu.Lock()
	defer g.mu.Unlock()
	ok := r.Header.Get("PRIVATE-TOKEN") == g.token
	g.reqs = append(g.reqs, glRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: string(body), Authorized: ok})
	if !ok {
		http.Error(w, `{"message":"401 Unauthorized"}`, http.StatusUnauthorized)
		return
	}
	notes := "/api/v4/projects/" + glProjectID + "/merge_requests/" + glMRIID + "/notes"
	writeJSON := func(code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v4/user":
		writeJSON(200, map[string]any{"id": glBotUserID, "username": "project_" + glProjectID + "_bot"})
	case r.Method == http.MethodGet && r.URL.Path == notes:
		per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if per <= 0 || per > 100 {
			per = 20
		}
		if page <= 0 {
			page = 1
		}
		sorted := slices.Clone(g.notes)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
		lo, hi := min((page-1)*per, len(sorted)), min(page*per, len(sorted))
		if hi < len(sorted) {
			w.Header().Set("X-Next-Page", strconv.Itoa(page+1))
		} else {
			w.Header().Set("X-Next-Page", "")
		}
		writeJSON(200, append([]glNote{}, sorted[lo:hi]...))
	case r.Method == http.MethodPost && r.URL.Path == notes:
		var req struct {
			Body string `json:"body"`
		}
		if json.Unmarshal(body, &req) != nil || req.Body == "" {
			writeJSON(400, map[string]any{"message": "body is missing"})
			return
		}
		g.next++
		n := glNote{ID: g.next, Body: req.Body}
		n.Author.ID = glBotUserID
		g.notes = append(g.notes, n)
		writeJSON(201, n)
	case r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, notes+"/"):
		id, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, notes+"/"))
		var req struct {
			Body string `json:"body"`
		}
		if json.Unmarshal(body, &req) != nil || req.Body == "" {
			writeJSON(400, map[string]any{"message": "body is missing"})
			return
		}
		for i := range g.notes {
			if g.notes[i].ID == id {
				if g.notes[i].Author.ID != glBotUserID {
					writeJSON(403, map[string]any{"message": "403 Forbidden"})
					return
				}
				g.notes[i].Body = req.Body
				writeJSON(200, g.notes[i])
				return
			}
		}
		writeJSON(404, map[string]any{"message": "404 Not found"})
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/v4/projects/"+glProjectID+"/repository/commits/") &&
		strings.HasSuffix(r.URL.Path, "/merge_requests"):
		sha := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/api/v4/projects/"+glProjectID+"/repository/commits/"), "/merge_requests")
		out := []map[string]any{}
		if iid, ok := g.mergedBy[sha]; ok {
			n, _ := strconv.Atoi(iid)
			out = append(out, map[string]any{"iid": n, "state": "merged"})
		}
		writeJSON(200, out)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.EscapedPath(), "/api/v4/projects/"+glProjectID+"/jobs/artifacts/refs%2Fmerge-requests%2F"):
		rest := strings.TrimPrefix(r.URL.EscapedPath(), "/api/v4/projects/"+glProjectID+"/jobs/artifacts/refs%2Fmerge-requests%2F")
		iid, path, ok := strings.Cut(rest, "%2Fhead/raw/")
		b, found := g.artifacts[iid+" "+r.URL.Query().Get("job")+" "+path]
		if !ok || !found {
			writeJSON(404, map[string]any{"message": "404 Not found"})
			return
		}
		w.WriteHeader(200)
		_, _ = w.Write(b)
	case strings.HasPrefix(r.URL.Path, "/api/v4/projects/"+glProjectID+"/issues"):
		g.serveIssues(w, r, body, writeJSON)
	default:
		writeJSON(404, map[string]any{"message": "404 Not found"})
	}
}

// serveIssues: list (state and labels filters, one page), create, edit
// (description) and close (state_event) the project's issues, the token's
// user as the author of what it creates.
func (g *glStandIn) serveIssues(w http.ResponseWriter, r *http.Request, body []byte, writeJSON func(int, any)) {
	base := "/api/v4/projects/" + glProjectID + "/issues"
	switch {
	case r.Method == http.MethodGet && r.URL.Path == base:
		q := r.URL.Query()
		out := []glIssue{}
		for _, is := range g.issues {
			if (q.Get("state") == "opened" && is.State != "opened") || (q.Get("labels") != "" && !slices.Contains(is.Labels, q.Get("labels"))) {
				continue
			}
			out = append(out, is)
		}
		w.Header().Set("X-Next-Page", "")
		writeJSON(200, out)
	case r.Method == http.MethodPost && r.URL.Path == base:
		var req struct {
			Title, Description, Labels string
		}
		if json.Unmarshal(body, &req) != nil || req.Title == "" {
			writeJSON(400, map[string]any{"message": "title is missing"})
			return
		}
		is := glIssue{IID: len(g.issues) + 1, Title: req.Title, Description: req.Description, State: "opened", Labels: strings.Split(req.Labels, ",")}
		is.Author.ID = glBotUserID
		g.issues = append(g.issues, is)
		writeJSON(201, is)
	case r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, base+"/"):
		iid, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, base+"/"))
		var req struct {
			Description *string `json:"description"`
			StateEvent  string  `json:"state_event"`
		}
		if json.Unmarshal(body, &req) != nil {
			writeJSON(400, map[string]any{"message": "not JSON"})
			return
		}
		for i := range g.issues {
			if g.issues[i].IID == iid {
				if req.Description != nil {
					g.issues[i].Description = *req.Description
				}
				if req.StateEvent == "close" {
					g.issues[i].State = "closed"
				}
				writeJSON(200, g.issues[i])
				return
			}
		}
		writeJSON(404, map[string]any{"message": "404 Not found"})
	default:
		writeJSON(404, map[string]any{"message": "404 Not found"})
	}
}

// glJWT is an unsigned-looking GitLab ID token for sub: the emulator's
// STS reads sub and exp, never the signature.
func glJWT(sub, sig string) string {
	enc := base64.RawURLEncoding.EncodeToString
	claims, _ := json.Marshal(map[string]any{
		"iss": "https://gitlab.example", "aud": "sts.amazonaws.com", "sub": sub,
		"project_path": glProjectPath, "exp": 4102444800, "iat": 1700000000,
	})
	return enc([]byte(`{"alg":"RS256","typ":"JWT","kid":"e2e"}`)) + "." + enc(claims) + "." + sig
}

// glPipeline is one GitLab pipeline that runs a job of the component.
type glPipeline struct {
	Job        string // "plan" or "sync"
	Event      string // CI_PIPELINE_SOURCE
	Branch     string // CI_COMMIT_BRANCH (branch pipelines)
	SHA        string
	Sub        string // the ID token's subject
	Fork       bool   // a merge request from a fork
	BaseSHA    string // CI_MERGE_REQUEST_DIFF_BASE_SHA
	Shell      string // "sh" or "bash"
	PipelineID string
	JobID      string
	Inputs     map[string]string
	Env        []string // more variables of the job (a project's CI/CD variables)
}

// glRun is what a job left: its exit code, its log, its artifacts.
type glRun struct {
	Code           int
	Stdout, Stderr string
	Out            string // the artifacts directory
	Report         *report.Report
	RawReport      []byte
	PlanMD         string
}

// glHarness is one GitLab project: the fixture's repository, the
// emulator with the plan and sync roles trusting its ID tokens, and the
// notes API stand-in.
type glHarness struct {
	t          *testing.T
	f          *fixture
	e          *emu
	gl         *glStandIn
	noteToken  string
	tokenSig   string
	ciDir      string
	envDir     string // the environments the CLI ran with (cliEnvs)
	defaultsIn map[string]string
}

func newGitLabHarness(t *testing.T) *glHarness {
	t.Helper()
	need(t)
	glTools(t)
	return newGitLabHarnessOn(t, newFixture(t), startEmulator(t))
}

// glTools skips the test (fails it in CI) when the job's image tools are
// missing here.
func glTools(t *testing.T) {
	t.Helper()
	// What the job's image has (docs/gitlab-ci.md): a shell of each kind
	// the runner may pick, and curl, jq, sha256sum for the note.
	for _, tool := range []string{"sh", "bash", "curl", "jq", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			require.NotEqual(t, "true", os.Getenv("CI"), "%s not found on PATH (.ci/run installs it)", tool)
			t.Skipf("%s not found on PATH", tool)
		}
	}
}

// newGitLabHarnessOn is the GitLab project over fixture f's repository
// and emulator e (shared with other runs of the test): its plan and sync
// roles, a notes API stand-in of its own.
func newGitLabHarnessOn(t *testing.T, f *fixture, e *emu) *glHarness {
	t.Helper()
	e.ctl.SetIAM(emulator.IAM{
		Roles: []emulator.Role{
			{ARN: glPlanRole, WebIdentitySubjects: []string{"project_path:" + glProjectPath + ":ref_type:branch:ref:*"}},
			{ARN: glSyncRole, WebIdentitySubjects: []string{glSubMain}},
		},
		RequireRoles: true,
	})
	h := &glHarness{
		t: t, f: f, e: e,
		noteToken: "glpat-CANARYnote" + token(8),
		tokenSig:  "CANARYsig" + token(12),
		ciDir:     t.TempDir(),
	}
	h.gl = newGitLabStandIn(t, h.noteToken)
	// The job's CLI: a wrapper that records the environment each run of
	// the real binary gets, then execs it.
	h.envDir = t.TempDir()
	wrapper := filepath.Join(h.ciDir, "sops-aws-sync")
	require.NoError(t, os.WriteFile(wrapper, []byte("#!/bin/sh\nenv >\""+h.envDir+"/env.$$\"\nexec "+cliBin+" \"$@\"\n"), 0o700))
	h.defaultsIn = map[string]string{
		"image":              "registry.example/sops-aws-sync@sha256:" + strings.Repeat("0", 64),
		"aws-region":         glRegion,
		"oidc-role-arn":      glSyncRole,
		"oidc-plan-role-arn": glPlanRole,
		"secret-prefix":      f.Prefix,
		"repository-id":      f.RepoID,
		"cli":                filepath.Join(h.ciDir, "sops-aws-sync"),
	}
	return h
}

// interpolate resolves the component for inputs as GitLab does at
// pipeline creation: each $[[ inputs.X ]] becomes the given value or the
// input's default; a required input left out fails the test.
func glInterpolate(t *testing.T, text string, given map[string]string) string {
	t.Helper()
	header, _ := glParse(t, text)
	inputs := glInputs(t, header)
	for k := range given {
		require.Contains(t, inputs, k, "input %s is not declared", k)
	}
	return glInputRE.ReplaceAllStringFunc(text, func(m string) string {
		name := glInputRE.FindStringSubmatch(m)[1]
		if v, ok := given[name]; ok {
			if re, ok := inputs[name]["regex"].(string); ok {
				require.Regexp(t, re, v, "input %s", name)
			}
			return v
		}
		def, ok := inputs[name]["default"]
		require.True(t, ok, "required input %s not given", name)
		return fmt.Sprint(def)
	})
}

// run runs the component's job for p: the interpolated template's job
// variables (GitLab expands $VARS in them) plus GitLab's predefined
// variables, then the job's script entry under p.Shell, as a runner does.
func (h *glHarness) run(p glPipeline) glRun {
	t := h.t
	t.Helper()
	in := map[string]string{}
	for k, v := range h.defaultsIn {
		in[k] = v
	}
	for k, v := range p.Inputs {
		in[k] = v
	}
	_, body := glParse(t, glInterpolate(t, glFile(t, "template.yml"), in))
	name := in["name"]
	if name == "" {
		name = "sops-aws-sync"
	}
	hidden := glMap(t, body["."+name+"-job"], "hidden job")
	job := glMap(t, body[name+"-"+p.Job], p.Job+" job")
	predefined := map[string]string{
		"CI": "true", "GITLAB_CI": "true",
		"CI_PROJECT_DIR": h.f.Repo, "CI_PROJECT_ID": glProjectID, "CI_PROJECT_PATH": glProjectPath,
		"CI_COMMIT_SHA": p.SHA, "CI_PIPELINE_SOURCE": p.Event, "CI_DEFAULT_BRANCH": "main",
		"CI_PIPELINE_ID": p.PipelineID, "CI_JOB_ID": p.JobID, "CI_API_V4_URL": h.gl.api(),
	}
	if p.Branch != "" {
		predefined["CI_COMMIT_BRANCH"] = p.Branch
	}
	if p.Event == "merge_request_event" {
		predefined["CI_MERGE_REQUEST_IID"] = glMRIID
		predefined["CI_MERGE_REQUEST_PROJECT_ID"] = glProjectID
		predefined["CI_MERGE_REQUEST_SOURCE_PROJECT_ID"] = glProjectID
		if p.Fork {
			predefined["CI_MERGE_REQUEST_SOURCE_PROJECT_ID"] = "9999"
		}
		predefined["CI_MERGE_REQUEST_DIFF_BASE_SHA"] = p.BaseSHA
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + h.f.Home, "GIT_CONFIG_NOSYSTEM=1", "TMPDIR=" + h.ciDir,
		// A project CI/CD variable: the SOPS key (masked, protected).
		"SOPS_AGE_KEY_FILE=" + h.f.KeyFile,
		// The emulator as AWS; no static credentials anywhere: the SDK's
		// default chain must take the web identity.
		"AWS_ENDPOINT_URL_SECRETS_MANAGER=" + h.e.URL, "AWS_ENDPOINT_URL_STS=" + h.e.URL,
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE=" + filepath.Join(h.ciDir, "no-aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(h.ciDir, "no-aws-credentials"),
	}
	for k, v := range predefined {
		env = append(env, k+"="+v)
	}
	// Job variables: the hidden job's, then the job's own (extends merges
	// them); GitLab expands $VAR references in their values.
	vars := map[string]string{}
	for _, src := range []any{hidden["variables"], job["variables"]} {
		for k, v := range glMap(t, src, "variables") {
			vars[k] = os.Expand(fmt.Sprint(v), func(n string) string { return predefined[n] })
		}
	}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	if p.Sub != "" {
		for name := range glMap(t, hidden["id_tokens"], "id_tokens") {
			env = append(env, name+"="+glJWT(p.Sub, h.tokenSig))
		}
	}
	env = append(env, "GL_SOPS_AWS_SYNC_NOTE_TOKEN="+h.noteToken)
	env = append(env, p.Env...)

	block := glScriptBlock(t, hidden)
	shell := []string{"sh", "-e", "-c", block}
	if p.Shell == "bash" {
		shell = []string{"bash", "-e", "-o", "pipefail", "-c", block}
	}
	cmd := exec.Command(shell[0], shell[1:]...)
	cmd.Dir = h.f.Repo
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := glRun{Stdout: stdout.String(), Stderr: stderr.String(), Out: vars["GL_SOPS_AWS_SYNC_OUT"]}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.Code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	if b, err := os.ReadFile(filepath.Join(r.Out, "report.json")); err == nil {
		r.RawReport = b
		rep, perr := report.Parse(b)
		require.NoError(t, perr, "report is not schema-exact")
		r.Report = &rep
	}
	if b, err := os.ReadFile(filepath.Join(r.Out, "plan.md")); err == nil {
		r.PlanMD = string(b)
	}
	h.scan(r)
	return r
}

// cliEnvs are the environments of the CLI's runs so far, one map each.
func (h *glHarness) cliEnvs() []map[string]string {
	files, err := filepath.Glob(filepath.Join(h.envDir, "env.*"))
	require.NoError(h.t, err)
	var out []map[string]string
	for _, p := range files {
		b, err := os.ReadFile(p)
		require.NoError(h.t, err)
		m := map[string]string{}
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				m[k] = v
			}
		}
		out = append(out, m)
	}
	return out
}

// scan fails the test when a canary is in the job's log, its artifacts,
// or anything sent to the GitLab API: plaintext values, the age key, the
// ID token's signature, the note token, secret names and the prefix (no
// run here shows names), version ids, ARNs.
func (h *glHarness) scan(r glRun) {
	t := h.t
	t.Helper()
	canaries := append([]string{h.f.private, h.f.recip, "CANARY", "AGE-SECRET-KEY", "ENC[", h.noteToken, h.tokenSig, h.f.Prefix}, h.f.Values...)
	canaries = append(canaries, h.f.Names...)
	for _, s := range h.e.state().Secrets {
		canaries = append(canaries, s.ARN)
		for _, v := range s.Versions {
			canaries = append(canaries, v.VersionID)
		}
	}
	texts := map[string]string{"job log (stdout)": r.Stdout, "job log (stderr)": r.Stderr, "report": string(r.RawReport), "plan.md": r.PlanMD}
	if b, err := os.ReadFile(filepath.Join(r.Out, "plan.json")); err == nil {
		texts["plan.json"] = string(b)
	}
	for i, req := range h.gl.requests() {
		texts[fmt.Sprintf("GitLab request %d", i)] = req.Method + " " + req.Path + "?" + req.Query + "\n" + req.Body
	}
	for where, text := range texts {
		for _, c := range canaries {
			if c != "" {
				require.NotContains(t, text, c, "canary in the %s", where)
			}
		}
	}
	// No token reaches the CLI's environment (the script removes both first).
	for _, env := range h.cliEnvs() {
		for k, v := range env {
			assert.NotContains(t, v, h.noteToken, "the note token in the CLI's %s", k)
			assert.NotContains(t, v, h.tokenSig, "the ID token in the CLI's %s", k)
		}
	}
	// The log holds the CLI's JSON records and the script's own lines, nothing else.
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		if line == "" || strings.HasPrefix(line, "sops-aws-sync-gitlab: ") {
			continue
		}
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), "a log line that is neither a record nor the script's: %q", line)
	}
	assert.Empty(t, r.Stderr, "the job wrote to stderr")
	// The ID token file and the script file are gone.
	left, _ := filepath.Glob(filepath.Join(h.ciDir, "tmp.*", "web-identity-token"))
	assert.Empty(t, left, "the ID token was left on disk")
}

var glMarkerRE = regexp.MustCompile(`^<!-- sops-aws-sync:plan:[0-9a-f]{16} -->\n`)

// TestGitLab_MergeRequestPlanNoteThenDefaultBranchSync is the component
// end to end: a merge request pipeline's plan job (under sh) assumes the
// plan role with its ID token, exits 2 (drift) and creates one note whose
// body is the marker and the CLI's Markdown; its re-run (under bash) edits
// that note, found past a first page of other users' notes, and leaves
// another user's note with the same marker alone; then the default
// branch's sync job assumes the sync role, converges, and the emulator
// holds every document's value (read back with the SDK), the STS session
// named after the pipeline and job.
func TestGitLab_MergeRequestPlanNoteThenDefaultBranchSync(t *testing.T) {
	h := newGitLabHarness(t)
	docs := h.f.standardDocs()
	sha := h.f.git("rev-parse", "HEAD")
	// A later commit on the branch: the job runs the pipeline's commit, not HEAD.
	h.f.addDoc("later", ".sops.json", `{"k": "CANARY-later-`+token(4)+`"}`)
	h.f.commit("later")

	// 1. The merge request pipeline: plan, drift, one new note.
	r := h.run(glPipeline{Job: "plan", Event: "merge_request_event", SHA: sha, Sub: glSubFeature, Shell: "sh", PipelineID: "501", JobID: "9001"})
	require.Equal(t, 2, r.Code, "stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	require.NotNil(t, r.Report)
	assert.Equal(t, "drift", string(r.Report.Status))
	assert.Equal(t, sha, r.Report.GitRevision, "the exact commit reached the CLI")
	assert.Contains(t, r.Stdout, "sops-aws-sync-gitlab: sops-aws-sync plan detected drift (exit 2)")
	assert.Contains(t, r.Stdout, "sops-aws-sync-gitlab: plan note created on merge request !"+glMRIID)
	assert.Zero(t, h.e.mutatingCalls(), "a plan writes nothing")
	reqs := h.gl.requests()
	var posts []glRequest
	for _, q := range reqs {
		assert.True(t, q.Authorized, "%s %s without the token", q.Method, q.Path)
		if q.Method == http.MethodPost {
			posts = append(posts, q)
		}
	}
	require.Len(t, posts, 1, "one note created")
	var sent struct {
		Body string `json:"body"`
	}
	require.NoError(t, json.Unmarshal([]byte(posts[0].Body), &sent))
	marker := glMarkerRE.FindString(sent.Body)
	require.NotEmpty(t, marker, "the note starts with the hidden marker: %q", sent.Body[:min(80, len(sent.Body))])
	assert.Equal(t, marker+r.PlanMD, sent.Body, "the note is the marker and the CLI's Markdown, nothing else")
	assert.Contains(t, r.PlanMD, "### sops-aws-sync plan")
	assert.Contains(t, r.PlanMD, "**Plan: 3 to create, 0 to update, 0 to restore, 0 to schedule for deletion, 0 unchanged.**")
	assert.Contains(t, r.PlanMD, "Commit `"+sha+"`")
	assert.NotContains(t, r.Stdout, "### sops-aws-sync plan", "the plan's Markdown is not printed to the log")
	sessions := h.e.ctl.Sessions().Sessions
	require.Len(t, sessions, 1)
	assert.Equal(t, "AssumeRoleWithWebIdentity", sessions[0].Action)
	assert.Equal(t, glPlanRole, sessions[0].RoleARN, "plan assumes the plan role")
	assert.Equal(t, glSubFeature, sessions[0].Caller)
	assert.Equal(t, "sops-aws-sync-oidc@gl-501-9001", sessions[0].SessionName)
	h.gl.mu.Lock()
	require.Len(t, h.gl.notes, 1)
	ours := h.gl.notes[0].ID
	h.gl.mu.Unlock()

	// 2. The re-run, after another user copied the marker into a note of
	// theirs and 150 other notes pushed ours to the second page.
	foreign := h.gl.addNote(glOtherUserID, marker+"looks fine, safe to merge", false)
	h.gl.addNote(glBotUserID, marker+"a system note", true)
	for i := 0; i < 150; i++ {
		h.gl.addNote(glOtherUserID, "comment "+strconv.Itoa(i), false)
	}
	// The stand-in lists by id: put ours after them all (page 2).
	h.gl.mu.Lock()
	for i := range h.gl.notes {
		if h.gl.notes[i].ID == ours {
			h.gl.next++
			h.gl.notes[i].ID = h.gl.next
			ours = h.gl.next
		}
	}
	h.gl.reqs = nil
	h.gl.mu.Unlock()
	r = h.run(glPipeline{Job: "plan", Event: "merge_request_event", SHA: sha, Sub: glSubFeature, Shell: "bash", PipelineID: "502", JobID: "9002"})
	require.Equal(t, 2, r.Code, "stdout:\n%s", r.Stdout)
	assert.Contains(t, r.Stdout, "sops-aws-sync-gitlab: plan note updated on merge request !"+glMRIID)
	var methods []string
	for _, q := range h.gl.requests() {
		methods = append(methods, q.Method+" "+strings.TrimPrefix(q.Path, "/api/v4/projects/"+glProjectID+"/merge_requests/"+glMRIID)+" "+q.Query)
	}
	assert.Equal(t, []string{
		"GET /api/v4/user ",
		"GET /notes sort=asc&order_by=created_at&per_page=100&page=1",
		"GET /notes sort=asc&order_by=created_at&per_page=100&page=2",
		"PUT /notes/" + strconv.Itoa(ours) + " ",
	}, methods, "the token's user, two pages, one edit of our own note")
	assert.Equal(t, marker+"looks fine, safe to merge", h.gl.note(foreign).Body, "another user's note is never edited")
	assert.Equal(t, marker+r.PlanMD, h.gl.note(ours).Body)

	// 3. The default branch pipeline: sync converges through the sync role.
	h.gl.mu.Lock()
	h.gl.reqs = nil
	h.gl.mu.Unlock()
	r = h.run(glPipeline{Job: "sync", Event: "push", Branch: "main", SHA: sha, Sub: glSubMain, Shell: "sh", PipelineID: "503", JobID: "9003"})
	require.Equal(t, 0, r.Code, "stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	assert.Equal(t, "converged", string(r.Report.Status))
	assert.Equal(t, 3, r.Report.Counts.Create)
	for _, q := range h.gl.requests() {
		assert.Equal(t, http.MethodGet, q.Method, "a sync posts no note: %s %s", q.Method, q.Path)
	}
	sm := h.e.sdk()
	for _, d := range docs {
		out, err := sm.GetSecretValue(context.Background(), &secretsmanager.GetSecretValueInput{SecretId: aws.String(d.Name)})
		require.NoError(t, err, "the synced secret is readable")
		assert.Contains(t, aws.ToString(out.SecretString), canaryIn(d.Plain))
	}
	sessions = h.e.ctl.Sessions().Sessions
	require.Len(t, sessions, 3, "one session per job")
	assert.Equal(t, glSyncRole, sessions[2].RoleARN, "sync assumes the sync role")
	assert.Equal(t, glSubMain, sessions[2].Caller)
	assert.Equal(t, "sops-aws-sync-oidc@gl-503-9003", sessions[2].SessionName)
	for _, ua := range h.e.ctl.UserAgents().UserAgents {
		if ua.Operation == "CreateSecret" {
			assert.Contains(t, strings.Fields(ua.UserAgent), "app/sops-aws-sync-gl-503-9003")
		}
	}
}

// TestGitLab_ConflictFailsTheJobWithExit4: a secret of a document's name
// that another owner made is a conflict: the plan job exits 4 (its
// allow_failure admits 2 only, so the job fails), says so with the
// recovery guide's anchor, and still posts the plan (which shows the
// conflict) as the note; the sync job exits 4 too and writes nothing.
func TestGitLab_ConflictFailsTheJobWithExit4(t *testing.T) {
	h := newGitLabHarness(t)
	docs := h.f.standardDocs()
	sha := h.f.git("rev-parse", "HEAD")
	_, err := h.e.sdk().CreateSecret(context.Background(), &secretsmanager.CreateSecretInput{
		Name: aws.String(docs[0].Name), SecretString: aws.String(`{"made":"by hand"}`),
	})
	require.NoError(t, err)
	before := h.e.mutatingCalls()

	r := h.run(glPipeline{Job: "plan", Event: "merge_request_event", SHA: sha, Sub: glSubFeature, Shell: "bash", PipelineID: "601", JobID: "9101"})
	require.Equal(t, 4, r.Code, "stdout:\n%s", r.Stdout)
	assert.Equal(t, "conflict", string(r.Report.Status))
	assert.Contains(t, r.Stdout, "sops-aws-sync-gitlab: sops-aws-sync found an ownership or observed-state conflict (exit 4): docs/recovery.md#exit-4--conflict")
	assert.Contains(t, r.Stdout, `"conflict_class":"ownership"`)
	assert.Contains(t, r.Stdout, "plan note created")
	_, body := glParse(t, glFile(t, "template.yml"))
	codes := glMap(t, glMap(t, body["$[[ inputs.name ]]-plan"], "plan")["allow_failure"], "allow_failure")["exit_codes"]
	assert.NotContains(t, codes, 4, "exit 4 fails the job")

	r = h.run(glPipeline{Job: "sync", Event: "push", Branch: "main", SHA: sha, Sub: glSubMain, Shell: "sh", PipelineID: "602", JobID: "9102"})
	require.Equal(t, 4, r.Code, "stdout:\n%s", r.Stdout)
	assert.Equal(t, before, h.e.mutatingCalls(), "a conflict writes nothing")
	assert.Contains(t, r.Stdout, "(exit 4): docs/recovery.md#exit-4--conflict")
}

// TestGitLab_ForkMergeRequestComputesNoPlan: a merge request from a fork
// runs validate --no-decrypt with nothing of the job's environment: no
// AWS call, no STS session, no note; one that changes a file under the
// source root fails (exit 1), one that changes none passes unless the
// source root is the whole repository. The sync job
// refuses a merge request pipeline whatever its rules say.
func TestGitLab_ForkMergeRequestComputesNoPlan(t *testing.T) {
	h := newGitLabHarness(t)
	h.f.standardDocs()
	base := h.f.git("rev-parse", "HEAD")
	require.NoError(t, os.WriteFile(filepath.Join(h.f.Repo, "README.md"), []byte("docs\n"), 0o600))
	docsOnly := h.f.commit("docs only")
	h.f.addDoc("forked", ".sops.json", `{"k": "CANARY-fork-`+token(4)+`"}`)
	h.f.Values = append(h.f.Values, "CANARY-fork")
	secretsChange := h.f.commit("a fork's secret")

	r := h.run(glPipeline{Job: "plan", Event: "merge_request_event", SHA: docsOnly, BaseSHA: base, Fork: true, Sub: glSubFeature, Shell: "sh", PipelineID: "701", JobID: "9201"})
	require.Equal(t, 0, r.Code, "stdout:\n%s", r.Stdout)
	assert.Contains(t, r.Stdout, "no plan is computed")
	assert.Contains(t, r.Stdout, "changes no file the scopes read")

	// With the whole repository as source root, any file is a document's.
	r = h.run(glPipeline{Job: "plan", Event: "merge_request_event", SHA: docsOnly, BaseSHA: base, Fork: true, Sub: glSubFeature, Shell: "sh", PipelineID: "704", JobID: "9204",
		Inputs: map[string]string{"source-root": "."}})
	require.Equal(t, 1, r.Code, "stdout:\n%s", r.Stdout)
	assert.Contains(t, r.Stdout, "changes secrets")

	r = h.run(glPipeline{Job: "plan", Event: "merge_request_event", SHA: secretsChange, BaseSHA: base, Fork: true, Sub: glSubFeature, Shell: "bash", PipelineID: "702", JobID: "9202"})
	require.Equal(t, 1, r.Code, "stdout:\n%s", r.Stdout)
	assert.Contains(t, r.Stdout, "sops-aws-sync computed no plan for a merge request that changes secrets; a maintainer must plan it from a branch")

	r = h.run(glPipeline{Job: "sync", Event: "merge_request_event", SHA: secretsChange, BaseSHA: base, Sub: glSubMain, Shell: "sh", PipelineID: "703", JobID: "9203"})
	require.Equal(t, 1, r.Code)
	assert.Contains(t, r.Stdout, "sync never runs in a merge request pipeline")

	for op, n := range h.e.stats().Calls {
		assert.Zero(t, n, "no AWS call: %s", op)
	}
	assert.Empty(t, h.e.ctl.Sessions().Sessions, "no STS session")
	envs := h.cliEnvs()
	require.Len(t, envs, 3, "validate ran three times; the refused sync never ran the CLI")
	for _, env := range envs {
		for k := range env {
			assert.Contains(t, []string{"PATH", "HOME", "PWD"}, k, "a fork's validate gets nothing of the job's environment")
		}
	}
	assert.Empty(t, h.gl.requests(), "no note")
}

// TestGitLab_Regression_ForkEditOfTheConfigFileSpelledAnotherWay: a fork's
// merge request that changes only the config file is a change of what the
// scopes read, whatever spelling of that file the config-file input uses:
// git lists ci/sync.yaml, and the input may say ./ci/sync.yaml,
// ci//sync.yaml, ci/./sync.yaml or the absolute path in CI_PROJECT_DIR.
// The job compared the input with git's names as strings, so every
// spelling but git's own let the edit pass as "changes no file the scopes
// read" (exit 0). A merge request that leaves the file alone still passes
// under such a spelling.
func TestGitLab_Regression_ForkEditOfTheConfigFileSpelledAnotherWay(t *testing.T) {
	h := newGitLabHarness(t)
	h.f.standardDocs()
	config := filepath.Join(h.f.Repo, "ci", "sync.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(config), 0o700))
	require.NoError(t, os.WriteFile(config, []byte("max-deletions: 3\n"), 0o600))
	base := h.f.commit("a config file")
	require.NoError(t, os.WriteFile(filepath.Join(h.f.Repo, "README.md"), []byte("docs\n"), 0o600))
	docsOnly := h.f.commit("docs only")
	require.NoError(t, os.WriteFile(config, []byte("max-deletions: 1000\n"), 0o600))
	configEdit := h.f.commit("a fork's config edit")
	require.Equal(t, "ci/sync.yaml", h.f.git("diff", "--no-renames", "--name-only", docsOnly, configEdit))

	for i, spelling := range []string{"ci/sync.yaml", "./ci/sync.yaml", "ci//sync.yaml", "ci/./sync.yaml", h.f.Repo + "/./ci/sync.yaml"} {
		in := map[string]string{"config-file": spelling}
		r := h.run(glPipeline{Job: "plan", Event: "merge_request_event", SHA: configEdit, BaseSHA: docsOnly, Fork: true, Sub: glSubFeature, Shell: "sh",
			PipelineID: fmt.Sprint(710 + i), JobID: fmt.Sprint(9210 + i), Inputs: in})
		assert.Equal(t, 1, r.Code, "config-file %q: stdout:\n%s", spelling, r.Stdout)
		assert.Contains(t, r.Stdout, "sops-aws-sync computed no plan for a merge request that changes secrets", "config-file %q", spelling)

		r = h.run(glPipeline{Job: "plan", Event: "merge_request_event", SHA: docsOnly, BaseSHA: base, Fork: true, Sub: glSubFeature, Shell: "bash",
			PipelineID: fmt.Sprint(720 + i), JobID: fmt.Sprint(9220 + i), Inputs: in})
		assert.Equal(t, 0, r.Code, "config-file %q, the file unchanged: stdout:\n%s", spelling, r.Stdout)
		assert.Contains(t, r.Stdout, "changes no file the scopes read", "config-file %q", spelling)
	}
	for op, n := range h.e.stats().Calls {
		assert.Zero(t, n, "no AWS call: %s", op)
	}
	assert.Empty(t, h.gl.requests(), "no note")
}
