#!/usr/bin/env bash
# The whole job on a laptop, with no AWS account (README quick start,
# `make demo`): build the CLI and the Secrets Manager emulator, start the
# emulator on a free loopback port, make a throwaway Git repository with a
# fresh age key and sample JSON / YAML / dotenv documents encrypted by the
# real sops CLI, then run plan, sync, an out-of-band edit followed by a
# repairing sync, and a file removal followed by a sync that schedules the
# deletion — printing each report. Then the same documents go to Parameter
# Store (target parameter-store, SPEC §16): plan, sync as SecureString
# parameters, a converged plan, and a removal that deletes at once.
# Everything is cleaned up on exit.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
GO="${GO:-go}"
SOPS_VERSION="${SOPS_VERSION:-v3.13.3}"
BIN="$ROOT/bin"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/sops-aws-sync-demo.XXXXXX")"
EMU_PID=""

cleanup() {
	if [[ -n "$EMU_PID" ]]; then
		kill "$EMU_PID" 2>/dev/null || true
		wait "$EMU_PID" 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "building sops-aws-sync, the emulator and the demo helper into $BIN"
mkdir -p "$BIN"
VERSION="$(git -C "$ROOT" describe --tags --always --dirty 2>/dev/null || echo dev)"
COMMIT="$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
DATE="$(git -C "$ROOT" log -1 --format=%cI 2>/dev/null || echo unknown)"
(cd "$ROOT" &&
	"$GO" build -ldflags "-X main.version=$VERSION -X main.commit=$COMMIT -X main.date=$DATE" -o "$BIN/sops-aws-sync" ./cmd/sops-aws-sync &&
	"$GO" build -o "$BIN/secretsmanager-emulator" ./cmd/secretsmanager-emulator &&
	"$GO" build -o "$BIN/demotool" ./scripts/demotool)
"$BIN/sops-aws-sync" version

SOPS="$(command -v sops || true)"
if [[ -z "$SOPS" ]]; then
	SOPS="$("$GO" env GOPATH)/bin/sops"
	if [[ ! -x "$SOPS" ]]; then
		say "installing sops $SOPS_VERSION from the Go module proxy"
		"$GO" install "github.com/getsops/sops/v3/cmd/sops@$SOPS_VERSION"
	fi
fi

say "starting the Secrets Manager emulator on a free loopback port"
"$BIN/secretsmanager-emulator" --listen 127.0.0.1:0 >"$WORK/emulator.out" 2>"$WORK/emulator.err" &
EMU_PID=$!
URL=""
for _ in $(seq 1 100); do
	if read -r line <"$WORK/emulator.out" 2>/dev/null && [[ "$line" == "listening on "* ]]; then
		URL="${line#listening on }"
		break
	fi
	sleep 0.1
done
[[ -n "$URL" ]] || { echo "emulator did not start" >&2; cat "$WORK/emulator.err" >&2; exit 1; }
echo "emulator at $URL"

say "creating a throwaway Git repository with a fresh age key and three SOPS documents"
export HOME="$WORK/home" GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME" "$WORK/repo/secrets/payments"
RECIPIENT="$("$BIN/demotool" keygen "$WORK/age.key")"
export SOPS_AGE_KEY_FILE="$WORK/age.key"
cd "$WORK/repo"
git init -q -b main
git config user.email demo@example.invalid
git config user.name demo
printf '{"username": "app", "password": "demo-db-password", "port": 5432}\n' >secrets/database.sops.json
printf 'api_key: demo-api-key\nendpoints:\n  primary: https://api.example.invalid\n' >secrets/payments/gateway.sops.yaml
printf 'SMTP_USER=mailer\nSMTP_PASSWORD=demo-smtp-password\n' >secrets/mail.sops.env
for f in secrets/database.sops.json secrets/payments/gateway.sops.yaml secrets/mail.sops.env; do
	"$SOPS" --disable-version-check encrypt --in-place --age "$RECIPIENT" "$f"
done
git add -A && git commit -q -m "add encrypted documents"
echo "committed $(git rev-parse --short HEAD):"
git ls-files | sed 's/^/  /'

# The CLI finds the emulator through the SDK's standard endpoint variable;
# the credentials are dummies (the emulator does not check signatures).
export AWS_ENDPOINT_URL_SECRETS_MANAGER="$URL" AWS_ENDPOINT_URL_SSM="$URL" AWS_REGION=us-east-1 \
	AWS_ACCESS_KEY_ID=demo AWS_SECRET_ACCESS_KEY=demo AWS_EC2_METADATA_DISABLED=true \
	AWS_CONFIG_FILE="$WORK/no-aws-config" AWS_SHARED_CREDENTIALS_FILE="$WORK/no-aws-credentials"
PREFIX="demo/app"
COMMON=(--repository "$WORK/repo" --repository-id demo/repo --secret-prefix "$PREFIX" --log-format text --report-file "$WORK/report.json")

# step TITLE EXPECTED_EXIT COMMAND [FLAGS...]: run the CLI, print its logs
# and the report, and stop the demo if the exit code is not the expected one.
step() {
	local title="$1" want="$2"
	shift 2
	say "$title"
	echo "\$ sops-aws-sync $*"
	set +e
	"$BIN/sops-aws-sync" "$@" "${COMMON[@]}"
	local code=$?
	set -e
	echo "-- exit code $code; report:"
	cat "$WORK/report.json"
	if [[ "$code" != "$want" ]]; then
		echo "demo: expected exit code $want, got $code" >&2
		exit 1
	fi
	show_state
}

# show_state prints what the emulator holds under the current scope's
# prefix: secrets, or parameters once TARGET is parameter-store.
TARGET=secrets-manager
show_state() {
	if [[ "$TARGET" == parameter-store ]]; then
		echo "-- Parameter Store (emulator) now holds:"
		"$BIN/demotool" show-params "$URL" "/$PREFIX/"
	else
		echo "-- AWS (emulator) now holds:"
		"$BIN/demotool" show "$URL" "$PREFIX/"
	fi
}

step "1. plan (read-only): three secrets to create; --detailed-exit-code exits 2 on drift" 2 plan --detailed-exit-code
step "2. sync: create the three secrets, then verify by re-observation" 0 sync
step "3. plan again: converged, nothing to do" 0 plan --detailed-exit-code

say "4. someone edits a managed secret out of band (directly in AWS)"
"$BIN/demotool" put "$URL" "$PREFIX/database" '{"password":"edited-in-the-console"}'
"$BIN/demotool" show "$URL" "$PREFIX/"
step "5. sync repairs the drift: one update back to the committed value" 0 sync

say "6. a document is removed from the repository and committed"
git rm -q secrets/mail.sops.env && git commit -q -m "remove mail credentials"
step "7. sync schedules the deletion (7-day recovery window, never a force delete)" 0 sync --recovery-window-days 7

# Parameter Store: the same listener serves it; a second scope, its own
# prefix, target parameter-store. Each document becomes one SecureString
# parameter named "/" + the secret name, in the standard tier, encrypted
# with AWS's managed key alias/aws/ssm.
PREFIX="demo/params" TARGET=parameter-store
COMMON=(--repository "$WORK/repo" --repository-id demo/repo --secret-prefix "$PREFIX" --target parameter-store --log-format text --report-file "$WORK/report.json")
step "8. Parameter Store: plan the committed documents as SecureString parameters under /$PREFIX" 2 plan --detailed-exit-code
step "9. sync to Parameter Store: create, then verify by re-observation" 0 sync
step "10. plan again: converged" 0 plan --detailed-exit-code

say "11. another document is removed and committed"
git rm -q secrets/payments/gateway.sops.yaml && git commit -q -m "remove the payment gateway key"
step "12. sync deletes its parameter at once (Parameter Store has no recovery window; counted against --max-deletions)" 0 sync --max-deletions 1

say "done: stopping the emulator and removing $WORK"
