#!/usr/bin/env bash
# Installs what Speed Matrix needs on Debian/Ubuntu and is missing: the C
# toolchain and X11/GL headers that Fyne's cgo build needs, Xvfb for headless
# screenshots and the end-to-end test, Chromium for the report.html browser
# test (scripts/html-check.sh), and what the package check needs (make, xz,
# readelf, desktop-file-validate: scripts/package-check.sh). Checks that
# Go >= 1.26 is on PATH.
set -euo pipefail

packages=(gcc libc6-dev pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev
	libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev xvfb xauth chromium
	make xz-utils binutils desktop-file-utils)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	echo "deps: installing ${missing[*]}"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v go >/dev/null 2>&1; then
	export PATH="$PATH:/usr/local/go/bin"
fi
if ! command -v go >/dev/null 2>&1; then
	echo "deps: Go is not installed. Install Go 1.26 or newer (https://go.dev/doc/install) and run this again." >&2
	exit 1
fi
minor=$(go env GOVERSION | sed -E 's/^go1\.([0-9]+).*/\1/')
if [ "${minor:-0}" -lt 26 ]; then
	echo "deps: Go $(go env GOVERSION) is too old: Speed Matrix needs Go 1.26 or newer." >&2
	exit 1
fi
