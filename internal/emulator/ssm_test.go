package emulator_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

// Conformance of the Parameter Store service (docs/emulator.md, "Parameter
// Store"): the real aws-sdk-go-v2 SSM client over loopback, on the same
// listener as Secrets Manager.

func startSSM(t *testing.T, opts ...emulator.Option) (*emulatortest.Server, *ssm.Client) {
	t.Helper()
	s := emulatortest.Start(t, opts...)
	return s, s.SSMClient(t, func(o *ssm.Options) { o.RetryMaxAttempts = 1 })
}

func putParam(c *ssm.Client, name, value string, mod ...func(*ssm.PutParameterInput)) (*ssm.PutParameterOutput, error) {
	in := &ssm.PutParameterInput{Name: aws.String(name), Value: aws.String(value), Type: types.ParameterTypeSecureString}
	for _, m := range mod {
		m(in)
	}
	return c.PutParameter(ctx, in)
}

func mustPut(t *testing.T, c *ssm.Client, name, value string, mod ...func(*ssm.PutParameterInput)) *ssm.PutParameterOutput {
	t.Helper()
	out, err := putParam(c, name, value, mod...)
	if err != nil {
		t.Fatalf("PutParameter %s: %v", name, err)
	}
	return out
}

func overwrite(in *ssm.PutParameterInput) { in.Overwrite = aws.Bool(true) }

func withTags(kv ...string) func(*ssm.PutParameterInput) {
	return func(in *ssm.PutParameterInput) {
		for i := 0; i+1 < len(kv); i += 2 {
			in.Tags = append(in.Tags, types.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
		}
	}
}

func tier(t types.ParameterTier) func(*ssm.PutParameterInput) {
	return func(in *ssm.PutParameterInput) { in.Tier = t }
}

func getValue(t *testing.T, c *ssm.Client, name string, decrypt bool) types.Parameter {
	t.Helper()
	out, err := c.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(name), WithDecryption: aws.Bool(decrypt)})
	if err != nil {
		t.Fatalf("GetParameter %s: %v", name, err)
	}
	return *out.Parameter
}

func TestSSM_PutGetOverwriteVersions(t *testing.T) {
	s, c := startSSM(t)
	out := mustPut(t, c, "/app/db", `{"password":"p1"}`, withTags("owner", "team-a"))
	if out.Version != 1 || out.Tier != types.ParameterTierStandard {
		t.Fatalf("create: version %d tier %s, want 1 Standard", out.Version, out.Tier)
	}
	p := getValue(t, c, "/app/db", false)
	if *p.Value == `{"password":"p1"}` || p.Type != types.ParameterTypeSecureString {
		t.Fatalf("a SecureString read without decryption must not show the value: %+v", p)
	}
	if p = getValue(t, c, "/app/db", true); *p.Value != `{"password":"p1"}` || p.Version != 1 ||
		*p.ARN != "arn:aws:ssm:us-east-1:123456789012:parameter/app/db" {
		t.Fatalf("decrypted read: %+v", p)
	}
	_, err := putParam(c, "/app/db", "p2")
	wantAPIError(t, err, "ParameterAlreadyExists", "The parameter already exists. To overwrite this value, set the overwrite option in the request to true.")
	_, err = putParam(c, "/app/db", "p2", overwrite, withTags("a", "b"))
	wantCode(t, err, "ValidationException")
	if out = mustPut(t, c, "/app/db", "p2", overwrite); out.Version != 2 {
		t.Fatalf("overwrite: version %d, want 2", out.Version)
	}
	if p = getValue(t, c, "/app/db:1", true); *p.Value != `{"password":"p1"}` || *p.Selector != ":1" {
		t.Fatalf("version selector: %+v", p)
	}
	_, err = c.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String("/app/db:7")})
	wantAPIError(t, err, "ParameterVersionNotFound", "Systems Manager could not find version 7 of /app/db. Verify the version and try again.")
	_, err = c.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String("/app/none")})
	wantAPIError(t, err, "ParameterNotFound", "Parameter /app/none not found.")
	d := s.State(t).Parameters
	if len(d) != 1 || d[0].Value != "p2" || d[0].Version != 2 || d[0].Tags["owner"] != "team-a" || d[0].KeyID != "alias/aws/ssm" {
		t.Fatalf("state: %+v", d)
	}
	// Both services share the listener and keep apart.
	if st := s.State(t); len(st.Secrets) != 0 {
		t.Fatalf("a parameter must not be a secret: %+v", st.Secrets)
	}
}

// moto's test_parameter_lifecycle_with_leading_slash (verified against AWS):
// a single-level name with and without its leading / is one parameter.
func TestSSM_LeadingSlashIsOneParameter(t *testing.T) {
	_, c := startSSM(t)
	mustPut(t, c, "without-slash", "v", func(in *ssm.PutParameterInput) { in.Type = types.ParameterTypeString })
	a, b := getValue(t, c, "without-slash", false), getValue(t, c, "/without-slash", false)
	if *a.ARN != *b.ARN {
		t.Fatalf("ARNs differ: %s %s", *a.ARN, *b.ARN)
	}
	_, err := putParam(c, "/without-slash", "w")
	wantCode(t, err, "ParameterAlreadyExists")
	if _, err := c.DeleteParameter(ctx, &ssm.DeleteParameterInput{Name: aws.String("/without-slash")}); err != nil {
		t.Fatal(err)
	}
	out, _ := c.GetParameters(ctx, &ssm.GetParametersInput{Names: []string{"without-slash"}})
	if len(out.Parameters) != 0 || len(out.InvalidParameters) != 1 {
		t.Fatalf("after delete: %+v", out)
	}
}

func TestSSM_TierLimits(t *testing.T) {
	s, c := startSSM(t)
	mustPut(t, c, "/t/std", strings.Repeat("a", 4096))
	_, err := putParam(c, "/t/big", strings.Repeat("a", 4097))
	wantCode(t, err, "ValidationException")
	mustPut(t, c, "/t/adv", strings.Repeat("a", 8192), tier(types.ParameterTierAdvanced))
	_, err = putParam(c, "/t/adv2", strings.Repeat("a", 8193), tier(types.ParameterTierAdvanced))
	wantCode(t, err, "ValidationException")
	// The limit counts bytes: 1,366 three-byte characters are 4,098 bytes.
	_, err = putParam(c, "/t/utf8", strings.Repeat("日", 1366))
	wantCode(t, err, "ValidationException")
	// Intelligent-Tiering picks Advanced only when the value needs it.
	if out := mustPut(t, c, "/t/it", "small", tier(types.ParameterTierIntelligentTiering)); out.Tier != types.ParameterTierStandard {
		t.Fatalf("intelligent small: %s", out.Tier)
	}
	if out := mustPut(t, c, "/t/it", strings.Repeat("b", 5000), overwrite, tier(types.ParameterTierIntelligentTiering)); out.Tier != types.ParameterTierAdvanced {
		t.Fatalf("intelligent large: %s", out.Tier)
	}
	// Standard → Advanced is allowed, Advanced → Standard is not (user
	// guide "Managing parameter tiers"); an overwrite without Tier keeps it.
	if out := mustPut(t, c, "/t/std", "x", overwrite, tier(types.ParameterTierAdvanced)); out.Tier != types.ParameterTierAdvanced {
		t.Fatalf("upgrade: %s", out.Tier)
	}
	_, err = putParam(c, "/t/std", "x", overwrite, tier(types.ParameterTierStandard))
	wantCode(t, err, "ValidationException")
	if out := mustPut(t, c, "/t/std", "y", overwrite); out.Tier != types.ParameterTierAdvanced || out.Version != 3 {
		t.Fatalf("overwrite without tier: %+v", out)
	}
	// Policies need the advanced tier.
	_, err = putParam(c, "/t/pol", "v", func(in *ssm.PutParameterInput) {
		in.Policies = aws.String(`[{"Type":"Expiration","Version":"1.0","Attributes":{"Timestamp":"2030-01-01T00:00:00Z"}}]`)
		in.Tier = types.ParameterTierStandard
	})
	wantCode(t, err, "IncompatiblePolicyException")
	// A parameter limit per tier.
	s.SetFaults(t, emulator.Faults{SSMParameterLimit: 5})
	for i := range 6 { // no Standard parameter so far: the sixth is refused
		if _, err = putParam(c, fmt.Sprint("/t/n", i), "v"); err != nil {
			break
		}
	}
	wantAPIError(t, err, "ParameterLimitExceeded", "You have exceeded the number of parameters for this AWS account. Delete unused parameters and try again.")
}

func TestSSM_NameRules(t *testing.T) {
	_, c := startSSM(t)
	deep := strings.Repeat("/l", 15)
	mustPut(t, c, deep, "v")
	_, err := putParam(c, deep+"/x", "v")
	wantAPIError(t, err, "HierarchyLevelLimitExceededException", "A hierarchy can have a maximum of 15 levels.")
	for _, n := range []string{"ssm_test", "AWS_TEST", "/ssm/x/y", "a b", "/a//b", "a/b", "/a/", "/x$y", strings.Repeat("n", 1000)} {
		_, err := putParam(c, n, "v")
		if err == nil {
			t.Errorf("name %q accepted", n)
		}
	}
	_, err = putParam(c, "ssm_test", "v")
	wantAPIError(t, err, "ValidationException", `Parameter name: can't be prefixed with "aws" or "ssm" (case-insensitive).`)
	mustPut(t, c, "/a-b_c.d/E9", "v")
	mustPut(t, c, "  /trim  ", "v") // surrounding spaces are removed
	getValue(t, c, "/trim", false)
}

func TestSSM_GetParametersByTen(t *testing.T) {
	_, c := startSSM(t)
	var names []string
	for i := range 9 {
		n := fmt.Sprintf("/g/p%d", i)
		mustPut(t, c, n, "v"+n)
		names = append(names, n)
	}
	out, err := c.GetParameters(ctx, &ssm.GetParametersInput{Names: append(names, "/g/missing"), WithDecryption: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Parameters) != 9 || !slices.Equal(out.InvalidParameters, []string{"/g/missing"}) || *out.Parameters[3].Value != "v/g/p3" {
		t.Fatalf("GetParameters: %d found, invalid %v", len(out.Parameters), out.InvalidParameters)
	}
	_, err = c.GetParameters(ctx, &ssm.GetParametersInput{Names: append(names, "/g/a", "/g/b")})
	wantCode(t, err, "ValidationException")
}

func TestSSM_DescribeParametersFiltersAndPages(t *testing.T) {
	_, c := startSSM(t)
	for i := range 60 {
		scope := "a"
		if i%3 == 0 {
			scope = "b"
		}
		mustPut(t, c, fmt.Sprintf("/owned/%02d", i), "v", withTags("scope", scope))
	}
	mustPut(t, c, "/owned/deep/x", "v", withTags("scope", "a"))
	mustPut(t, c, "/other/x", "v", withTags("scope", "a"))
	mustPut(t, c, "/owned/plain", "v", func(in *ssm.PutParameterInput) { in.Type = types.ParameterTypeString })

	describe := func(max int32, fs ...types.ParameterStringFilter) (names []string, calls int) {
		t.Helper()
		pg := ssm.NewDescribeParametersPaginator(c, &ssm.DescribeParametersInput{ParameterFilters: fs, MaxResults: aws.Int32(max)})
		for pg.HasMorePages() {
			out, err := pg.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			calls++
			for _, p := range out.Parameters {
				names = append(names, *p.Name)
			}
		}
		return names, calls
	}
	f := func(key, opt string, vals ...string) types.ParameterStringFilter {
		x := types.ParameterStringFilter{Key: aws.String(key), Values: vals}
		if opt != "" {
			x.Option = aws.String(opt)
		}
		return x
	}
	names, calls := describe(50, f("Path", "Recursive", "/owned"), f("tag:scope", "", "b"))
	if len(names) != 20 || calls != 2 {
		t.Fatalf("path+tag: %d names in %d calls, want 20 in 2", len(names), calls)
	}
	if names, _ = describe(50, f("Path", "OneLevel", "/owned"), f("Type", "", "SecureString")); len(names) != 60 {
		t.Fatalf("one level, SecureString: %d", len(names))
	}
	if names, _ = describe(50, f("Path", "Recursive", "/owned"), f("tag:scope", "", "a")); len(names) != 41 {
		t.Fatalf("recursive scope a: %d", len(names))
	}
	if names, _ = describe(10, f("Name", "BeginsWith", "/other")); !slices.Equal(names, []string{"/other/x"}) {
		t.Fatalf("BeginsWith: %v", names)
	}
	// A filtered page examines MaxResults candidates: some pages are short.
	out, err := c.DescribeParameters(ctx, &ssm.DescribeParametersInput{MaxResults: aws.Int32(10),
		ParameterFilters: []types.ParameterStringFilter{f("Path", "Recursive", "/owned"), f("tag:scope", "", "b")}})
	if err != nil || len(out.Parameters) >= 10 || out.NextToken == nil {
		t.Fatalf("short page: %d parameters, token %v, %v", len(out.Parameters), out.NextToken, err)
	}
	_, err = c.DescribeParameters(ctx, &ssm.DescribeParametersInput{MaxResults: aws.Int32(51)})
	wantCode(t, err, "ValidationException")
	_, err = c.DescribeParameters(ctx, &ssm.DescribeParametersInput{ParameterFilters: []types.ParameterStringFilter{f("Tier", "", "test")}})
	wantAPIError(t, err, "InvalidFilterValue", "The following filter value is not valid: test. Valid values include: [Standard, Advanced, Intelligent-Tiering]")
	_, err = c.DescribeParameters(ctx, &ssm.DescribeParametersInput{ParameterFilters: []types.ParameterStringFilter{f("Path", "Equals", "/x")}})
	wantAPIError(t, err, "InvalidFilterOption", "The following filter option is not valid: Equals. Valid options include: [Recursive, OneLevel]")
	_, err = c.DescribeParameters(ctx, &ssm.DescribeParametersInput{ParameterFilters: []types.ParameterStringFilter{f("Label", "", "x")}})
	wantCode(t, err, "InvalidFilterKey")
}

func TestSSM_GetParametersByPath(t *testing.T) {
	_, c := startSSM(t)
	for i := range 23 {
		mustPut(t, c, fmt.Sprintf("/p/%02d", i), fmt.Sprint(i))
	}
	mustPut(t, c, "/p/sub/deep", "d")
	collect := func(recursive bool) []types.Parameter {
		var all []types.Parameter
		pg := ssm.NewGetParametersByPathPaginator(c, &ssm.GetParametersByPathInput{Path: aws.String("/p"), Recursive: aws.Bool(recursive), WithDecryption: aws.Bool(true), MaxResults: aws.Int32(10)})
		for pg.HasMorePages() {
			out, err := pg.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, out.Parameters...)
		}
		return all
	}
	if got := collect(false); len(got) != 23 || *got[7].Value != "7" {
		t.Fatalf("one level: %d", len(got))
	}
	if got := collect(true); len(got) != 24 {
		t.Fatalf("recursive: %d", len(got))
	}
	_, err := c.GetParametersByPath(ctx, &ssm.GetParametersByPathInput{Path: aws.String("/p"), MaxResults: aws.Int32(11)})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 11 at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 10")
	_, err = c.GetParametersByPath(ctx, &ssm.GetParametersByPathInput{Path: aws.String("/p"),
		ParameterFilters: []types.ParameterStringFilter{{Key: aws.String("Name"), Values: []string{"x"}}}})
	wantCode(t, err, "InvalidFilterKey") // the model's InvalidFilterKey has no Message member
}

func TestSSM_DeleteTagsLabelsHistory(t *testing.T) {
	s, c := startSSM(t)
	mustPut(t, c, "/d/a", "v1", withTags("k", "v"))
	mustPut(t, c, "/d/b", "v")
	out, err := c.DeleteParameters(ctx, &ssm.DeleteParametersInput{Names: []string{"/d/b", "/d/zz"}})
	if err != nil || !slices.Equal(out.DeletedParameters, []string{"/d/b"}) || !slices.Equal(out.InvalidParameters, []string{"/d/zz"}) {
		t.Fatalf("DeleteParameters: %+v %v", out, err)
	}
	_, err = c.DeleteParameter(ctx, &ssm.DeleteParameterInput{Name: aws.String("/d/b")})
	wantAPIError(t, err, "ParameterNotFound", "Parameter /d/b not found.")

	res := func() (*string, types.ResourceTypeForTagging) {
		return aws.String("/d/a"), types.ResourceTypeForTaggingParameter
	}
	id, rt := res()
	if _, err := c.AddTagsToResource(ctx, &ssm.AddTagsToResourceInput{ResourceId: id, ResourceType: rt,
		Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v2")}, {Key: aws.String("n"), Value: aws.String("")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RemoveTagsFromResource(ctx, &ssm.RemoveTagsFromResourceInput{ResourceId: id, ResourceType: rt, TagKeys: []string{"n", "absent"}}); err != nil {
		t.Fatal(err)
	}
	tags, err := c.ListTagsForResource(ctx, &ssm.ListTagsForResourceInput{ResourceId: id, ResourceType: rt})
	if err != nil || len(tags.TagList) != 1 || *tags.TagList[0].Value != "v2" {
		t.Fatalf("tags: %+v %v", tags, err)
	}
	many := make([]types.Tag, 50)
	for i := range many {
		many[i] = types.Tag{Key: aws.String(fmt.Sprint("t", i)), Value: aws.String("v")}
	}
	_, err = c.AddTagsToResource(ctx, &ssm.AddTagsToResourceInput{ResourceId: id, ResourceType: rt, Tags: many})
	wantCode(t, err, "TooManyTagsError")
	_, err = c.ListTagsForResource(ctx, &ssm.ListTagsForResourceInput{ResourceId: aws.String("/none"), ResourceType: rt})
	wantCode(t, err, "InvalidResourceId")

	// Labels move between versions; invalid ones are reported, not applied.
	mustPut(t, c, "/d/a", "v2", overwrite)
	lo, err := c.LabelParameterVersion(ctx, &ssm.LabelParameterVersionInput{Name: aws.String("/d/a"), ParameterVersion: aws.Int64(1), Labels: []string{"prod", "1bad", "awsx"}})
	if err != nil || lo.ParameterVersion != 1 || !slices.Equal(lo.InvalidLabels, []string{"1bad", "awsx"}) {
		t.Fatalf("label: %+v %v", lo, err)
	}
	if p := getValue(t, c, "/d/a:prod", true); *p.Value != "v1" {
		t.Fatalf("label selector: %s", *p.Value)
	}
	if _, err := c.LabelParameterVersion(ctx, &ssm.LabelParameterVersionInput{Name: aws.String("/d/a"), Labels: []string{"prod"}}); err != nil {
		t.Fatal(err)
	}
	h, err := c.GetParameterHistory(ctx, &ssm.GetParameterHistoryInput{Name: aws.String("/d/a"), WithDecryption: aws.Bool(true)})
	if err != nil || len(h.Parameters) != 2 || len(h.Parameters[0].Labels) != 0 || !slices.Equal(h.Parameters[1].Labels, []string{"prod"}) || *h.Parameters[0].Value != "v1" {
		t.Fatalf("history: %+v %v", h, err)
	}
	// 100 versions are kept; the oldest goes unless it carries a label.
	for range 98 {
		mustPut(t, c, "/d/a", "more", overwrite)
	}
	if _, err := c.LabelParameterVersion(ctx, &ssm.LabelParameterVersionInput{Name: aws.String("/d/a"), ParameterVersion: aws.Int64(1), Labels: []string{"old"}}); err != nil {
		t.Fatal(err)
	}
	_, err = putParam(c, "/d/a", "101", overwrite)
	wantCode(t, err, "ParameterMaxVersionLimitExceeded")
	if _, err := c.LabelParameterVersion(ctx, &ssm.LabelParameterVersionInput{Name: aws.String("/d/a"), ParameterVersion: aws.Int64(2), Labels: []string{"old"}}); err != nil {
		t.Fatal(err)
	}
	if out := mustPut(t, c, "/d/a", "101", overwrite); out.Version != 101 {
		t.Fatalf("version %d", out.Version)
	}
	if d := s.State(t).Parameters[0]; d.Versions != 100 || d.Labels["old"] != 2 {
		t.Fatalf("state: versions %d labels %v", d.Versions, d.Labels)
	}
}

func TestSSM_KMSKeys(t *testing.T) {
	s, c := startSSM(t)
	k := s.Control().Must(t).AddKMSKey(emulator.KMSKey{Aliases: []string{"alias/app"}})
	mustPut(t, c, "/k/a", "v", func(in *ssm.PutParameterInput) { in.KeyId = aws.String("alias/app") })
	_, err := putParam(c, "/k/b", "v", func(in *ssm.PutParameterInput) { in.KeyId = aws.String("alias/none") })
	wantCode(t, err, "InvalidKeyId")
	_, err = putParam(c, "/k/c", "v", func(in *ssm.PutParameterInput) {
		in.KeyId, in.Type = aws.String("alias/app"), types.ParameterTypeString
	})
	wantCode(t, err, "ValidationException")
	// A disabled key: writes and decrypting reads fail.
	s.SetFaults(t, emulator.Faults{KMSKeyFaults: []emulator.KMSKeyFault{{Key: k.KeyID, State: emulator.KMSDisabled}}})
	_, err = c.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String("/k/a"), WithDecryption: aws.Bool(true)})
	wantCode(t, err, "InvalidKeyId")
	_, err = putParam(c, "/k/a", "w", overwrite, func(in *ssm.PutParameterInput) { in.KeyId = aws.String("alias/app") })
	wantCode(t, err, "InvalidKeyId")
	out, err := c.DescribeParameters(ctx, &ssm.DescribeParametersInput{ParameterFilters: []types.ParameterStringFilter{{Key: aws.String("KeyId"), Values: []string{"alias/app"}}}})
	if err != nil || len(out.Parameters) != 1 {
		t.Fatalf("KeyId filter: %+v %v", out, err)
	}
}

func TestSSM_AccountsAndRegions(t *testing.T) {
	s, c := startSSM(t)
	west := s.SSMClientIn(t, "eu-west-1", emulatortest.DefaultAccessKey)
	mustPut(t, c, "/r/x", "east")
	mustPut(t, west, "/r/x", "west")
	if p := getValue(t, west, "/r/x", true); *p.Value != "west" || !strings.Contains(*p.ARN, ":eu-west-1:") {
		t.Fatalf("west: %+v", p)
	}
	if p := getValue(t, c, "/r/x", true); *p.Value != "east" {
		t.Fatalf("east: %s", *p.Value)
	}
	if st := s.Stats(t); st.CallsByAccountRegion["123456789012/eu-west-1"]["PutParameter"] != 1 {
		t.Fatalf("calls by partition: %v", st.CallsByAccountRegion)
	}
}

// Throttling at Parameter Store's own quota: PutParameter's default
// throughput is 3 per second, apart from Secrets Manager's buckets.
func TestSSM_ThrottlingAtPutParameterQuota(t *testing.T) {
	s, c := startSSM(t)
	frozen := s.Emu.Now()
	s.Emu.SetClock(func() time.Time { return frozen })
	s.SetQuotas(t, emulator.Quotas{Quotas: true})
	for i := range 3 {
		mustPut(t, c, fmt.Sprintf("/q/%d", i), "v")
	}
	_, err := putParam(c, "/q/3", "v")
	wantAPIError(t, err, "ThrottlingException", "Rate exceeded")
	if len(s.State(t).Parameters) != 3 {
		t.Fatal("a throttled put must not be applied")
	}
	sm := s.Client(t, noRetry)
	create(t, sm, "not-throttled", "v") // Secrets Manager's quota is its own
	s.Emu.AdvanceClock(time.Second)
	mustPut(t, c, "/q/3", "v")
}

// Ambiguous writes: the response is lost after (or before) the parameter
// changed; only re-observation can tell.
func TestSSM_AmbiguousPutParameter(t *testing.T) {
	s, c := startSSM(t)
	s.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{
		{Operation: "PutParameter", Nth: 1, Fault: "ambiguous-after-apply"},
		{Operation: "PutParameter", Nth: 2, Fault: "ambiguous-before-apply"},
		{Operation: "DeleteParameter", Nth: 1, Fault: "error:InternalServerError"},
	}})
	if _, err := putParam(c, "/amb/after", "v"); err == nil {
		t.Fatal("ambiguous-after-apply must lose the response")
	}
	if _, err := putParam(c, "/amb/before", "v"); err == nil {
		t.Fatal("ambiguous-before-apply must lose the response")
	}
	d := s.State(t).Parameters
	if len(d) != 1 || d[0].Name != "/amb/after" {
		t.Fatalf("after-apply lands, before-apply does not: %+v", d)
	}
	_, err := c.DeleteParameter(ctx, &ssm.DeleteParameterInput{Name: aws.String("/amb/after")})
	wantCode(t, err, "InternalServerError")
	if st := s.Stats(t); st.Faults["ambiguous-after-apply"] != 1 || st.Faults["ambiguous-before-apply"] != 1 {
		t.Fatalf("faults: %v", st.Faults)
	}
}

// The facts of moto's two tests marked verified against AWS
// (tests/test_ssm/test_ssm.py, docs/emulator.md "Parameter Store"), each
// name created with and without its leading / and reached by both forms:
// Get, GetParameters and the ARN agree; a delete by the other form is
// final and the original name can be created again at once; DeleteParameters
// by the other form deletes it too.
func TestSSM_VerifiedLeadingSlashLifecycle(t *testing.T) {
	for _, name := range []string{"/with-slash", "without-slash"} {
		for _, stripped := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/stripped=%v", name, stripped), func(t *testing.T) {
				_, c := startSSM(t)
				str := func(in *ssm.PutParameterInput) { in.Type = types.ParameterTypeString }
				mustPut(t, c, name, "value", str)
				access := strings.TrimPrefix(name, "/")
				if !stripped {
					access = "/" + access
				}
				if a, b := getValue(t, c, name, false), getValue(t, c, access, false); *a.ARN != *b.ARN {
					t.Fatalf("ARNs differ: %s %s", *a.ARN, *b.ARN)
				}
				gone := func(when string) {
					t.Helper()
					out, err := c.GetParameters(ctx, &ssm.GetParametersInput{Names: []string{access}})
					if err != nil || len(out.Parameters) != 0 {
						t.Fatalf("%s: GetParameters %+v %v, want no parameter", when, out, err)
					}
				}
				out, err := c.GetParameters(ctx, &ssm.GetParametersInput{Names: []string{access}})
				if err != nil || len(out.Parameters) != 1 {
					t.Fatalf("GetParameters by %s: %+v %v", access, out, err)
				}
				if _, err := c.DeleteParameter(ctx, &ssm.DeleteParameterInput{Name: aws.String(access)}); err != nil {
					t.Fatal(err)
				}
				gone("after DeleteParameter")
				if o := mustPut(t, c, name, "value", str); o.Version != 1 {
					t.Fatalf("re-created at version %d, want 1 (deletion is final, nothing kept)", o.Version)
				}
				d, err := c.DeleteParameters(ctx, &ssm.DeleteParametersInput{Names: []string{access}})
				if err != nil || len(d.DeletedParameters) != 1 || len(d.InvalidParameters) != 0 {
					t.Fatalf("DeleteParameters by %s: %+v %v", access, d, err)
				}
				gone("after DeleteParameters")
			})
		}
	}
}

// moto's test_list_parameter_tags_created_with_leading_slash (verified):
// tags written by either form of the name land on one parameter, either
// form lists both, removing an absent key is no error, and removing by the
// other form removes.
func TestSSM_VerifiedTagsByEitherName(t *testing.T) {
	for _, name := range []string{"/with-slash", "without-slash"} {
		t.Run(name, func(t *testing.T) {
			_, c := startSSM(t)
			mustPut(t, c, name, "value", func(in *ssm.PutParameterInput) { in.Type = types.ParameterTypeString })
			bare := strings.TrimPrefix(name, "/")
			slash := "/" + bare
			rt := types.ResourceTypeForTaggingParameter
			for _, id := range []string{bare, slash} {
				if _, err := c.AddTagsToResource(ctx, &ssm.AddTagsToResourceInput{ResourceId: aws.String(id), ResourceType: rt,
					Tags: []types.Tag{{Key: aws.String("by" + id), Value: aws.String(id)}}}); err != nil {
					t.Fatalf("AddTagsToResource %s: %v", id, err)
				}
			}
			list := func(id string) int {
				t.Helper()
				out, err := c.ListTagsForResource(ctx, &ssm.ListTagsForResourceInput{ResourceId: aws.String(id), ResourceType: rt})
				if err != nil {
					t.Fatalf("ListTagsForResource %s: %v", id, err)
				}
				return len(out.TagList)
			}
			for _, id := range []string{bare, slash} {
				if n := list(id); n != 2 {
					t.Fatalf("ListTagsForResource %s: %d tags, want 2", id, n)
				}
			}
			if _, err := c.RemoveTagsFromResource(ctx, &ssm.RemoveTagsFromResourceInput{ResourceId: aws.String(bare), ResourceType: rt, TagKeys: []string{"absent"}}); err != nil {
				t.Fatalf("removing an absent key: %v", err)
			}
			if _, err := c.RemoveTagsFromResource(ctx, &ssm.RemoveTagsFromResourceInput{ResourceId: aws.String(slash), ResourceType: rt, TagKeys: []string{"by" + bare}}); err != nil {
				t.Fatal(err)
			}
			if n := list(bare); n != 1 {
				t.Fatalf("after removing by %s: %d tags, want 1", slash, n)
			}
			if _, err := c.DeleteParameters(ctx, &ssm.DeleteParametersInput{Names: []string{name}}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
