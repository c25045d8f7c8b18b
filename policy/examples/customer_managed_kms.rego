# The KMS key must be a customer managed key: every scope sets kms-key-id
# to a key of its own (a key id, key ARN or alias of the account), never
# leaves it unmanaged and never names an AWS managed key (alias/aws/…),
# whose key policy the account cannot restrict.
#
# Input: data.sops_aws_sync.scopes[_].kms_key, the kind of the scope's
# kms-key-id judged from its form (not-managed, aws-managed,
# customer-managed); the key id itself is never given to a policy.
package main

import rego.v1

deny contains msg if {
	some name, scope in data.sops_aws_sync.scopes
	scope.kms_key != "customer-managed"
	msg := sprintf("scope %s: the KMS key is %s; set kms-key-id to a customer managed key", [name, scope.kms_key])
}
