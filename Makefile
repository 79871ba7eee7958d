# The README's test command is `make test`; .ci/run calls it.
GO ?= go
WORKFLOWCHECK = go.temporal.io/sdk/contrib/tools/workflowcheck@v0.6.0
STATICCHECK   = honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Every type switch over the loop's closed sets (loop.Input, loop.Command,
# used only in loop/ and workflows/) lists each member or says what the rest
# do in a default; exec's default panics, so exec must list each command.
# The checker knows the sets of the packages it is given: eventlog.Event's
# switches, projections that pick their events, are not checked. v0.5.0
# needs Go 1.27.
SUMTYPE       = github.com/alecthomas/go-check-sumtype/cmd/go-check-sumtype@v0.4.0

# Packages holding the loop's logic run under the race detector; the
# server-backed packages link the embedded Temporal server once each.
RACE_PKGS   = ./codec/... ./eventlog/... ./signals/... ./loop/... ./workflows/... ./hook/... ./activities/... ./agent/... ./projection/... ./internal/cli/... ./bench/workload/... ./telemetry/... \
	./internal/startup/... ./internal/httpserve/... ./internal/ratelog/... ./internal/forwarded/... ./internal/login/... ./internal/schemagen/... ./internal/text/... ./internal/release/... ./blobstore/... ./api/...
SERVER_PKGS = . ./examples/... ./e2e/... ./bench ./internal/devserver/... ./internal/a2aserver/... ./internal/deps/... ./internal/cluster/... ./fx/... ./cmd/... ./console/... ./chaos/... ./clients/typescript

.PHONY: test check api-check api-baseline replay-release unit server demo bench bench-long fuzz chaos cluster

test: check unit server

check:
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(WORKFLOWCHECK) -config workflowcheck.config.yaml ./workflows/... ./hook/... ./loop/...
	$(GO) run $(SUMTYPE) ./loop/... ./workflows/...
	@listed="$$($(GO) list $(RACE_PKGS) $(SERVER_PKGS))"; \
	for p in $$($(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...); do \
		echo "$$listed" | grep -qxF "$$p" || { echo "$$p has tests that make test does not run: add it to RACE_PKGS or SERVER_PKGS"; exit 1; }; \
	done
	GO=$(GO) api/apicheck check

# The public packages (api/packages) against the API of the last release
# (api/v*/, files rather than a tag, so a clean clone checks the same):
# an incompatible change fails with apidiff's report. About 15 s on a warm
# build cache. api-baseline VERSION=v0.1.0 rewrites the baseline from the
# tree; run it when that version is tagged.
api-check:
	GO=$(GO) api/apicheck check

api-baseline:
	@test -n "$(VERSION)" || { echo "usage: make api-baseline VERSION=v0.1.0"; exit 2; }
	GO=$(GO) api/apicheck baseline $(VERSION)

# The last release's replay corpus (workflows/testdata/histories at the
# commit of the newest api/v*/ baseline, or its tag; read from git, so it
# needs the history, not a shallow clone) replayed by HEAD's workflow. make
# test runs it too, in the workflows package.
replay-release:
	$(GO) test -count=1 -run 'TestTheLastReleasesHistoriesReplayToTheLogTheyJournaled' ./workflows/

unit:
	$(GO) test -race -count=1 $(RACE_PKGS)

server:
	$(GO) test -count=1 -timeout 30m $(SERVER_PKGS)

demo:
	$(GO) run ./cmd/worker --demo

# Each fuzz target for FUZZTIME. Their seeds (testdata/fuzz) run as plain
# tests in `unit`. The first run builds the instrumented packages, which
# takes minutes; later runs reuse Go's build cache.
# A count of executions (Nx), not a duration: Go 1.26's fuzz coordinator
# can fail a target with "context deadline exceeded" when a duration ends
# while a worker runs an input (golang/go#75804, fixed in Go 1.27).
FUZZTIME ?= 100000x
FUZZ_TARGETS = FuzzDecode:./eventlog FuzzJournalUnmarshal:./signals FuzzValidate:./signals \
	FuzzArguments:./activities/tools FuzzSchema:./activities/tools FuzzReadStream:./agent

# The loop's property tests (loop/property_test.go) run 100 sequences in
# `unit`; here RAPID_CHECKS of them.
RAPID_CHECKS ?= 2000

fuzz:
	@for t in $(FUZZ_TARGETS); do \
		name=$${t%%:*}; pkg=$${t#*:}; \
		echo "$(GO) test -run '^\$$' -fuzz '^$$name\$$' -fuzztime $(FUZZTIME) $$pkg"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done
	$(GO) test -count=1 -run 'Property' ./loop/ -rapid.checks=$(RAPID_CHECKS)

# The figures in bench/README.md: a quarter of an hour; bench-long adds
# the 10,000-turn agent (~18 minutes).
bench:
	$(GO) test -run '^$$' -bench '^Benchmark(History50Turns|TokenLatency|ThousandAgents)$$' -benchtime 1x -count 1 ./bench/...
	$(GO) test -run '^$$' -bench '^Benchmark(FleetWorkerProcess|FleetContexts)$$' -benchtime 1x -count 1 -timeout 40m ./bench/...
	$(GO) test -run '^$$' -bench 'TurnLatency' -benchtime 200x -count 1 ./bench/...
	$(GO) test -run '^$$' -bench 'CrashRecovery' -benchtime 6x -count 1 ./bench/...

bench-long:
	$(GO) test -run '^$$' -bench 'LongLivedAgent' -benchtime 1x -count 1 -timeout 60m ./bench/...

# Tether on a real Temporal cluster on PostgreSQL with two workers, and the
# 1,000-agent benchmark with a worker killed halfway (scripts/cluster/run;
# not part of test: ~10 minutes, installs PostgreSQL if missing).
cluster:
	scripts/cluster/run

# The crash-and-abuse run of bench/README.md (~14 minutes): 100 worker
# kills and 10 server restarts. `make test` runs a short one (4 and 1).
# SEED repeats a run's schedule; CHAOS_FLAGS adds -chaos.* flags.
SEED ?= 0
CHAOS_FLAGS ?=
chaos:
	$(GO) test -count=1 -timeout 120m -run '^TestChaos$$' -v ./chaos/ -args -chaos.seed $(SEED) \
		-chaos.kills 100 -chaos.restarts 10 -chaos.interval 6s $(CHAOS_FLAGS)
