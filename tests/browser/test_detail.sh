#!/bin/sh
# The offline SVG's finer windows (--detail) in a real browser (Debian's
# chromium through playwright-core): detail.test.js writes a trace whose
# every transition it knows, draws it with and without detail, and zooms
# into the files from file://.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
artefacts=${ARTEFACTS:-../../build/browser-artefacts}
mkdir -p "$artefacts"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
if [ ! -d node_modules/playwright-core ] &&
    ! npm ci --no-audit --no-fund > "$tmp/npm.log" 2>&1; then
	echo "FAIL detail: playwright-core is missing and npm ci failed (run it in tests/browser):"
	tail -5 "$tmp/npm.log"
	exit 1
fi
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
timeout 300 node detail.test.js "$SM" "$tmp" "$artefacts"
