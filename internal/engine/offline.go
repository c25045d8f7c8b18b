package engine

import (
	"fmt"
	"maps"
	"slices"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

// BeforeAWS is every refusal of a scope that the engine makes before its
// first AWS call, from what a run knows without AWS: the scope's settings
// (cfg: Adopt, AdoptSetting, AWSOwned, Replicas, ReplicasSetting), the commit's outline
// (names and sources; no value is read) and the scope's Region (region:
// aws-region, else the SDK chain's; "" when unknown, and the replica
// check is then not made). In order, each at most once:
//
//   - config:adopt-not-desired: an adopt entry names a secret no document
//     of the commit maps to (SPEC §11);
//   - config:aws-owned: an aws-owned entry matches no document, two
//     entries match one, or a whole-value document lists a key other than
//     "" (model.ValidateAWSOwnedState; SPEC §13);
//   - config:replica-region: replica-regions lists region itself or a
//     Region of another partition (model.CheckReplicaHome; SPEC §12).
//
// A run (prepare) stops at the first of them with status invalid, before
// anything is read; validate (run.Validate, SPEC §15) reports them all, so
// that it passes nothing a plan refuses without AWS. nil when the scope
// passes.
func BeforeAWS(cfg Config, outline model.State, region string) diag.Diagnostics {
	var ds diag.Diagnostics
	if d, missing := adoptRefusal(outline, cfg.Adopt, cfg.AdoptSetting); len(missing) > 0 {
		ds = append(ds, d)
	}
	if d, bad := awsOwnedRefusal(cfg.AWSOwned, outline); bad {
		ds = append(ds, d)
	}
	if d, bad := replicaRefusal(region, cfg.Replicas, cfg.ReplicasSetting); bad {
		ds = append(ds, d)
	}
	return ds
}

// adoptRefusal is config:adopt-not-desired (subject where adopt came
// from, the setting's name when subject is zero) when an entry of adopt names a
// secret that no document of want maps to, with those names (sorted; nil
// when every entry is desired).
func adoptRefusal(want model.State, adopt []string, subject diag.Subject) (diag.Diagnostic, []string) {
	missing := plan.NotDesired(want, slices.Collect(maps.Keys(plan.AdoptSet(adopt))))
	if len(missing) == 0 {
		return diag.Diagnostic{}, nil
	}
	return diag.New(diag.ConfigAdoptNotDesired, settingOr(subject, config.Adopt)).
		WithSummary(plural(len(missing), "adopt entry names", "adopt entries name") + " a secret that no document of this commit maps to; nothing was read from Secrets Manager"), missing
}

// awsOwnedRefusal is config:aws-owned when an aws-owned entry does not fit
// want's outline (model.ValidateAWSOwnedState), its summary naming the
// entry's ordinal and what is wrong; false when every entry fits.
func awsOwnedRefusal(owned []model.AWSOwned, want model.State) (diag.Diagnostic, bool) {
	n, err := model.ValidateAWSOwnedState(owned, want)
	if err == nil {
		return diag.Diagnostic{}, false
	}
	what := fmt.Sprintf("aws-owned entry %d %s", n, err)
	return diag.New(diag.ConfigAWSOwned, diag.Subject{Setting: config.AWSOwned}).
		WithSummary(what + "; nothing was read from Secrets Manager"), true
}

// replicaRefusal is config:replica-region, subject where replica-regions
// came from (the setting's name when subject is zero), when replicas lists
// region or a Region of another partition (model.CheckReplicaHome); false
// when they fit or region is unknown ("").
func replicaRefusal(region string, replicas []model.Replica, subject diag.Subject) (diag.Diagnostic, bool) {
	if err := model.CheckReplicaHome(region, replicas); err == nil {
		return diag.Diagnostic{}, false
	}
	return diag.New(diag.ConfigReplicaRegion, settingOr(subject, config.ReplicaRegions)), true
}
