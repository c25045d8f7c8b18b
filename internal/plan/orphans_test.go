package plan_test

import (
	"slices"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

func TestOrphansAreOtherScopesSecretsOfThisCommitsDocuments(t *testing.T) {
	path := "secrets/db.sops.json"
	st := model.State{Scope: testScope, Secrets: []model.Secret{{Name: "app/db", SourceDigest: model.SourceDigest(path), Path: path}}}
	old := model.Scope{RepositoryID: testScope.RepositoryID, SourceRoot: testScope.SourceRoot, Prefix: "old-app"}
	listed := []plan.Listed{
		{Name: "old-app/db", Tags: old.Tags(path)},                                               // the prefix changed: an orphan
		{Name: "app/db", Tags: testScope.Tags(path)},                                             // ours
		{Name: "old-app/gone", Tags: old.Tags("secrets/gone.sops.json")},                         // another document: not this commit's
		{Name: "old-app/db-deleted", Tags: old.Tags(path), Deleted: true},                        // already being retired
		{Name: "foreign/db", Tags: map[string]string{model.TagSource: model.SourceDigest(path)}}, // not managed by us
		{Name: "old-app/db", Tags: old.Tags(path)},                                               // a list page repeated
	}
	got := plan.Orphans(st.Scope.Digest(), nil, st.Secrets, listed)
	if !slices.Equal(got, []string{"old-app/db"}) {
		t.Fatalf("Orphans = %v", got)
	}
	if got := plan.Orphans(testScope.Digest(), nil, nil, listed); len(got) != 0 {
		t.Fatalf("an empty commit has no document to orphan: %v", got)
	}
}
