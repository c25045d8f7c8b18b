package config

import "github.com/sops-aws-sync/sops-aws-sync/internal/model"

// chooseRoles sets the role each scope's calls assume for command, in
// place: plan (also the Action's drift check, a plan) assumes plan-role-arn
// when the scope has one, else role-arn; sync always assumes role-arn
// (docs/iam-policy.md: a read-only role for plan, a writing one for sync).
// RoleSetting records which setting the ARN came from, so that
// credentials:assume-role names it. A plan-role-arn in another account
// than the scope's role-arn is config:invalid-value in every command: a
// plan would then observe other secrets than the sync it reviews writes.
// sources are the top-level settings' sources (Options.Sources): they
// name a problem of the default scope (flag, variable or file).
func chooseRoles(scopes []Scope, command string, sources map[string]Source) []Problem {
	var probs []Problem
	for i := range scopes {
		a := &scopes[i].AWS
		if a.PlanRoleARN != "" && a.RoleARN != "" && model.RoleARNAccount(a.PlanRoleARN) != model.RoleARNAccount(a.RoleARN) {
			setting, src := scopes[i].SettingName(PlanRoleARN), scopes[i].SettingSource(PlanRoleARN)
			if !scopes[i].Listed {
				src = sources[PlanRoleARN]
				setting = settingLabel(PlanRoleARN, src)
			}
			probs = append(probs, Problem{ClassInvalidValue, setting, src,
				"must be a role in the account of role-arn: plan would otherwise read another account than sync writes"})
		}
		chooseRole(a, command)
	}
	return probs
}

// chooseRole is chooseRoles' choice for one AWS value.
func chooseRole(a *AWS, command string) {
	switch {
	case command == "plan" && a.PlanRoleARN != "":
		a.RoleARN, a.RoleSetting = a.PlanRoleARN, PlanRoleARN
	case a.RoleARN != "":
		a.RoleSetting = RoleARN
	}
}
