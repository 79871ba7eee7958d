# The README's test command is `make test`; .ci/run calls it.
GO ?= go
WORKFLOWCHECK = go.temporal.io/sdk/contrib/tools/workflowcheck@v0.6.0
STATICCHECK   = honnef.co/go/tools/cmd/staticcheck@v0.8.2

# Packages holding the loop's logic run under the race detector; the
# server-backed packages link the embedded Temporal server once each.
RACE_PKGS   = ./codec/... ./eventlog/... ./signals/... ./loop/... ./workflows/... ./hook/... ./activities/... ./agent/... ./projection/... ./internal/cli/...
SERVER_PKGS = ./e2e/... ./internal/devserver/... ./internal/deps/... ./fx/... ./cmd/... ./console/...

.PHONY: test check unit server demo bench bench-long

test: check unit server

check:
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(WORKFLOWCHECK) -config workflowcheck.config.yaml ./workflows/... ./hook/... ./loop/...

unit:
	$(GO) test -race -count=1 $(RACE_PKGS)

server:
	$(GO) test -count=1 $(SERVER_PKGS)

demo:
	$(GO) run ./cmd/worker --demo

# The figures in bench/README.md: a few minutes; bench-long adds the
# 10,000-turn agent (~18 minutes).
bench:
	$(GO) test -run '^$$' -bench 'History50|TokenLatency|ThousandAgents' -benchtime 1x -count 1 ./bench/...
	$(GO) test -run '^$$' -bench 'TurnLatency' -benchtime 200x -count 1 ./bench/...

bench-long:
	$(GO) test -run '^$$' -bench 'LongLivedAgent' -benchtime 1x -count 1 -timeout 60m ./bench/...
