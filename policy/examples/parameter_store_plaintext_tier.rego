# No plaintext and no tier change in Parameter Store: every parameter a
# scope writes is a SecureString (never String, whose value AWS stores
# without a KMS key), and each Parameter Store scope keeps the tier
# pinned here (standard unless pinned_parameter_tiers names the scope):
# a change of parameter-tier changes what AWS charges and what it stores
# (an advanced parameter cannot go back to standard).
#
# Input: data.sops_aws_sync.scopes (the scopes' settings as the run
# resolved them: target, parameter_tier, parameter_type, kms_key).
package main

import rego.v1

pinned_parameter_tiers := {"prod-large": "advanced"}

deny contains msg if {
	some name, scope in data.sops_aws_sync.scopes
	scope.target == "parameter-store"
	scope.parameter_type != "SecureString"
	msg := sprintf("scope %s: parameters would be written as %s; only SecureString keeps the value encrypted", [name, scope.parameter_type])
}

deny contains msg if {
	some name, scope in data.sops_aws_sync.scopes
	scope.target == "parameter-store"
	pinned := object.get(pinned_parameter_tiers, name, "standard")
	scope.parameter_tier != pinned
	msg := sprintf("scope %s: parameter-tier is %s, pinned to %s; change the pin in the policy with the review of the tier change", [name, scope.parameter_tier, pinned])
}
