#!/bin/sh
# sops-aws-sync in GitLab CI: the script of the CI/CD component's jobs
# (templates/sops-aws-sync/template.yml embeds this file verbatim;
# docs/gitlab-ci.md). POSIX sh: runs under dash, busybox sh and bash.
#
# In:  GL_SOPS_AWS_SYNC_* (the component's inputs, set by the template) and
#      GitLab's predefined CI_* variables.
# Out: the CLI's JSON log records on stdout (the job log), the redacted
#      report, plan file and Markdown plan in $GL_SOPS_AWS_SYNC_OUT (job
#      artifacts), on a merge request the plan as one merge request note;
#      a sync's changes file (changes.json: the secrets it changed, names
#      and ARNs) and changes.env (a dotenv report: status, whether and how
#      many secrets changed, the changes file's path; no name); a scheduled
#      drift check's plan as one issue, closed when AWS matches again.
# Exit: the CLI's exit code (docs/results.md: 0 converged, 2 drift with
#      plan, 3 invalid, 4 conflict, 5 apply or observation failed,
#      6 verification failed, 130 interrupted); 1 when this script refuses
#      to run, a fork's merge request changes secrets unplanned, or the
#      CLI's exit code and its report disagree.
#
# Never printed: a value, the ID token, the note token, the plan's
# Markdown or the CLI's stderr (read by nobody, like the GitHub Action's).
set -u
umask 077

say() { printf 'sops-aws-sync-gitlab: %s\n' "$*"; }
refuse() { say "$1"; exit 1; }

# The tokens leave the environment before anything else runs: no child
# process (the CLI, curl, git) inherits them.
id_token=${GL_SOPS_AWS_SYNC_ID_TOKEN:-}
note_token=${GL_SOPS_AWS_SYNC_NOTE_TOKEN:-}
unset GL_SOPS_AWS_SYNC_ID_TOKEN GL_SOPS_AWS_SYNC_NOTE_TOKEN

mode=${GL_SOPS_AWS_SYNC_MODE:-}
cli=${GL_SOPS_AWS_SYNC_CLI:-sops-aws-sync}
region=${GL_SOPS_AWS_SYNC_AWS_REGION:-}
config=${GL_SOPS_AWS_SYNC_CONFIG_FILE:-}
repo_id=${GL_SOPS_AWS_SYNC_REPOSITORY_ID:-}
out=${GL_SOPS_AWS_SYNC_OUT:-${CI_PROJECT_DIR:-.}/.sops-aws-sync}
sha=${CI_COMMIT_SHA:-}
event=${CI_PIPELINE_SOURCE:-}

case $mode in
plan | sync | drift) ;;
*) refuse "GL_SOPS_AWS_SYNC_MODE must be plan, sync or drift" ;;
esac
# The CLI's command: a drift check is a plan.
cmd=$mode
[ "$mode" != drift ] || cmd=plan
case $sha in
'' | *[!0-9a-f]*) refuse "CI_COMMIT_SHA is not a commit SHA" ;;
esac
command -v "$cli" >/dev/null 2>&1 || refuse "the job's image has no $cli on PATH (docs/gitlab-ci.md, the image)"
if [ "$mode" != plan ]; then
	# A sync writes AWS, a drift check files an issue: only from a branch
	# pipeline, never a merge request's.
	[ "$event" != merge_request_event ] || refuse "$mode never runs in a merge request pipeline"
	[ -n "${CI_COMMIT_BRANCH:-}" ] || refuse "$mode runs only in a branch pipeline (CI_COMMIT_BRANCH is empty)"
fi
if [ -z "$repo_id" ] && [ -z "$config" ]; then
	repo_id=${CI_PROJECT_PATH:-}
	[ -n "$repo_id" ] || refuse "no repository-id input and no CI_PROJECT_PATH"
fi

tmp=$(mktemp -d) || refuse "cannot create a private temporary directory"
trap 'rm -rf "$tmp"' EXIT
if ! mkdir -p "$out" || ! chmod 700 "$out"; then
	refuse "cannot create the output directory"
fi
rm -f "$out/report.json" "$out/plan.json" "$out/plan.md" "$out/changes.json" "$out/changes.env"

# digits N: true when N is 1-19 ASCII digits (a GitLab id).
digits() {
	case $1 in '' | *[!0-9]*) return 1 ;; esac
	[ ${#1} -le 19 ]
}

# clean P: P's "/"-separated segments without the empty and "." ones, each
# ".." dropping the segment before it, a leading "/" kept; ".." when a
# relative P climbs above where it starts. Lexical, as git names a path.
clean() {
	cl_lead='' cl_out='' cl_rest=$1/
	case $1 in /*) cl_lead=/ ;; esac
	while [ -n "$cl_rest" ]; do
		cl_seg=${cl_rest%%/*}
		cl_rest=${cl_rest#*/}
		case $cl_seg in
		'' | .) ;;
		..)
			case $cl_out in
			'') [ -n "$cl_lead" ] || {
				printf '..\n'
				return 0
			} ;;
			*/*) cl_out=${cl_out%/*} ;;
			*) cl_out='' ;;
			esac
			;;
		*) cl_out=${cl_out:+$cl_out/}$cl_seg ;;
		esac
	done
	printf '%s%s\n' "$cl_lead" "$cl_out"
}

# repopath P: the config-file input P (relative to the repository, or an
# absolute path under CI_PROJECT_DIR) as git diff --name-only prints that
# file: ./ci/sync.yaml, ci//sync.yaml and ci/./sync.yaml are all
# ci/sync.yaml. Empty when P names no file of the repository (outside it,
# or its root), which no merge request can change.
repopath() {
	rp_path=$(clean "$1")
	case $rp_path in
	/*)
		rp_root=$(clean "${CI_PROJECT_DIR:-$(pwd)}")
		case $rp_root in /*) ;; *) rp_root=$(clean "$(pwd)/$rp_root") ;; esac
		case $rp_path in
		"$rp_root"/*) rp_path=${rp_path#"$rp_root"/} ;;
		*) rp_path='' ;;
		esac
		;;
	..) rp_path='' ;;
	esac
	printf '%s\n' "$rp_path"
}

# A merge request from a fork gets no plan: its pipeline has no AWS
# access worth the name and its change is untrusted.
fork=false
if [ "$event" = merge_request_event ] && [ "${CI_MERGE_REQUEST_SOURCE_PROJECT_ID:-}" != "${CI_MERGE_REQUEST_PROJECT_ID:-x}" ]; then
	fork=true
fi
[ "$mode" = plan ] || [ "$fork" = false ] || refuse "sync never runs for a fork's merge request"

# The flags every command shares; each only when its input is set.
set -- --repository "${CI_PROJECT_DIR:-.}" --revision "$sha"
[ -z "$repo_id" ] || set -- "$@" "--repository-id=$repo_id"
[ -z "$config" ] || set -- "$@" "--config=$config"
[ -z "${GL_SOPS_AWS_SYNC_SCOPES:-}" ] || set -- "$@" "--scope=$GL_SOPS_AWS_SYNC_SCOPES"
[ -z "${GL_SOPS_AWS_SYNC_SOURCE_ROOT:-}" ] || set -- "$@" "--source-root=$GL_SOPS_AWS_SYNC_SOURCE_ROOT"
[ -z "${GL_SOPS_AWS_SYNC_SECRET_PREFIX:-}" ] || set -- "$@" "--secret-prefix=$GL_SOPS_AWS_SYNC_SECRET_PREFIX"
# With a config file the Region is each scope's: a flag would be refused.
[ -z "$region" ] || [ -n "$config" ] || set -- "$@" "--aws-region=$region"
set -- "$@" --log-format=json "--report-file=$out/report.json" "--plan-file=$out/plan.json"

if [ "$fork" = true ]; then
	say "merge request from a fork: no plan is computed; running validate --no-decrypt (no key, no AWS)"
	# Nothing of the job's environment but PATH and HOME: no key, no
	# credential, no setting the fork's project chose.
	env -i PATH="$PATH" HOME="${HOME:-/tmp}" "$cli" validate "$@" --no-decrypt \
		"--source-roots-file=$tmp/roots.json" </dev/null 2>"$tmp/stderr"
	rc=$?
	[ ! -s "$tmp/stderr" ] || say "warning: sops-aws-sync wrote a diagnostic to stderr (not shown)"
	if [ "$rc" -ne 0 ]; then
		say "sops-aws-sync rejected the configuration or desired state (exit $rc): docs/recovery.md#exit-3--invalid"
		exit "$rc"
	fi
	base=${CI_MERGE_REQUEST_DIFF_BASE_SHA:-}
	command -v jq >/dev/null 2>&1 || refuse "jq is needed to judge a fork's merge request; it changes secrets unless shown otherwise"
	case $base in
	'' | *[!0-9a-f]*) refuse "CI_MERGE_REQUEST_DIFF_BASE_SHA is not a commit SHA: the merge request's files cannot be listed" ;;
	esac
	jq -r '.scopes[].source_root' "$tmp/roots.json" >"$tmp/roots" 2>/dev/null || refuse "the source roots file cannot be read"
	# The config file as git names it: the input's own spelling
	# (./ci/sync.yaml) never equals a listed file (ci/sync.yaml).
	if [ -n "$config" ]; then
		config_path=$(repopath "$config")
		[ -z "$config_path" ] || printf '%s\n' "$config_path" >>"$tmp/roots"
	fi
	git -C "${CI_PROJECT_DIR:-.}" diff --no-renames --name-only "$base" "$sha" >"$tmp/files" 2>/dev/null ||
		refuse "the merge request's files cannot be listed (the base commit is not in the clone: set GIT_DEPTH: 0)"
	while IFS= read -r f; do
		case $f in \"*) refuse "sops-aws-sync computed no plan for a merge request that changes secrets; a maintainer must plan it from a branch" ;; esac
		while IFS= read -r r; do
			case $r in
			. | "$f") hit=true ;;
			*) case $f in "$r"/*) hit=true ;; *) hit=false ;; esac ;;
			esac
			[ "$hit" = false ] || refuse "sops-aws-sync computed no plan for a merge request that changes secrets; a maintainer must plan it from a branch"
		done <"$tmp/roots"
	done <"$tmp/files"
	say "no plan was computed (a fork's merge request) and it changes no file the scopes read"
	exit 0
fi

# AWS by OIDC: the job's ID token goes to a private file for the SDK's
# default chain (AssumeRoleWithWebIdentity with AWS_ROLE_ARN). plan may
# use a read-only role of its own.
role=${GL_SOPS_AWS_SYNC_ROLE_ARN:-}
if [ "$cmd" = plan ] && [ -n "${GL_SOPS_AWS_SYNC_PLAN_ROLE_ARN:-}" ]; then
	role=$GL_SOPS_AWS_SYNC_PLAN_ROLE_ARN
fi
if [ -n "$role" ]; then
	[ -n "$id_token" ] || refuse "oidc-role-arn is set but the job has no ID token (id_tokens: GL_SOPS_AWS_SYNC_ID_TOKEN)"
	printf '%s' "$id_token" >"$tmp/web-identity-token"
	AWS_WEB_IDENTITY_TOKEN_FILE=$tmp/web-identity-token
	AWS_ROLE_ARN=$role
	# The session name CloudTrail shows: the tool and the run, never a
	# secret; it starts sops-aws-sync- like every session the tool names,
	# and fits STS's 64 characters (two ids of 19 digits make 62).
	AWS_ROLE_SESSION_NAME=sops-aws-sync-oidc
	if digits "${CI_PIPELINE_ID:-}" && digits "${CI_JOB_ID:-}"; then
		AWS_ROLE_SESSION_NAME=sops-aws-sync-oidc@gl-$CI_PIPELINE_ID-$CI_JOB_ID
	fi
	export AWS_WEB_IDENTITY_TOKEN_FILE AWS_ROLE_ARN AWS_ROLE_SESSION_NAME
fi
id_token=
[ -z "$region" ] || export AWS_REGION="$region"

# curl_api METHOD URL BODY_FILE OUT_FILE: the HTTP status, the token only
# from its file (never an argument), no redirect followed.
curl_api() {
	if [ -n "$3" ]; then
		curl -sS --max-time 30 -X "$1" -H @"$tmp/auth" -H 'Content-Type: application/json' \
			--data-binary @"$3" -D "$tmp/headers" -o "$4" -w '%{http_code}' "$2" 2>/dev/null
	else
		curl -sS --max-time 30 -X "$1" -H @"$tmp/auth" -D "$tmp/headers" -o "$4" -w '%{http_code}' "$2" 2>/dev/null
	fi
}

# reviewed_plan: fetches into $tmp/reviewed.json the plan file the plan job
# of the merge request merged as this commit left in its artifacts (the
# same component name, so the same scope), as the reviewer saw it. Fails
# (with the reason on stdout) when there is none to be had.
reviewed_plan() {
	for tool in curl jq; do
		command -v "$tool" >/dev/null 2>&1 || {
			echo "the job's image has no $tool"
			return 1
		}
	done
	[ -n "$note_token" ] || {
		echo "GL_SOPS_AWS_SYNC_NOTE_TOKEN is not set"
		return 1
	}
	api=${CI_API_V4_URL:-}
	if ! digits "${CI_PROJECT_ID:-}" || [ -z "$api" ]; then
		echo "CI_PROJECT_ID or CI_API_V4_URL is unusable"
		return 1
	fi
	printf 'PRIVATE-TOKEN: %s\n' "$note_token" >"$tmp/auth"
	code=$(curl_api GET "$api/projects/$CI_PROJECT_ID/repository/commits/$sha/merge_requests" "" "$tmp/mrs.json")
	[ "$code" = 200 ] || {
		echo "listing the merge requests of the commit returned HTTP $code"
		return 1
	}
	iid=$(jq -r '[.[] | select(.state == "merged")][0].iid // empty' "$tmp/mrs.json" 2>/dev/null)
	digits "$iid" || {
		echo "no merged merge request has this commit (a direct push?)"
		return 1
	}
	job=${GL_SOPS_AWS_SYNC_JOB_PREFIX:-sops-aws-sync}-plan
	rel=${out#"${CI_PROJECT_DIR:-.}"/}
	code=$(curl_api GET "$api/projects/$CI_PROJECT_ID/jobs/artifacts/refs%2Fmerge-requests%2F$iid%2Fhead/raw/$rel/plan.json?job=$job" "" "$tmp/reviewed.json")
	[ "$code" = 200 ] || {
		echo "merge request !$iid has no plan artifact of job $job (HTTP $code: expired, or the plan job did not run)"
		return 1
	}
	echo "$iid"
}

# --max-deletions is one number for one scope: with a config file of
# several scopes the CLI cannot tell which scope it is for.
if [ -n "${GL_SOPS_AWS_SYNC_MAX_DELETIONS:-}" ] && [ -n "$config" ]; then
	case ${GL_SOPS_AWS_SYNC_SCOPES:-} in
	'' | *,*) refuse "max-deletions with config-file needs scopes to name one scope; for several scopes set max-deletions in each scope's entry of the config file (docs/gitlab-ci.md, max-deletions)" ;;
	esac
fi

set -- "$cmd" "$@"
[ "$cmd" != plan ] || set -- "$@" --detailed-exit-code
[ "$mode" != sync ] || set -- "$@" "--changes-file=$out/changes.json"
# The reviewed plan: a sync of the default branch applies exactly the plan
# of the merge request merged as this commit when there is one; with
# require-reviewed-plan, none found fails the job before the CLI runs.
if [ "$mode" = sync ]; then
	if found=$(reviewed_plan); then
		set -- "$@" "--reviewed-plan=$tmp/reviewed.json"
		say "applying the plan reviewed on merge request !$found"
	elif [ "${GL_SOPS_AWS_SYNC_REQUIRE_REVIEWED_PLAN:-false}" = true ]; then
		refuse "require-reviewed-plan: no reviewed plan to apply ($found); nothing was run (docs/gitlab-ci.md, the reviewed plan)"
	else
		say "no reviewed plan ($found): the sync applies the plan of this commit as it is"
	fi
fi
[ "${GL_SOPS_AWS_SYNC_SHOW_RESOURCE_NAMES:-false}" != true ] || set -- "$@" --show-resource-names=true
[ -z "${GL_SOPS_AWS_SYNC_MAX_DELETIONS:-}" ] || set -- "$@" "--max-deletions=$GL_SOPS_AWS_SYNC_MAX_DELETIONS"

say "running sops-aws-sync $cmd of commit $sha"
"$cli" "$@" </dev/null 2>"$tmp/stderr"
rc=$?
[ ! -s "$tmp/stderr" ] || say "warning: sops-aws-sync wrote a diagnostic to stderr (not shown)"

# The job's outcome is the CLI's exit code; one line says what it means
# and where the recovery guide starts.
case $rc in
0) say "done (exit 0)" ;;
2)
	if [ "$mode" = drift ]; then
		say "sops-aws-sync plan detected drift (exit 2): AWS differs from the default branch; the plan is in the drift issue and the artifacts"
	else
		say "sops-aws-sync plan detected drift (exit 2): merging changes AWS; the plan is in the merge request note and the artifacts"
	fi
	;;
3) say "sops-aws-sync rejected the configuration or desired state (exit 3): docs/recovery.md#exit-3--invalid" ;;
4) say "sops-aws-sync found an ownership or observed-state conflict (exit 4): docs/recovery.md#exit-4--conflict" ;;
5) say "sops-aws-sync apply did not complete safely (exit 5): docs/recovery.md#exit-5--apply-failed-or-observation-failed" ;;
6) say "sops-aws-sync verification did not converge (exit 6): docs/recovery.md#exit-6--verification-failed-or-verification-inconclusive" ;;
130) say "sops-aws-sync was interrupted (exit 130): docs/recovery.md#exit-130--interrupted" ;;
*) say "sops-aws-sync ended with exit $rc, which it never returns: a version skew or a crash; see the report artifact" ;;
esac

# report_disagrees: why the CLI's exit code ($rc) and its report's status
# and verification tell different stories (the GitHub Action's check,
# docs/results.md's table: a CLI of another release than the component
# expects); nothing when they agree or cannot be compared.
report_disagrees() {
	if [ ! -f "$out/report.json" ]; then
		# Exit 3 may come before the report could be written.
		[ "$rc" -eq 3 ] || printf 'exit %s but no report\n' "$rc"
		return 0
	fi
	command -v jq >/dev/null 2>&1 || {
		say "warning: the job's image has no jq: the report is not checked against the exit code"
		return 0
	}
	st=$(jq -r '.status // empty' "$out/report.json" 2>/dev/null)
	ver=$(jq -r '.verification // empty' "$out/report.json" 2>/dev/null)
	case $cmd/$rc/$st in
	*/0/converged | plan/2/drift | */3/invalid | */4/conflict | */5/apply-failed | */5/observation-failed | */5/unreachable) ;;
	sync/6/verification-failed | sync/6/verification-inconclusive | */130/interrupted) ;;
	*)
		printf 'exit %s does not allow status %s\n' "$rc" "${st:-(none)}"
		return 0
		;;
	esac
	want=not-run
	if [ "$mode" = sync ]; then
		case $st in
		converged) want=converged ;;
		verification-failed) want=failed ;;
		verification-inconclusive) want=inconclusive ;;
		esac
	fi
	[ "$ver" = "$want" ] || printf 'status %s with verification %s\n' "$st" "${ver:-(none)}"
}

skew=$(report_disagrees)
if [ -n "$skew" ]; then
	say "the CLI's exit status and its redacted report disagree ($skew): pin the component and the image's sops-aws-sync to one release (docs/recovery.md#the-action-says-the-exit-status-and-report-disagree)"
fi

# A sync's changes for downstream jobs: the changes file (artifact,
# developers only: it names secrets) and a dotenv report of what carries
# no name.
if [ "$mode" = sync ]; then
	changed=unknown count=
	if [ -f "$out/changes.json" ] && command -v jq >/dev/null 2>&1; then
		count=$(jq -r '.changes | length' "$out/changes.json" 2>/dev/null)
		case $count in
		'' | *[!0-9]*) count= ;;
		0) changed=false ;;
		*) changed=true ;;
		esac
	fi
	rel=${out#"${CI_PROJECT_DIR:-.}"/}
	{
		printf 'GL_SOPS_AWS_SYNC_RESULT_STATUS=%s\n' "$(jq -r '.status // empty' "$out/report.json" 2>/dev/null)"
		printf 'GL_SOPS_AWS_SYNC_RESULT_CHANGED=%s\n' "$changed"
		printf 'GL_SOPS_AWS_SYNC_RESULT_CHANGE_COUNT=%s\n' "$count"
		if [ -f "$out/changes.json" ]; then
			printf 'GL_SOPS_AWS_SYNC_RESULT_CHANGES_FILE=%s/changes.json\n' "$rel"
		fi
	} >"$out/changes.env"
fi

# The plan in Markdown, rendered by the CLI itself from its plan file.
if [ -f "$out/plan.json" ] && "$cli" show "$out/plan.json" --format=markdown --max-bytes=990000 >"$out/plan.md" 2>/dev/null && [ -s "$out/plan.md" ]; then
	:
else
	rm -f "$out/plan.md"
	[ ! -f "$out/plan.json" ] || say "warning: sops-aws-sync could not render its plan file"
fi

# note_fail REASON: the note is not the job's result: a warning and the reason.
note_fail() {
	say "warning: sops-aws-sync could not post the plan note on the merge request: $1"
	return 1
}

# scope_digest: what the run writes to, hashed so that no prefix, role or
# account shows in a note or an issue.
scope_digest() {
	jq -cn --arg repo "$repo_id" --arg root "${GL_SOPS_AWS_SYNC_SOURCE_ROOT:-}" \
		--arg prefix "${GL_SOPS_AWS_SYNC_SECRET_PREFIX:-}" --arg region "$region" --arg role "$role" \
		--arg config "$config" --arg scopes "${GL_SOPS_AWS_SYNC_SCOPES:-}" \
		'["sops-aws-sync/gitlab-scope/v1",$repo,$root,$prefix,$region,$role,$config,$scopes]' | sha256sum | cut -c1-16
}

# post_note: edits the oldest note of this run's marker that the token's
# own user wrote, or creates one; never another user's note.
post_note() {
	for tool in curl jq sha256sum; do
		command -v "$tool" >/dev/null 2>&1 || note_fail "the job's image has no $tool" || return 1
	done
	api=${CI_API_V4_URL:-}
	case ${CI_PROJECT_ID:-}/${CI_MERGE_REQUEST_IID:-} in
	*[!0-9/]* | /* | */) note_fail "CI_PROJECT_ID or CI_MERGE_REQUEST_IID is not a number"; return 1 ;;
	esac
	[ -n "$api" ] || { note_fail "CI_API_V4_URL is empty"; return 1; }
	notes=$api/projects/$CI_PROJECT_ID/merge_requests/$CI_MERGE_REQUEST_IID/notes
	# The marker: what the run writes to, hashed so that no prefix, role or
	# account shows in the note.
	digest=$(scope_digest)
	marker="<!-- sops-aws-sync:plan:$digest -->"
	code=$(curl_api GET "$api/user" "" "$tmp/user.json")
	[ "$code" = 200 ] || { note_fail "reading the token's user returned HTTP $code"; return 1; }
	me=$(jq -r '.id // empty' "$tmp/user.json" 2>/dev/null)
	digits "$me" || { note_fail "the token's user has no id"; return 1; }
	found=
	page=1
	while [ "$page" -le 100 ]; do
		code=$(curl_api GET "$notes?sort=asc&order_by=created_at&per_page=100&page=$page" "" "$tmp/notes.json")
		[ "$code" = 200 ] || { note_fail "listing the merge request's notes returned HTTP $code"; return 1; }
		found=$(jq -r --arg m "$marker" --argjson me "$me" \
			'[.[] | select(.author.id == $me and .system != true and ((.body // "") as $b | $b == $m or ($b | startswith($m + "\n"))))][0].id // empty' \
			"$tmp/notes.json" 2>/dev/null) || { note_fail "the notes list is not JSON"; return 1; }
		[ -z "$found" ] || break
		next=$(tr -d '\r' <"$tmp/headers" | sed -n 's/^[Xx]-[Nn]ext-[Pp]age: *//p')
		[ -n "$next" ] || break
		page=$((page + 1))
	done
	{ printf '%s\n' "$marker"; cat "$out/plan.md"; } >"$tmp/body.md"
	jq -n --rawfile b "$tmp/body.md" '{body: $b}' >"$tmp/request.json" || { note_fail "the note body cannot be encoded"; return 1; }
	if digits "$found"; then
		code=$(curl_api PUT "$notes/$found" "$tmp/request.json" "$tmp/answer.json")
		[ "$code" = 200 ] || { note_fail "editing the note returned HTTP $code"; return 1; }
		say "plan note updated on merge request !$CI_MERGE_REQUEST_IID"
	else
		code=$(curl_api POST "$notes" "$tmp/request.json" "$tmp/answer.json")
		[ "$code" = 201 ] || { note_fail "creating the note returned HTTP $code"; return 1; }
		say "plan note created on merge request !$CI_MERGE_REQUEST_IID"
	fi
}

# issue_fail REASON: the issue is not the job's result: a warning and the reason.
issue_fail() {
	say "warning: sops-aws-sync could not update the drift issue: $1"
	return 1
}

# drift_issue: keeps one open issue of this scope's marker, written by the
# token's own user and labelled sops-aws-sync-drift: on drift (exit 2) it
# is created, or edited when the plan changed (so too on exit 5 when the
# plan skipped unreachable scopes, which its rendering names); when AWS
# matches (exit 0) it is closed; any other exit leaves it as it is (the
# job fails instead).
drift_issue() {
	for tool in curl jq sha256sum; do
		command -v "$tool" >/dev/null 2>&1 || issue_fail "the job's image has no $tool" || return 1
	done
	api=${CI_API_V4_URL:-}
	digits "${CI_PROJECT_ID:-}" || { issue_fail "CI_PROJECT_ID is not a number"; return 1; }
	[ -n "$api" ] || { issue_fail "CI_API_V4_URL is empty"; return 1; }
	issues=$api/projects/$CI_PROJECT_ID/issues
	marker="<!-- sops-aws-sync:drift:$(scope_digest) -->"
	code=$(curl_api GET "$api/user" "" "$tmp/user.json")
	[ "$code" = 200 ] || { issue_fail "reading the token's user returned HTTP $code"; return 1; }
	me=$(jq -r '.id // empty' "$tmp/user.json" 2>/dev/null)
	digits "$me" || { issue_fail "the token's user has no id"; return 1; }
	found='' current=''
	page=1
	while [ "$page" -le 100 ]; do
		code=$(curl_api GET "$issues?state=opened&labels=sops-aws-sync-drift&sort=asc&order_by=created_at&per_page=100&page=$page" "" "$tmp/issues.json")
		[ "$code" = 200 ] || { issue_fail "listing the project's issues returned HTTP $code"; return 1; }
		found=$(jq -r --arg m "$marker" --argjson me "$me" \
			'[.[] | select(.author.id == $me and ((.description // "") as $d | $d == $m or ($d | startswith($m + "\n"))))][0].iid // empty' \
			"$tmp/issues.json" 2>/dev/null) || { issue_fail "the issues list is not JSON"; return 1; }
		if [ -n "$found" ]; then
			jq -r --argjson iid "$found" '.[] | select(.iid == $iid) | .description // ""' "$tmp/issues.json" >"$tmp/current.md" 2>/dev/null
			break
		fi
		next=$(tr -d '\r' <"$tmp/headers" | sed -n 's/^[Xx]-[Nn]ext-[Pp]age: *//p')
		[ -n "$next" ] || break
		page=$((page + 1))
	done
	if [ "$rc" -eq 0 ]; then
		digits "$found" || return 0
		printf '{"state_event":"close"}' >"$tmp/request.json"
		code=$(curl_api PUT "$issues/$found" "$tmp/request.json" "$tmp/answer.json")
		[ "$code" = 200 ] || { issue_fail "closing the issue returned HTTP $code"; return 1; }
		say "drift issue #$found closed: AWS matches the default branch"
		return 0
	fi
	{ printf '%s\n' "$marker"; cat "$out/plan.md"; } >"$tmp/body.md"
	if digits "$found"; then
		# Compared without trailing newlines (jq -r adds one).
		if [ "$(cat "$tmp/body.md")" = "$(cat "$tmp/current.md")" ]; then
			say "drift issue #$found already shows this plan"
			return 0
		fi
		jq -n --rawfile b "$tmp/body.md" '{description: $b}' >"$tmp/request.json" || { issue_fail "the issue body cannot be encoded"; return 1; }
		code=$(curl_api PUT "$issues/$found" "$tmp/request.json" "$tmp/answer.json")
		[ "$code" = 200 ] || { issue_fail "editing the issue returned HTTP $code"; return 1; }
		say "drift issue #$found updated"
	else
		jq -n --rawfile b "$tmp/body.md" --arg t "sops-aws-sync: AWS differs from the default branch" \
			'{title: $t, description: $b, labels: "sops-aws-sync-drift"}' >"$tmp/request.json" || { issue_fail "the issue body cannot be encoded"; return 1; }
		code=$(curl_api POST "$issues" "$tmp/request.json" "$tmp/answer.json")
		[ "$code" = 201 ] || { issue_fail "creating the issue returned HTTP $code"; return 1; }
		say "drift issue created"
	fi
}

# A plan that skipped unreachable scopes (exit 5, status unreachable:
# --max-unreachable-scopes, SPEC §17) planned the scopes it reached; its
# issue is kept as for drift, the rendering naming the skipped scopes.
unreachable=false
if [ "$rc" -eq 5 ] && [ -z "$skew" ] && command -v jq >/dev/null 2>&1 &&
	[ "$(jq -r '.status // empty' "$out/report.json" 2>/dev/null)" = unreachable ]; then
	unreachable=true
fi
if [ "$mode" = drift ] && [ "${GL_SOPS_AWS_SYNC_DRIFT_ISSUE:-true}" = true ] && { [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ] || [ "$unreachable" = true ]; }; then
	if [ "$rc" -ne 0 ] && [ ! -f "$out/plan.md" ]; then
		say "no rendered plan: the drift issue is left as it is"
	elif [ -z "$note_token" ]; then
		say "no drift issue: GL_SOPS_AWS_SYNC_NOTE_TOKEN is not set (docs/gitlab-ci.md)"
	else
		printf 'PRIVATE-TOKEN: %s\n' "$note_token" >"$tmp/auth"
		drift_issue || :
	fi
fi

if [ "$mode" = plan ] && [ "$event" = merge_request_event ] && [ "${GL_SOPS_AWS_SYNC_NOTE:-true}" = true ]; then
	if [ ! -f "$out/plan.md" ]; then
		say "no rendered plan: no merge request note"
	elif [ -z "$note_token" ]; then
		say "no merge request note: GL_SOPS_AWS_SYNC_NOTE_TOKEN is not set (docs/gitlab-ci.md)"
	else
		printf 'PRIVATE-TOKEN: %s\n' "$note_token" >"$tmp/auth"
		post_note || :
	fi
fi
note_token=
[ -z "$skew" ] || exit 1
exit "$rc"
