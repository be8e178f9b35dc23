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
# them once into the user cache dir (a cold build takes minutes), kube-scheduler
# and kwok included (for the tests that want nodes where pods run).
CONTROLPLANE := $(GO) run ./test/controlplane/cmd/controlplane
# A release: `make dist krew-manifest validate-krew-manifest VERSION=v1.2.3`,
# then upload dist/* and krew/reflect.yaml to the release of tag v1.2.3.
# Archive entries get the last commit's time; with DATE=... fixed too, the
# same commit and Go version give byte-identical archives.
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64
DIST_DIR ?= dist
RELEASE_URL ?= https://github.com/kubectl-reflect/kubectl-reflect/releases/download/$(VERSION)
KREW_MANIFEST ?= krew/reflect.yaml
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
DIST := $(GO) run ./hack/dist

# E2E runs the end-to-end packages: one at a time (each starts its own
# control plane), but for test/krew, which starts none and mostly compiles
# (krew, a release archive): it runs beside test/cluster, whose
# TestIdleGrowth watches an idle cluster for minutes.
define E2E
$(GO) test -race -count=1 -p 2 -timeout 45m ./test/cluster ./test/krew
$(GO) test -race -count=1 -p 1 -timeout 45m $$($(GO) list ./test/... | grep -v -e '/test/cluster$$' -e '/test/krew$$')
endef

.PHONY: all build test unit e2e fuzz bench demo lint vet fmt clean controlplane postgres tmux chromium dist krew-manifest validate-krew-manifest image

all: build

# Built as the release (hack/dist) and the image are: static, without cgo;
# `make bench` measures this binary.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/kubectl-reflect

controlplane:
	$(CONTROLPLANE) build

## postgres: Debian's PostgreSQL server, which the history's tests start (test/postgres), unless one is installed.
postgres:
	@ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || command -v postgres >/dev/null || { \
	  sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$sudo apt-get update -q && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends postgresql; }

## tmux: the terminal the interactive timeline's test drives (send-keys, capture-pane), installed
## with apt unless there is one.
tmux:
	@command -v tmux >/dev/null || { \
	  sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$sudo apt-get update -q && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends tmux; }

## chromium: Debian's chromium, the headless browser test/history opens `timeline --html`'s page in, unless one is installed.
chromium:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || { \
	  sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$sudo apt-get update -q && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium; }

## test: everything CI runs: lint, unit tests, then the end-to-end tests against a real control
## plane (E2E).
test: lint controlplane postgres tmux chromium
	$(GO) test -race -short -count=1 ./...
	@# The decoders of a history file (an object's blob, keyframe or delta;
	@# a checkpoint's part; the heads' sums saved at Close) explore past their
	@# seeds: what a damaged file can hold. A count of tries, not a time:
	@# a -fuzztime of seconds ends, under load, in the fuzzer's own "context
	@# deadline exceeded" (golang/go#75804, not fixed in Go 1.26).
	$(MAKE) --no-print-directory fuzz FUZZPKGS="pkg/history/internal/codec pkg/history" FUZZTIME=$(TESTFUZZTIME)
	$(E2E)

unit: postgres
	$(GO) test -race -short -count=1 ./...

e2e: controlplane postgres tmux chromium
	$(E2E)

## fuzz: explore from the seeds of every fuzz target (the readers of what servers send and of what a
## history file holds), FUZZTIME each (FUZZPKGS: only those packages); `make test` runs the seeds
## and the crashers kept in testdata/fuzz, and explores the history's for TESTFUZZTIME tries each. A crash writes
## its input to the package's testdata/fuzz: commit it with the fix, and it stays a test.
FUZZTIME ?= 30s
TESTFUZZTIME ?= 2000x
FUZZPKGS ?= $(shell git grep -l '^func Fuzz' -- '*_test.go' | xargs -n1 dirname | sort -u)
fuzz:
	@set -e; for pkg in $(FUZZPKGS); do \
	  for target in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$pkg/*_test.go); do \
	    echo "$$pkg $$target"; $(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) ./$$pkg; \
	  done; \
	done

bench: controlplane build
	$(GO) run ./test/bench -publish BENCHMARKS.md $(BENCHFLAGS)

demo: controlplane build
	./hack/demo.sh

lint: vet
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	@# The code that ships, type-checked for Windows too (PLATFORMS): Unix-only
	@# calls there break `make dist` and only show on a cross build.
	GOOS=windows GOARCH=amd64 $(GO) vet ./cmd/... ./internal/... ./pkg/...

## dist: one archive per platform in PLATFORMS (binary, LICENSE, README.md, completion helper) and their sha256 sums, in DIST_DIR.
dist:
	$(DIST) archives -version "$(VERSION)" -ldflags "$(LDFLAGS)" -platforms "$(PLATFORMS)" -out "$(DIST_DIR)" -mtime $(SOURCE_DATE_EPOCH) -go "$(GO)"

## krew-manifest: render krew/reflect.yaml.tmpl with the sha256 of the archives `make dist` wrote and their URIs under RELEASE_URL.
krew-manifest:
	$(DIST) krew-manifest -version "$(VERSION)" -platforms "$(PLATFORMS)" -dist "$(DIST_DIR)" -base-url "$(RELEASE_URL)" -template krew/reflect.yaml.tmpl -out "$(KREW_MANIFEST)"

## validate-krew-manifest: krew's own manifest validation (pinned in test/krew/tools) on KREW_MANIFEST; test/krew installs it for real.
validate-krew-manifest:
	cd test/krew/tools && GOWORK=off $(GO) run sigs.k8s.io/krew/cmd/validate-krew-manifest -manifest "$(abspath $(KREW_MANIFEST))" -skip-install

## image: the controller image deploy/ runs (Dockerfile: a static binary on distroless, nonroot), as IMAGE.
## Needs docker (or DOCKER=podman); CI does not build it.
IMAGE ?= ghcr.io/kubectl-reflect/kubectl-reflect:$(VERSION)
DOCKER ?= docker
image:
	$(DOCKER) build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) --build-arg DATE=$(DATE) -t $(IMAGE) .

clean:
	rm -rf bin dist
