# No deletion in a production scope unless the change carries the label
# allow-prod-deletion. A deletion is a schedule-delete (Secrets Manager:
# after the recovery window; Parameter Store: at once) or a replica
# Region an operation removes. A production scope is one whose name
# starts with "prod".
#
# Input: the plan file (schemas/plan-v3.schema.json). The labels are
# data.sops_aws_sync.labels (plan --policy-labels; the Action and the
# GitLab component pass the pull or merge request's labels).
package main

import rego.v1

prod_deletion_label := "allow-prod-deletion"

prod_scope(name) if startswith(name, "prod")

deny contains msg if {
	some scope in input.scopes
	prod_scope(scope.name)
	some op in scope.operations
	op.action == "schedule-delete"
	not prod_deletion_label in data.sops_aws_sync.labels
	msg := sprintf("scope %s: %s would be deleted; a deletion in production needs the label %s", [scope.name, op.resource, prod_deletion_label])
}

deny contains msg if {
	some scope in input.scopes
	prod_scope(scope.name)
	some op in scope.operations
	count(object.get(op, "replicas_removed", [])) > 0
	not prod_deletion_label in data.sops_aws_sync.labels
	msg := sprintf("scope %s: %s would lose its replicas in %s; a deletion in production needs the label %s", [scope.name, op.resource, concat(", ", op.replicas_removed), prod_deletion_label])
}
