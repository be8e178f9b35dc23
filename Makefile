# kubectl-reflect: the entry point for humans and CI.
SHELL := /usr/bin/env bash
GO ?= go
BIN := bin/kubectl-reflect
PKG := github.com/kubectl-reflect/kubectl-reflect
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)
COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -s -w -X $(PKG)/internal/version.Version=$(VERSION) -X $(PKG)/internal/version.Commit=$(COMMIT) -X $(PKG)/internal/version.Date=$(DATE)
export GOFLAGS := -buildvcs=false
# The e2e tests need the control plane binaries; `make controlplane` builds
# them once into the user cache dir (a cold build takes minutes).
CONTROLPLANE := $(GO) run ./test/controlplane/cmd/controlplane

.PHONY: all build test unit e2e bench demo lint vet fmt clean controlplane

all: build

build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/kubectl-reflect

controlplane:
	$(CONTROLPLANE) build

## test: everything CI runs: lint, unit tests and end-to-end tests against a real control plane.
test: lint controlplane
	$(GO) test -race -timeout 40m -count=1 ./...

unit:
	$(GO) test -race -short -count=1 ./...

e2e: controlplane
	$(GO) test -race -timeout 40m -count=1 ./test/...

bench: controlplane build
	$(GO) run ./test/bench $(BENCHFLAGS)

demo: controlplane build
	./hack/demo.sh

lint: vet
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

clean:
	rm -rf bin dist
