package vocab

import "slices"

// iamRow is one AWS operation the tool calls and the IAM actions a role
// must be allowed for it to succeed (docs/iam-policy.md lists the same).
type iamRow struct {
	// Operation is the AWS API operation name (engine.Error.Operation).
	Operation string
	// Actions are the IAM actions AWS checks for every call of it, the
	// operation's own first.
	Actions []string
	// WithReplicas are the actions AWS also checks when the call adds
	// replica Regions (CreateSecret with AddReplicaRegions).
	WithReplicas []string
}

// iamActions is the one table from each kind of AWS call the tool makes —
// its reads (observation, values) and its writes (the engine's steps) —
// to the IAM actions the operator grants for it. Sources: the "Required
// permissions" of each operation in the AWS Secrets Manager API reference
// (CreateSecret: secretsmanager:TagResource for the tags it carries, which
// every create of the tool does — the ownership tags —, and
// secretsmanager:ReplicateSecretToRegions with AddReplicaRegions;
// BatchGetSecretValue: secretsmanager:GetSecretValue for each secret too),
// and sts:AssumeRole for the role a scope assumes. Parameter Store's rows
// (target parameter-store, SPEC §16) are the operations internal/awsps
// calls (TestIAMTableCoversTheParameterStoreAdapter parses them out of
// its source); PutParameter also needs ssm:AddTagsToResource because
// every create carries the ownership tags (AWS Systems Manager User Guide,
// "Tagging parameters": creating a parameter with tags needs both; the
// CloudFormation AWS::SSM::Parameter reference says the same). KMS permissions of a
// configured key are not here: they are granted in the key's policy and
// docs/recovery.md names them by their error codes.
var iamActions = []iamRow{
	{Operation: "ListSecrets", Actions: []string{"secretsmanager:ListSecrets"}},
	{Operation: "DescribeSecret", Actions: []string{"secretsmanager:DescribeSecret"}},
	{Operation: "GetSecretValue", Actions: []string{"secretsmanager:GetSecretValue"}},
	{Operation: "BatchGetSecretValue", Actions: []string{"secretsmanager:BatchGetSecretValue", "secretsmanager:GetSecretValue"}},
	{Operation: "CreateSecret", Actions: []string{"secretsmanager:CreateSecret", "secretsmanager:TagResource"},
		WithReplicas: []string{"secretsmanager:ReplicateSecretToRegions"}},
	{Operation: "PutSecretValue", Actions: []string{"secretsmanager:PutSecretValue"}},
	{Operation: "UpdateSecret", Actions: []string{"secretsmanager:UpdateSecret"}},
	{Operation: "TagResource", Actions: []string{"secretsmanager:TagResource"}},
	{Operation: "UpdateSecretVersionStage", Actions: []string{"secretsmanager:UpdateSecretVersionStage"}},
	{Operation: "RestoreSecret", Actions: []string{"secretsmanager:RestoreSecret"}},
	{Operation: "DeleteSecret", Actions: []string{"secretsmanager:DeleteSecret"}},
	{Operation: "ReplicateSecretToRegions", Actions: []string{"secretsmanager:ReplicateSecretToRegions"}},
	{Operation: "RemoveRegionsFromReplication", Actions: []string{"secretsmanager:RemoveRegionsFromReplication"}},
	{Operation: "DescribeParameters", Actions: []string{"ssm:DescribeParameters"}},
	{Operation: "ListTagsForResource", Actions: []string{"ssm:ListTagsForResource"}},
	{Operation: "GetParameters", Actions: []string{"ssm:GetParameters"}},
	{Operation: "PutParameter", Actions: []string{"ssm:PutParameter", "ssm:AddTagsToResource"}},
	{Operation: "AddTagsToResource", Actions: []string{"ssm:AddTagsToResource"}},
	{Operation: "DeleteParameter", Actions: []string{"ssm:DeleteParameter"}},
	{Operation: "AssumeRole", Actions: []string{"sts:AssumeRole"}},
}

// IAMActions returns the IAM actions a call of the AWS operation needs,
// the operation's own first, then those AWS checks beside it (with
// replicas: those of a call that adds replica Regions); nil for an
// operation the tool does not call. The result is a fresh slice.
func IAMActions(operation string, replicas bool) []string {
	for _, r := range iamActions {
		if r.Operation == operation {
			out := slices.Clone(r.Actions)
			if replicas {
				out = append(out, r.WithReplicas...)
			}
			return out
		}
	}
	return nil
}

// IAMOperations returns the AWS operations of the table, in its order.
func IAMOperations() []string {
	out := make([]string, len(iamActions))
	for i, r := range iamActions {
		out[i] = r.Operation
	}
	return out
}
