# svc — make targets. `make run` and `make test` work on a fresh machine.
GO          ?= go
STATICCHECK := $(shell $(GO) env GOPATH)/bin/staticcheck
STATICCHECK_VERSION := v0.8.2

.PHONY: run test test-short bench bench-goals lint fuzz tools interop-deps

## run: start the example service on 127.0.0.1:8080 (embedded dev issuer unless SVC_AUTHN_ISSUER is set)
run:
	$(GO) run ./cmd/example

## test: every test of the main module with the race detector, then a one-shot compile-and-run of the benchmarks
test: interop-deps
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...
	cd bench && $(GO) vet ./... && $(GO) test -count=1 -run '^$$' -bench . -benchtime 1x ./... > /dev/null

test-short:
	$(GO) test -short -count=1 ./...

## interop-deps: the real authorization server (npm oidc-provider) used by the interop tests
interop-deps:
	@if [ -f test/internal/oidcprovider/package.json ] && [ ! -d test/internal/oidcprovider/node_modules ]; then \
		cd test/internal/oidcprovider && npm ci --no-audit --no-fund --loglevel=error; fi

## bench: the peer comparison benchmarks (see bench/README.md)
bench:
	cd bench && $(GO) test -run '^$$' -bench . -benchmem -count 5 ./... | tee bench.out

## bench-goals: each goal of bench/README measured briefly, one line each (timings, not a test: not in `make test`, always exits 0); GOALS_FLAGS="-count 5 -benchtime 1s -goals gate" for more
bench-goals:
	cd bench && $(GO) run ./cmd/goals $(GOALS_FLAGS)

## fuzz: a short run of every fuzz target
fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime 20s $$pkg || exit 1; done; done

$(STATICCHECK):
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

## lint: gofmt, go mod tidy (both modules), go vet and staticcheck (installed by this target)
lint: $(STATICCHECK)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt: $$out"; exit 1; fi
	@$(GO) mod tidy -diff >/dev/null || { echo "go.mod is untidy: run 'go mod tidy' and commit"; exit 1; }
	@cd bench && $(GO) mod tidy -diff >/dev/null || { echo "bench/go.mod is untidy: run 'cd bench && go mod tidy' and commit"; exit 1; }
	$(GO) vet ./...
	$(STATICCHECK) ./...
