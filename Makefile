# Speed Matrix developer tasks. The README's two commands are
# `bash scripts/launch.sh` and `bash scripts/test.sh`; these targets are the
# pieces behind them and the extras (lint, bench, package).

GO ?= go
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# As scripts/goenv.sh: Go's -O2 -g, without go-nvml's ~145 lines of
# deprecation warnings (NVML functions it wraps) on a first build.
export CGO_CFLAGS ?= -O2 -g -Wno-deprecated-declarations

.PHONY: build run test test-fast lint bench package clean

build:
	$(GO) build -o speedmatrix .

run: build
	./speedmatrix

test:
	bash scripts/test.sh

test-fast:
	$(GO) test -tags ci ./...

lint:
	gofmt -l . | (! grep .)
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./engine/... ./charts/... ./hw/... ./app/...

# fyne package --os linux --release, linked to bind lazily (go-nvml needs
# it: see the script); scripts/package-check.sh installs and starts the result.
package:
	bash scripts/package.sh

clean:
	rm -f speedmatrix *.tar.xz
