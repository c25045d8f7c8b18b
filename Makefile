# sops-aws-sync — build, test, demo, bench, chaos, release.
# Every target works on a fresh machine with only Go installed (plus Node for
# the Action's tests); `make tools` installs the pinned sops CLI if missing.

GO            ?= go
SOPS_VERSION  ?= v3.13.3
# local-kms serves the AWS KMS API on loopback for the decrypt:key-service tests.
LOCAL_KMS_VERSION ?= v0.0.0-20260228092603-2a5e92d09ab6
GOBIN         := $(shell $(GO) env GOPATH)/bin
BIN           := $(CURDIR)/bin
VERSION       ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT        ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
DATE          ?= $(shell git log -1 --format=%cI 2>/dev/null || echo unknown)
LDFLAGS       := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)
export PATH   := $(GOBIN):$(PATH)

.PHONY: all build tools test fmt-check test-go test-action test-action-ci test-gitlab-schema fuzz demo bench bench-scale bench-ps bench-import bench-accounts bench-validate bench-figures chaos release-snapshot image packages clean

all: build

## build: the CLI, the emulator and the demo helper (age key generation: bin/demotool keygen FILE) into ./bin
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/sops-aws-sync ./cmd/sops-aws-sync
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/secretsmanager-emulator ./cmd/secretsmanager-emulator
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/demotool ./scripts/demotool

## tools: install the pinned sops CLI and local-kms (from the Go module proxy) if missing
tools:
	@if sops --disable-version-check --version 2>/dev/null | grep -q "$(SOPS_VERSION:v%=%)"; then \
		echo "sops $(SOPS_VERSION) present"; \
	else \
		echo "installing sops $(SOPS_VERSION)"; \
		$(GO) install github.com/getsops/sops/v3/cmd/sops@$(SOPS_VERSION); \
	fi
	@if [ -x "$(GOBIN)/local-kms" ] || command -v local-kms >/dev/null 2>&1; then \
		echo "local-kms present"; \
	else \
		echo "installing local-kms $(LOCAL_KMS_VERSION)"; \
		$(GO) install github.com/nsmithuk/local-kms@$(LOCAL_KMS_VERSION); \
	fi

## test: gofmt check first, then every test, race detector on (the README's test command)
test: fmt-check tools test-go

## fmt-check: fails, listing them, when gofmt would change any Go file of the repository
##   (tracked or new, not ignored) outside vendor/ and testdata/ (fixtures may be unformatted
##   on purpose); fix with gofmt -w FILE
fmt-check:
	@files=$$(git ls-files --cached --others --exclude-standard -- '*.go' ':(exclude)vendor/**' ':(exclude,glob)**/testdata/**' | xargs -r "$$($(GO) env GOROOT)/bin/gofmt" -l) || { echo "gofmt failed (a file it cannot parse?)"; exit 1; }; \
	if [ -n "$$files" ]; then echo "gofmt -l lists these files (run gofmt -w on them):"; echo "$$files"; exit 1; fi

test-go:
	$(GO) test -race -count=1 -timeout 30m ./...

## test-action: the GitHub Action's lint, dist-up-to-date check, unit and end-to-end tests (Node 20+)
test-action: tools
	cd action && npm ci --no-audit --no-fund && npm test

## test-action-ci: what .ci/run checks of the Action: lint, dist up to date, unit tests and the
##   end-to-end suite against a stand-in release (no four-platform cross-build; the real-release
##   suite runs in `make test-action` and in the GitHub CI workflow's action job)
test-action-ci:
	cd action && npm ci --no-audit --no-fund && npm run lint && npm run check-dist && \
		npx vitest run test/unit && npx vitest run test/e2e -t 'stand-in CLI release|release script'

## test-gitlab-schema: the GitLab CI/CD component (templates/sops-aws-sync/template.yml) against
##   GitLab's CI JSON schema as the gitlab-ci-local npm package bundles it (docs/gitlab-ci.md)
test-gitlab-schema:
	cd scripts/gitlabschema && npm ci --no-audit --no-fund && npm run -s check

## release-snapshot: reproducible release binaries + checksums.txt into dist/ (scripts/release.sh)
release-snapshot:
	RELEASE_VERSION='$(RELEASE_VERSION)' RELEASE_DIST='$(or $(RELEASE_DIST),dist)' ./scripts/release.sh

## packages: the aqua registry (also mise's) and the Homebrew formula, generated from release-snapshot's
##   checksums.txt into dist/ (scripts/pkgmeta; docs/package-managers.md). The aqua registry is also
##   committed as packaging/aqua/registry.yaml: copy dist/aqua-registry.yaml there when platforms change.
packages: release-snapshot
	$(GO) run ./scripts/pkgmeta -dist '$(or $(RELEASE_DIST),dist)' -out '$(or $(RELEASE_DIST),dist)'

## image: the container image from release-snapshot's linux binaries, without Docker: an OCI image
##   layout in dist/image (one index, linux/amd64 + linux/arm64; prints its digest). Same commit,
##   same digest (docs/container-image.md). Load it with e.g. `skopeo copy oci:dist/image ...`.
image: release-snapshot
	$(GO) run ./scripts/containerimage build -dist '$(or $(RELEASE_DIST),dist)' -out '$(or $(RELEASE_DIST),dist)/image' \
		-commit "$$(git rev-parse HEAD)" -created "$$(git log -1 --format=%cI HEAD)"

## --- emulator (internal/emulator, cmd/secretsmanager-emulator; docs/emulator.md) ---
.PHONY: emulator-run emulator-test emulator-fuzz emulator-bench
EMULATOR_FUZZTIME ?= 60s

## emulator-run: build and serve the Secrets Manager emulator on 127.0.0.1:4566 (FLAGS=... for faults)
emulator-run:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/secretsmanager-emulator ./cmd/secretsmanager-emulator
	$(BIN)/secretsmanager-emulator --listen 127.0.0.1:4566 $(FLAGS)

## emulator-test: the emulator's conformance, fault, control-API and command tests (race detector on)
emulator-test:
	$(GO) test -race -count=1 ./internal/emulator/... ./cmd/secretsmanager-emulator/...

## emulator-fuzz: fuzz the emulator's API and control requests and the core's request decoding (EMULATOR_FUZZTIME each)
emulator-fuzz:
	$(GO) test -run XXX -fuzz FuzzServeAPI -fuzztime $(EMULATOR_FUZZTIME) -fuzzminimizetime 5s ./internal/emulator/
	$(GO) test -run XXX -fuzz FuzzControl -fuzztime $(EMULATOR_FUZZTIME) -fuzzminimizetime 5s ./internal/emulator/
	$(GO) test -run XXX -fuzz FuzzServeOrganizations -fuzztime $(EMULATOR_FUZZTIME) -fuzzminimizetime 5s ./internal/emulator/
	$(GO) test -run XXX -fuzz FuzzOp -fuzztime $(EMULATOR_FUZZTIME) -fuzzminimizetime 5s ./internal/emulator/core/
	$(GO) test -run XXX -fuzz FuzzParseSigScope -fuzztime $(EMULATOR_FUZZTIME) -fuzzminimizetime 5s ./internal/emulator/core/

## emulator-bench: the emulator's per-call cost (figures in docs/emulator.md)
emulator-bench:
	$(GO) test -run XXX -bench . -benchtime 5000x -count 1 ./internal/emulator/

## --- bench (bench/; docs/benchmarks.md) ---
## bench: issue 7's benchmark in one run (~30 min; results into docs/benchmarks.md).
##   Overrides: N=1000,10000 (no-op sizes)  CREATE_N=2000  CHANGED_N=10000  SEQ_MAX_N=10000
##   (--concurrency 1 only up to this N)  SWEEP=1,4,8,16,24,32,64  LATENCY=20ms  QUICK=1 (a few minutes)
##   ONLY=quota / SKIP=changed,... (row groups: noop sweep changed create quota-create quota-noop quota regions;
##   with ONLY the results are printed, not written into docs/benchmarks.md)
##   BASELINE=REV (also build the CLI at git revision REV and run its no-op sync at the largest N, default
##   concurrency, alternately with the current CLI: CPU per 1,000 secrets before/after in the same run)
##   BENCH_ARGS=... (any other flag of go run ./bench/cmd/bench -h)
BASELINE ?=
bench: tools
	$(GO) run ./bench/cmd/bench -root $(CURDIR) $(if $(QUICK),-quick) $(if $(N),-n $(N)) $(if $(BASELINE),-baseline $(BASELINE)) \
		$(if $(CREATE_N),-create-n $(CREATE_N)) $(if $(CHANGED_N),-changed-n $(CHANGED_N)) \
		$(if $(SEQ_MAX_N),-seq-max-n $(SEQ_MAX_N)) $(if $(SWEEP),-sweep $(SWEEP)) \
		$(if $(LATENCY),-latency $(LATENCY)) $(if $(ONLY),-only $(ONLY)) $(if $(SKIP),-skip $(SKIP)) $(BENCH_ARGS)
	$(MAKE) bench-figures

## bench-scale: issue 24's scale sweep, every "Done when" target of it judged in one run (~40 min on the idle
##   2-core machine): no-op plan and sync at N=1000,10000 (--concurrency 1 at 10000), the CLI at SCALE_BASELINE and
##   the current one alternately (two pairs, no-op sync at 10000: CPU per 1,000 secrets before/after), the
##   concurrency sweep at 10000, at SCALE_N=50000 the no-op sync and the first sync creating all of them, and the
##   first sync of 2,000 in one Region and in three Regions by one run; results into docs/benchmarks.md (block
##   bench-scale) and docs/benchmarks/bench-scale.json, then the figures.
##   Overrides: SCALE_N=50000  SCALE_SIZES=1000,10000 (no-op sizes)  SCALE_SWEEP=1,8,16,24,32,64 (at 10000)
##   SCALE_BASELINE=22c6387 (main when issue 24's CPU profile was taken, before its cuts, memory work and the
##   decryption/observation overlap; empty = no before/after rows)
SCALE_N     ?= 50000
SCALE_SIZES ?= 1000,10000
SCALE_SWEEP ?= 1,8,16,24,32,64
SCALE_BASELINE ?= $(or $(BASELINE),22c6387)
bench-scale: tools
	$(GO) run ./bench/cmd/bench -root $(CURDIR) -only noop,sweep,scale,regions -n $(SCALE_SIZES) -sweep-n 10000 \
		-sweep $(SCALE_SWEEP) -seq-max-n 10000 -scale-n $(SCALE_N) $(if $(SCALE_BASELINE),-baseline $(SCALE_BASELINE)) \
		-section bench-scale -out docs/benchmarks.md $(BENCH_ARGS)
	$(MAKE) bench-figures

## bench-ps: issue 35's Parameter Store rows in one run (~15 min): the no-op sync at PS_N=1000,10000 parameters and the
##   first sync creating PS_CREATE_N=2000 (paced at PutParameter's 3/s: about 11 minutes), default concurrency, 20 ms per
##   call, the emulator's Parameter Store quotas; results into docs/benchmarks.md (block bench-ps) and
##   docs/benchmarks/bench-ps.json. Not part of CI.
PS_N        ?= 1000,10000
PS_CREATE_N ?= 2000
bench-ps: tools
	$(GO) run ./bench/cmd/bench -root $(CURDIR) -only ps -ps-n $(PS_N) -ps-create-n $(PS_CREATE_N) \
		-section bench-ps -out docs/benchmarks.md $(BENCH_ARGS)

## bench-import: issue 46's import rows: one import of IMPORT_N=1000 secrets made by hand (JSON, text, binary in turn;
##   20 ms per call, AWS's quotas), IMPORT_RUNS=2 runs (with BASELINE=rev, that revision's CLI alternately), against
##   the bound the read quota and the sops CLI's measured encryption CPU set; results into docs/benchmarks.md
##   (block bench-import). A few minutes on the idle 2-core machine.
IMPORT_N    ?= 1000
IMPORT_RUNS ?= 2
bench-import: tools
	$(GO) run ./bench/cmd/bench -root $(CURDIR) -only import -import-n $(IMPORT_N) -import-runs $(IMPORT_RUNS) \
		$(if $(BASELINE),-baseline $(BASELINE)) -section bench-import -out docs/benchmarks.md $(BENCH_ARGS)

## bench-accounts: issue 45's many-accounts rows (~5 min; SPEC §17): the no-op sync of 200 accounts × 50 secrets at
##   each ACCOUNTS_PARALLEL --parallel-scopes (0 = the default), the same with 10 accounts refused by STS and
##   --max-unreachable-scopes 10, and `scopes generate` over 500 accounts in 20 OUs; results into docs/benchmarks.md
##   (block bench-accounts) and docs/benchmarks/bench-accounts.json, then the figures. Not part of CI.
ACCOUNTS_PARALLEL ?= 0,1,2,4,16
bench-accounts: tools
	$(GO) run ./bench/cmd/bench -root $(CURDIR) -only accounts -accounts-parallel $(ACCOUNTS_PARALLEL) \
		-section bench-accounts -out docs/benchmarks.md $(BENCH_ARGS)
	$(MAKE) bench-figures

## bench-validate: `validate --no-decrypt` and `validate` with the age key over repositories of
##   VALIDATE_N=1000,10000 documents (no AWS: validate builds no client), VALIDATE_RUNS=3 alternating runs each;
##   medians into docs/benchmarks.md (block bench-validate). A few minutes (encrypting 11,000 documents).
VALIDATE_N    ?= 1000,10000
VALIDATE_RUNS ?= 3
bench-validate: tools
	$(GO) run ./bench/cmd/benchvalidate -root $(CURDIR) -n $(VALIDATE_N) -runs $(VALIDATE_RUNS) -out docs/benchmarks.md

## bench-figures: redraw docs/benchmarks/*.svg from docs/benchmarks/*.json (gonum/plot; bench/cmd/benchplot)
bench-figures:
	$(if $(wildcard docs/benchmarks/*.json),$(GO) run ./bench/cmd/benchplot -out docs/benchmarks $(wildcard docs/benchmarks/*.json),@echo "bench-figures: no docs/benchmarks/*.json yet (a run with -out writes one)")

## --- demo and end-to-end tests (scripts/demo.sh, test/e2e; README quick start) ---
.PHONY: e2e
## demo: plan, sync, out-of-band repair and deletion against a local emulator (no AWS account needed)
demo: tools
	./scripts/demo.sh

## e2e: only the end-to-end tests (real binaries, emulator subprocess, real git + sops + age; part of `make test`)
e2e: tools
	$(GO) test -race -count=1 -timeout 30m ./test/e2e/

## --- chaos (test/chaos; docs/reliability.md) ---
## chaos: the reliability campaign (issue 8): SCENARIOS seeded scenarios (SEED) of desired-state
##   changes, foreign secrets, emulator faults and SIGKILLs against the real binaries, an invariant
##   check after each, a canary scan of every output; then every fuzz target of internal/desired,
##   internal/canonical and internal/emulator for CHAOS_FUZZTIME each. Non-zero exit on any violation
##   or leak. Summary into bin/chaos/summary.md and CHAOS_DOC (empty = no doc update). A fuzz target
##   that fails with Go's bare "context deadline exceeded" and writes no input is Go's coordinator
##   race at the -fuzztime deadline (go.dev/issue/75804, Go < 1.27), said and not counted.
##   Replay one scenario: make chaos SEED=S CHAOS_ARGS='-only N -v'
##   The 500 of docs/reliability.md: SCENARIOS estate scenarios, then CHAOS_ROTATIONS rotation
##   scenarios (SPEC §13), CHAOS_PS_PRIMARY scenarios with Parameter Store as the primary scope
##   (SPEC §16) and CHAOS_ACCOUNTS many-accounts scenarios (SPEC §17: 20-40 scopes over several
##   accounts, some unreachable): 380 + 60 + 60 + 60 by default; 4, 3 and 2 below 200 estate
##   scenarios (CI's 30).
SCENARIOS      ?= 380
CHAOS_ROTATIONS  ?= $(if $(shell [ $(SCENARIOS) -ge 200 ] && echo long),60,4)
CHAOS_PS_PRIMARY ?= $(if $(shell [ $(SCENARIOS) -ge 200 ] && echo long),60,3)
CHAOS_ACCOUNTS   ?= $(if $(shell [ $(SCENARIOS) -ge 200 ] && echo long),60,2)
SEED           ?= 1
CHAOS_WORKERS  ?= 2
CHAOS_DOC      ?= docs/reliability.md
CHAOS_FUZZTIME ?= $(if $(shell [ $(SCENARIOS) -ge 200 ] && echo long),20s,2s)
CHAOS_FUZZ_PKGS ?= ./internal/desired ./internal/desired/decryptor ./internal/canonical ./internal/emulator
CHAOS_ARGS     ?=
chaos: tools build
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/chaos-campaign ./test/chaos/cmd/chaos
	$(BIN)/chaos-campaign -scenarios $(SCENARIOS) -rotations $(CHAOS_ROTATIONS) -ps-primary $(CHAOS_PS_PRIMARY) -accounts $(CHAOS_ACCOUNTS) -seed $(SEED) -workers $(CHAOS_WORKERS) \
		-cli $(BIN)/sops-aws-sync -emulator $(BIN)/secretsmanager-emulator \
		-artifacts $(BIN)/chaos/failures -summary $(BIN)/chaos/summary.md \
		$(if $(CHAOS_DOC),-doc $(CHAOS_DOC)) $(CHAOS_ARGS)
	@set -e; for pkg in $(CHAOS_FUZZ_PKGS); do \
		for t in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$pkg/*_test.go); do \
			echo "chaos: fuzz $$pkg $$t for $(CHAOS_FUZZTIME)"; \
			before=$$(ls $$pkg/testdata/fuzz/$$t 2>/dev/null | wc -l); out=$$(mktemp); rc=0; \
			$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(CHAOS_FUZZTIME) $$pkg >$$out 2>&1 || rc=$$?; \
			cat $$out; \
			if [ $$rc -ne 0 ]; then \
				after=$$(ls $$pkg/testdata/fuzz/$$t 2>/dev/null | wc -l); \
				if [ "$$after" = "$$before" ] && grep -qx '    context deadline exceeded' $$out && ! grep -q 'Failing input written' $$out; then \
					echo "chaos: $$t ended on Go's fuzz-coordinator deadline race (go.dev/issue/75804, fixed in Go 1.27) with no input written: not a finding"; \
				else rm -f $$out; exit 1; fi; \
			fi; \
			rm -f $$out; \
		done; \
	done

## --- mutation testing (scripts/mutation; docs/testing.md "Mutation testing") ---
.PHONY: mutation
## mutation: gremlins (GREMLINS_VERSION, from the Go module proxy) on each of PKGS (directories under
##   internal/), one package at a time, each against its own tests, default mutators, MUTATION_WORKERS
##   workers; prints the table (package, killed, lived, not covered, timed out, efficacy %) and every
##   survivor; per-package JSON and logs in bin/mutation. MUTATION_ARGS=-report prints the table of the
##   last results without running; MUTATION_ARGS='-exclude REGEXP' leaves files out (measure by files).
##   MUTATION_TIMEOUT_COEFFICIENT is gremlins' --timeout-coefficient (default 10: on a loaded shared
##   machine a slow test run is not a hanging mutant, so TIMED OUT stays meaningful).
##   MUTATION_ARGS=-overlay judges the mutants through go test -overlay instead (slow packages: engine).
GREMLINS_VERSION ?= v0.6.0
MUTATION_WORKERS ?= 1
MUTATION_TIMEOUT_COEFFICIENT ?= 10
PKGS ?= canonical config model wirefile awssm pace desired/decryptor desired/gitsource plan keydiff planview vocab diag report
MUTATION_ARGS ?=
mutation:
	@if ! $(GOBIN)/gremlins --version 2>/dev/null | grep -q .; then \
		echo "installing gremlins $(GREMLINS_VERSION)"; \
		$(GO) install github.com/go-gremlins/gremlins/cmd/gremlins@$(GREMLINS_VERSION); \
	fi
	$(GO) run ./scripts/mutation -gremlins $(GOBIN)/gremlins -workers $(MUTATION_WORKERS) -timeout-coefficient $(MUTATION_TIMEOUT_COEFFICIENT) -out $(BIN)/mutation $(MUTATION_ARGS) $(PKGS)

clean:
	rm -rf $(BIN) dist
