#!/usr/bin/env bash
# Builds the desktop package as `make package` does (scripts/package.sh),
# installs it into a scratch root with the Makefile it ships, and checks what
# a user gets: a binary that binds lazily (go-nvml's NVML symbols resolve only
# when libnvidia-ml is loaded; a BIND_NOW binary died at exec), that answers
# --version with FyneApp.toml's version, that runs as the desktop app under
# Xvfb for PACKAGE_CHECK_SECONDS (default 10) with nothing alarming in its
# output and quits on SIGTERM; a desktop entry that desktop-file-validate
# accepts and whose Exec and Icon name what the package installs; and the
# app's own icon. Needs make, xz, readelf, Xvfb and desktop-file-validate
# (bash scripts/deps.sh installs them). scripts/test.sh runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${PACKAGE_CHECK_SECONDS:-10}

work=$(mktemp -d "${TMPDIR:-/tmp}/speedmatrix-package-check.XXXXXX")
app="" xvfb=""
cleanup() { # under set -e: a kill of what has already gone must not fail the check
	[ -z "$app" ] || kill -KILL "$app" 2>/dev/null || true
	[ -z "$xvfb" ] || kill "$xvfb" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
fail() {
	echo "package-check: $*" >&2
	exit 1
}
for tool in make xz readelf Xvfb desktop-file-validate; do
	command -v "$tool" >/dev/null || fail "$tool is missing: install it (bash scripts/deps.sh)"
done
field() { sed -n "s/^$1 *= *\"\(.*\)\"/\1/p" FyneApp.toml | head -1; } # FyneApp.toml's [Details]
id=$(field ID) name=$(field Name) version=$(field Version) icon=$(field Icon)

start=$(date +%s)
bash scripts/package.sh "$work" >"$work/build.log" 2>&1 || {
	tail -n 30 "$work/build.log" >&2
	fail "the package did not build (bash scripts/package.sh)"
}
echo "package-check: built \"$name.tar.xz\" in $(($(date +%s) - start)) s"

mkdir "$work/unpacked" "$work/root" "$work/home"
tar -C "$work/unpacked" -xJf "$work/$name.tar.xz"
pkg=$(find "$work/unpacked" -mindepth 2 -maxdepth 2 -name Makefile -printf '%h\n' | head -1)
[ -n "$pkg" ] || fail "the package has no Makefile to install it with"
make -s -C "$pkg" install DESTDIR="$work/root" PREFIX=/usr >"$work/install.log" 2>&1 || {
	cat "$work/install.log" >&2
	fail "make install of the unpacked package failed"
}
root=$work/root/usr

# The desktop entry: valid, and naming the binary and icon installed beside it.
desktop=$root/share/applications/$id.desktop
[ -f "$desktop" ] || fail "the package installs no share/applications/$id.desktop"
# Its hints count too: two main categories put the app in two menus.
said=$(desktop-file-validate "$desktop" 2>&1) && [ -z "$said" ] || fail "desktop-file-validate: $said"
entry() { sed -n "s/^$1=//p" "$desktop" | head -1; }
[ "$(entry Name)" = "$name" ] || fail "$id.desktop says Name=$(entry Name), want $name"
exe=$(entry Exec | cut -d' ' -f1)
bin=$root/bin/$exe
[ -n "$exe" ] && [ -x "$bin" ] || fail "$id.desktop says Exec=$(entry Exec), but the package installs no bin/$exe"
png=$root/share/pixmaps/$(entry Icon).png
[ -f "$png" ] || fail "$id.desktop says Icon=$(entry Icon), but the package installs no share/pixmaps/$(entry Icon).png"
cmp -s "$png" "$icon" || fail "the installed icon share/pixmaps/$(entry Icon).png is not $icon"
echo "package-check: $id.desktop is valid; Exec=$exe and Icon=$(entry Icon) are installed"

# It starts at all: a BIND_NOW binary died here, before main.
got=$("$bin" --version 2>&1) || fail "bin/$exe --version failed: $got"
[ "$got" = "speedmatrix $version" ] || fail "bin/$exe --version says \"$got\", want \"speedmatrix $version\" (FyneApp.toml's Version)"
# Lazy binding: BIND_NOW resolves go-nvml's NVML symbols at exec, where
# libnvidia-ml is not loaded yet (with or without a GPU).
if readelf -d "$bin" | grep -E '\((FLAGS|FLAGS_1)\).*\bNOW\b|BIND_NOW'; then
	fail "bin/$exe is linked BIND_NOW (above): it dies at start with \"undefined symbol: nvml…\"; scripts/package.sh must link it with -z lazy"
fi
echo "package-check: bin/$exe binds lazily and says \"$got\""

# The desktop app, as the entry starts it (no arguments), under an X server
# of its own and Debian's default locale, as scripts/e2e.sh runs it.
mkfifo "$work/display"
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$work/display" 2>"$work/xvfb.log" &
xvfb=$!
read -t 30 -r display <"$work/display" || fail "Xvfb did not start: $(tail -n 3 "$work/xvfb.log")"
HOME=$work/home XDG_CONFIG_HOME=$work/home/config XDG_CACHE_HOME=$work/home/cache \
	XDG_DATA_HOME=$work/home/data XDG_STATE_HOME=$work/home/state DISPLAY=":$display" LANG=C.UTF-8 \
	"$bin" >"$work/app.log" 2>&1 &
app=$!
sleep "$seconds" # what is checked is that it still runs after this long
if ! kill -0 "$app" 2>/dev/null; then
	wait "$app" && rc=0 || rc=$?
	app=""
	cat "$work/app.log" >&2
	fail "the packaged app exited with status $rc within $seconds s of starting"
fi
kill -TERM "$app"
# It quits in about a second on an idle machine; CI runs this beside the
# -race tests, where a software-GL window under Xvfb took over 15 s.
timeout 60 tail --pid="$app" -f /dev/null || fail "the packaged app ignored SIGTERM for 60 s"
wait "$app" && rc=0 || rc=$?
app=""
[ "$rc" -lt 128 ] || fail "the packaged app died of signal $((rc - 128)) on SIGTERM instead of quitting"
# One thing Fyne itself may say as the app quits is left out: its exit save
# truncates and rewrites preferences.json while its own file watcher
# reloads it, and under load the reload reads the empty file ("Preferences
# load error: … Cause: EOF … app/preferences.go"; seen once, CI beside a
# busy box, 2026-12-06). The file it writes is whole; nothing of ours is
# involved.
grep -v -e 'Fyne error:  Preferences load error:' -e '^[0-9/: ]*  Cause: EOF$' -e 'fyne/v2@[^ ]*/app/preferences.go:' "$work/app.log" >"$work/app-ours.log" || true
if grep -Eiq 'error|panic|fatal|warn|locale|symbol|segmentation' "$work/app-ours.log"; then
	cat "$work/app.log" >&2
	fail "the packaged app said something alarming (above)"
fi
echo "package-check: the packaged app ran $seconds s under Xvfb, printed $(wc -l <"$work/app.log") lines and quit on SIGTERM (status $rc)"
