#!/bin/sh
# The live server's page in a real browser (Debian's chromium through
# playwright-core): the REPL serves plain.out in the background, live.test.js
# opens the page, checks the live block, that the current viewer runs on it
# (zoom, a click), that the API answers from the page's origin, and that the
# page reloads itself with what is served once the REPL serves another
# trace.  Waits poll; ports are 0.
tmp=$(mktemp -d)
trap 'exec 3>&-; kill $repl 2> /dev/null; rm -rf "$tmp"' EXIT
artefacts=${ARTEFACTS:-../../build/browser-artefacts}
mkdir -p "$artefacts"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
if [ ! -d node_modules/playwright-core ] &&
    ! npm ci --no-audit --no-fund > "$tmp/npm.log" 2>&1; then
	echo "FAIL live: playwright-core is missing and npm ci failed (run it in tests/browser):"
	tail -5 "$tmp/npm.log"
	exit 1
fi
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
mkfifo "$tmp/in"
"$SM" --interactive plain.out < "$tmp/in" > "$tmp/out" 2> "$tmp/err" &
repl=$!
exec 3> "$tmp/in"
echo 'statemap.serve(t)' >&3
n=2400
while ! grep -q serving "$tmp/err"; do
	n=$((n - 1))
	[ $n -gt 0 ] || { echo "FAIL live: the REPL did not serve:"; cat "$tmp/err"; exit 1; }
	sleep 0.05
done
url=$(sed -n 's/^statemap-lua: serving //p' "$tmp/err")
# live.test.js writes "replace" to $tmp/ask when the page is open; the
# REPL then serves t1 and t3 only.
(
	n=2400
	while [ ! -f "$tmp/ask" ]; do
		n=$((n - 1))
		[ $n -gt 0 ] || exit 1
		sleep 0.05
	done
	echo 'statemap.serve(t:drop("^t2$"))' >&3
) &
timeout 300 node live.test.js "$url" "$tmp/ask" "$artefacts"
status=$?
echo 'statemap.serve()' >&3
exec 3>&-
wait $repl
exit $status
