package emulator_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
)

// Conformance: ListSecrets filters, pagination, sort, planned deletion, and
// BatchGetSecretValue (reference §1 ListSecrets, BatchGetSecretValue).

func createTagged(t *testing.T, c *secretsmanager.Client, name, desc string, tags map[string]string) {
	t.Helper()
	in := &secretsmanager.CreateSecretInput{Name: aws.String(name), SecretString: aws.String("v-" + name)}
	if desc != "" {
		in.Description = aws.String(desc)
	}
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		in.Tags = append(in.Tags, types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, in))
}

func listNames(t *testing.T, c *secretsmanager.Client, in *secretsmanager.ListSecretsInput) []string {
	t.Helper()
	var names []string
	pg := secretsmanager.NewListSecretsPaginator(c, in)
	for pg.HasMorePages() {
		out := must[*secretsmanager.ListSecretsOutput](t)(pg.NextPage(ctx))
		for _, s := range out.SecretList {
			names = append(names, *s.Name)
		}
	}
	return names
}

func f(key types.FilterNameStringType, values ...string) types.Filter {
	return types.Filter{Key: key, Values: values}
}

func fixture(t *testing.T) *secretsmanager.Client {
	_, c := start(t)
	createTagged(t, c, "prod/db", "Database password", map[string]string{"sops-aws-sync:managed-by": "sops-aws-sync", "sops-aws-sync:scope": "aaaa"})
	createTagged(t, c, "prod/api", "API key for Billing", map[string]string{"sops-aws-sync:managed-by": "sops-aws-sync", "sops-aws-sync:scope": "bbbb"})
	createTagged(t, c, "dev/db", "", map[string]string{"team": "core"})
	createTagged(t, c, "Prod/upper", "", nil)
	return c
}

func TestListSecrets_Filters(t *testing.T) {
	c := fixture(t)
	cases := []struct {
		name    string
		filters []types.Filter
		want    []string
	}{
		{"name prefix is case-sensitive", []types.Filter{f(types.FilterNameStringTypeName, "prod/")}, []string{"prod/db", "prod/api"}},
		{"tag-key prefix", []types.Filter{f(types.FilterNameStringTypeTagKey, "sops-aws-sync:managed")}, []string{"prod/db", "prod/api"}},
		{"tag-value exact scope digest", []types.Filter{f(types.FilterNameStringTypeTagKey, "sops-aws-sync:scope"), f(types.FilterNameStringTypeTagValue, "bbbb")}, []string{"prod/api"}},
		{"values in one filter are OR", []types.Filter{f(types.FilterNameStringTypeName, "dev/", "Prod/")}, []string{"dev/db", "Prod/upper"}},
		{"duplicate keys are AND", []types.Filter{f(types.FilterNameStringTypeName, "prod/"), f(types.FilterNameStringTypeName, "prod/d")}, []string{"prod/db"}},
		{"negation excludes", []types.Filter{f(types.FilterNameStringTypeName, "!prod/")}, []string{"dev/db", "Prod/upper"}},
		{"negated tag-key", []types.Filter{f(types.FilterNameStringTypeTagKey, "!sops-aws-sync:")}, []string{"dev/db", "Prod/upper"}},
		{"description is case-insensitive word prefix", []types.Filter{f(types.FilterNameStringTypeDescription, "billing")}, []string{"prod/api"}},
		{"all searches every attribute, any case", []types.Filter{f(types.FilterNameStringTypeAll, "CORE")}, []string{"dev/db"}},
		{"all with two words needs both", []types.Filter{f(types.FilterNameStringTypeAll, "database prod")}, []string{"prod/db"}},
		{"no match", []types.Filter{f(types.FilterNameStringTypeTagValue, "zzzz")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := listNames(t, c, &secretsmanager.ListSecretsInput{Filters: tc.filters})
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestListSecrets_PrimaryRegionAndOwningServiceFilters(t *testing.T) {
	srv, c := start(t)
	create(t, c, "a", "v")
	create(t, c, "b", "v")
	srv.SetConditions(t, conditions("a", func(cd *condT) { cd.ReplicaRegions = []string{"eu-west-1"} }))
	srv.SetConditions(t, conditions("b", func(cd *condT) { cd.OwningService = aws.String("rds") }))
	if got := listNames(t, c, &secretsmanager.ListSecretsInput{Filters: []types.Filter{f(types.FilterNameStringTypePrimaryRegion, "us-east")}}); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("primary-region: %v", got)
	}
	if got := listNames(t, c, &secretsmanager.ListSecretsInput{Filters: []types.Filter{f(types.FilterNameStringTypeOwningService, "rd")}}); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("owning-service: %v", got)
	}
}

func TestListSecrets_InvalidFilters(t *testing.T) {
	c := fixture(t)
	_, err := c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{Filters: []types.Filter{{Key: types.FilterNameStringTypeName}}})
	wantAPIError(t, err, "InvalidParameterException", "Invalid filter values for key: name")
	_, err = c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{Filters: []types.Filter{{Key: "colour", Values: []string{"x"}}}})
	wantCode(t, err, "ValidationException")
	_, err = c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{Filters: []types.Filter{f(types.FilterNameStringTypeName, "bad*char")}})
	wantCode(t, err, "ValidationException")
}

func TestListSecrets_MaxResultsAndPagination(t *testing.T) {
	_, c := start(t)
	var want []string
	for i := range 25 {
		name := fmt.Sprintf("s%02d", i)
		create(t, c, name, "v")
		want = append(want, name)
	}
	for _, bad := range []int32{0, 101} {
		_, err := c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{MaxResults: aws.Int32(bad)})
		wantCode(t, err, "ValidationException")
	}
	first := must[*secretsmanager.ListSecretsOutput](t)(c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{MaxResults: aws.Int32(10)}))
	if len(first.SecretList) != 10 || first.NextToken == nil {
		t.Fatalf("first page %d entries, token %v", len(first.SecretList), first.NextToken)
	}
	if got := listNames(t, c, &secretsmanager.ListSecretsInput{MaxResults: aws.Int32(7)}); !slices.Equal(got, want) {
		t.Fatalf("asc pages %v", got)
	}
	rev := slices.Clone(want)
	slices.Reverse(rev)
	if got := listNames(t, c, &secretsmanager.ListSecretsInput{MaxResults: aws.Int32(4), SortOrder: types.SortOrderTypeDesc}); !slices.Equal(got, rev) {
		t.Fatalf("desc pages %v", got)
	}
	if got := listNames(t, c, &secretsmanager.ListSecretsInput{MaxResults: aws.Int32(6), SortBy: types.SortByTypeName, SortOrder: types.SortOrderTypeDesc}); !slices.Equal(got, rev) {
		t.Fatalf("by name desc %v", got)
	}
	_, err := c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{NextToken: aws.String("not-a-token")})
	wantAPIError(t, err, "InvalidNextTokenException", "The NextToken value is invalid.")
	// A token is bound to its sort order.
	_, err = c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{NextToken: first.NextToken, SortOrder: types.SortOrderTypeDesc})
	wantCode(t, err, "InvalidNextTokenException")
}

func TestListSecrets_PlannedDeletionHiddenUnlessIncluded(t *testing.T) {
	c := fixture(t)
	schedule(t, c, "dev/db", 7)
	if got := listNames(t, c, &secretsmanager.ListSecretsInput{}); slices.Contains(got, "dev/db") {
		t.Fatalf("scheduled secret listed by default: %v", got)
	}
	out := must[*secretsmanager.ListSecretsOutput](t)(c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{IncludePlannedDeletion: aws.Bool(true), Filters: []types.Filter{f(types.FilterNameStringTypeName, "dev/")}}))
	if len(out.SecretList) != 1 || out.SecretList[0].DeletedDate == nil {
		t.Fatalf("IncludePlannedDeletion: %+v", out.SecretList)
	}
}

func TestBatchGetSecretValue_ByIdListReportsPerSecretErrors(t *testing.T) {
	c := fixture(t)
	schedule(t, c, "dev/db", 7)
	out := must[*secretsmanager.BatchGetSecretValueOutput](t)(c.BatchGetSecretValue(ctx, &secretsmanager.BatchGetSecretValueInput{SecretIdList: []string{"prod/db", "missing", "dev/db"}}))
	if len(out.SecretValues) != 1 || *out.SecretValues[0].SecretString != "v-prod/db" {
		t.Fatalf("values %+v", out.SecretValues)
	}
	if len(out.Errors) != 2 || *out.Errors[0].ErrorCode != "ResourceNotFoundException" || *out.Errors[1].ErrorCode != "InvalidRequestException" || *out.Errors[1].Message != msgMarked {
		t.Fatalf("errors %+v", out.Errors)
	}
}

func TestBatchGetSecretValue_ByFilters(t *testing.T) {
	c := fixture(t)
	var got []string
	pg := secretsmanager.NewBatchGetSecretValuePaginator(c, &secretsmanager.BatchGetSecretValueInput{Filters: []types.Filter{f(types.FilterNameStringTypeTagKey, "sops-aws-sync:managed-by")}, MaxResults: aws.Int32(1)})
	for pg.HasMorePages() {
		out := must[*secretsmanager.BatchGetSecretValueOutput](t)(pg.NextPage(ctx))
		for _, v := range out.SecretValues {
			got = append(got, *v.SecretString)
		}
	}
	if !slices.Equal(got, []string{"v-prod/db", "v-prod/api"}) {
		t.Fatalf("got %v", got)
	}
}

func TestBatchGetSecretValue_InputRules(t *testing.T) {
	c := fixture(t)
	_, err := c.BatchGetSecretValue(ctx, &secretsmanager.BatchGetSecretValueInput{SecretIdList: []string{"prod/db"}, Filters: []types.Filter{f(types.FilterNameStringTypeName, "p")}})
	wantAPIError(t, err, "InvalidParameterException", "Either 'SecretIdList' or 'Filters' must be provided, but not both.")
	_, err = c.BatchGetSecretValue(ctx, &secretsmanager.BatchGetSecretValueInput{SecretIdList: []string{"prod/db"}, MaxResults: aws.Int32(5)})
	wantAPIError(t, err, "InvalidParameterException", "'Filters' not specified. 'Filters' must also be specified when 'MaxResults' is provided.")
	ids := make([]string, 21)
	for i := range ids {
		ids[i] = "x"
	}
	_, err = c.BatchGetSecretValue(ctx, &secretsmanager.BatchGetSecretValueInput{SecretIdList: ids})
	wantCode(t, err, "ValidationException")
}
