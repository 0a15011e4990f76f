#!/usr/bin/env bash
# Refreshes docs/gallery/ from the end-to-end tour at 1440×900 (it runs
# scripts/e2e-tour.sh first when there is no tour to copy).
set -euo pipefail
cd "$(dirname "$0")/.."
keep="${E2E_OUT:-/tmp/speedmatrix-e2e}"
[ -d "$keep/tour-1440x900" ] || bash scripts/e2e-tour.sh
mkdir -p docs/gallery
# report-html-*.png are kept: taken by hand from scripts/html-check.sh's screenshots.
find docs/gallery -maxdepth 1 -name '*.png' ! -name 'report-html-*' -delete
cp "$keep"/tour-1440x900/*.png docs/gallery/
# The exported charts of a load test (rates on both sides of the
# simulator's capacity, about 28 requests/s here) and of a matrix judged
# against an SLO, on the simulator.
charts=$(mktemp -d)
trap 'rm -rf "$charts"' EXIT
(. scripts/goenv.sh && go build -o "$charts/speedmatrix" .)
"$charts/speedmatrix" load --sim tiny --rates 5,10,20,30,40 --requests 300 --input-tokens 512 \
	--output-tokens 128 --slo-ttft 500ms --slo-itl 40ms --seed 1 --out "$charts/load" >/dev/null
"$charts/speedmatrix" run --sim tiny --contexts 1K,4K --prefill-contexts none --concurrency 1,4,16,64 \
	--duration 5s --slo-ttft 100ms --slo-itl 8ms --out "$charts/slo" >/dev/null
cp "$charts/load/load-latency.png" docs/gallery/30-chart-load-latency.png
cp "$charts/load/load-goodput.png" docs/gallery/31-chart-load-goodput.png
cp "$charts/slo/decode-slo.png" docs/gallery/32-chart-decode-slo.png
{
	echo "# Gallery"
	echo
	echo "Every screen of the app at 1440×900, as the end-to-end tour (\`scripts/e2e-tour.sh\`) leaves"
	echo "it, then the exported charts of a load test (\`speedmatrix load --rates 5,10,20,30,40\`) and of a matrix"
	echo "judged against an SLO: against the built-in simulator (profile tiny), so **every figure is simulated**. CI takes"
	echo "the same pictures at 1024×700 and 1440×900 and checks their texts. \`bash scripts/gallery.sh\`"
	echo "refreshes this folder; report-html-*.png, report.html in headless Chromium at 1440 and 390 px,"
	echo "are taken by hand from \`scripts/html-check.sh\`'s screenshots and kept."
	for f in docs/gallery/*.png; do
		name=$(basename "$f" .png)
		echo
		echo "## ${name#*-}"
		echo
		echo "![${name#*-}]($(basename "$f"))"
	done
} >docs/gallery/README.md
echo "gallery: $(ls docs/gallery/*.png | wc -l) pictures in docs/gallery/"
