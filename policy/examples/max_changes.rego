# At most max_changes changes in one plan (every scope together): a plan
# that restores, creates, adopts, updates or deletes more is denied, so a
# large change is split into reviewable ones. Set the limit in a data
# file beside the policies ({"limits": {"max_changes": 25}}); 20 when
# none is given.
#
# Input: the plan file's operations (unchanged and conflict are no
# change).
package main

import rego.v1

default max_changes := 20

max_changes := data.limits.max_changes

change_actions := {"restore", "create", "adopt", "update", "schedule-delete"}

planned_changes := [op |
	some scope in input.scopes
	some op in scope.operations
	op.action in change_actions
]

deny contains msg if {
	count(planned_changes) > max_changes
	msg := sprintf("the plan holds %d changes, more than %d: split the change", [count(planned_changes), max_changes])
}
