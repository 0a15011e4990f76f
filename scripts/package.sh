#!/usr/bin/env bash
# Builds the Linux desktop package, "Speed Matrix.tar.xz", into DIR (default:
# the repository root): `fyne package --os linux --release`, with one change.
#
# fyne's release build adds `-Wl,-z,relro,-z,now` to CGO_LDFLAGS, after ours,
# so the binary was linked BIND_NOW: every undefined symbol is resolved
# before main runs. go-nvml links NVML's functions unresolved on purpose
# (--unresolved-symbols=ignore-in-object-files) and dlopens libnvidia-ml at
# run time, so a BIND_NOW binary dies at exec, GPU or not ("symbol lookup
# error: … undefined symbol: nvmlSystemGetCudaDriverVersion_v2"). The Go
# linker passes -extldflags after the cgo flags, and ld's last -z wins:
# -Wl,-z,lazy there gives the packaged binary lazy binding (and partial
# RELRO). scripts/package-check.sh checks the result.
#
# fyne builds in a copy of the tree: it writes fyne_metadata_init.go into the
# source folder for the length of the build (anything else building the tree
# meanwhile would pick it up) and bumps Build in FyneApp.toml each time.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dest=$(mkdir -p "${1:-$repo}" && cd "${1:-$repo}" && pwd)
. "$repo/scripts/goenv.sh"
fyne="fyne.io/tools/cmd/fyne@v1.7.4"

src=$(mktemp -d "${TMPDIR:-/tmp}/speedmatrix-package.XXXXXX")
trap 'rm -rf "$src"' EXIT
# The tracked and the new files (what a commit would hold), not build outputs.
if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$repo" ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -f "$repo/$f" ] && printf '%s\0' "$f"; done |
		tar -C "$repo" --null -T - -cf - | tar -C "$src" -xf -
else
	tar -C "$repo" --exclude=./.git --exclude='./*.tar.xz' --exclude=./speedmatrix -cf - . | tar -C "$src" -xf -
fi

# fyne moves -ldflags= out of GOFLAGS into the build's -ldflags.
cd "$dest"
GOFLAGS="${GOFLAGS:+$GOFLAGS }-ldflags=-extldflags=-Wl,-z,lazy" \
	go run "$fyne" package --os linux --release --src "$src"
ls -l "$dest/Speed Matrix.tar.xz"
