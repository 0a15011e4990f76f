#!/usr/bin/env bash
# Refreshes docs/gallery/ from the end-to-end tour at 1440×900 (run
# scripts/e2e-tour.sh first, or this runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
keep="${E2E_OUT:-/tmp/speedmatrix-e2e}"
[ -d "$keep/tour-1440x900" ] || bash scripts/e2e-tour.sh
mkdir -p docs/gallery
rm -f docs/gallery/*.png
cp "$keep"/tour-1440x900/*.png docs/gallery/
echo "gallery: $(ls docs/gallery/*.png | wc -l) pictures in docs/gallery/"
