# Sourced by the browser tests with the suite's name set in $suite: a
# temporary directory removed on exit ($tmp), the screenshots' directory
# ($artefacts, from $ARTEFACTS), and playwright-core (pinned in
# package-lock.json, installed by `npm ci` if it is missing; Debian's
# chromium is used, no browser is downloaded).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
artefacts=${ARTEFACTS:-../../build/browser-artefacts}
mkdir -p "$artefacts"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
if [ ! -d node_modules/playwright-core ] &&
    ! npm ci --no-audit --no-fund > "$tmp/npm.log" 2>&1; then
	echo "FAIL $suite: playwright-core is missing and npm ci failed (run it in tests/browser):"
	tail -5 "$tmp/npm.log"
	exit 1
fi
