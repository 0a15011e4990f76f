#!/usr/bin/env bash
# Refreshes docs/gallery/ from the end-to-end tour at 1440×900 (it runs
# scripts/e2e-tour.sh first when there is no tour to copy).
set -euo pipefail
cd "$(dirname "$0")/.."
keep="${E2E_OUT:-/tmp/speedmatrix-e2e}"
[ -d "$keep/tour-1440x900" ] || bash scripts/e2e-tour.sh
mkdir -p docs/gallery
rm -f docs/gallery/*.png
cp "$keep"/tour-1440x900/*.png docs/gallery/
{
	echo "# Gallery"
	echo
	echo "Every screen of the app at 1440×900, as the end-to-end tour (\`scripts/e2e-tour.sh\`) leaves"
	echo "it: against the built-in simulator (profile tiny), so **every figure is simulated**. CI takes"
	echo "the same pictures at 1024×700 and 1440×900 and checks their texts. \`bash scripts/gallery.sh\`"
	echo "refreshes this folder."
	for f in docs/gallery/*.png; do
		name=$(basename "$f" .png)
		echo
		echo "## ${name#*-}"
		echo
		echo "![${name#*-}]($(basename "$f"))"
	done
} >docs/gallery/README.md
echo "gallery: $(ls docs/gallery/*.png | wc -l) pictures in docs/gallery/"
