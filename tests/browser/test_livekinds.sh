#!/bin/sh
# The live server (--serve) on a trace with a value entity and a nested
# one, in a real browser: livekinds.test.js checks that the first window
# merges the values and the depth rows, that zoomed in the live answers
# give each value exactly (a click reads it) and the depth rows of that
# window, expanded and collapsed.  The server is stopped by its pid.
suite=livekinds
. ./prologue.sh
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
# kinds.awk: gauge, 4000 values over 4ms; worker, 800 push-pop cycles.
awk -v title=livekinds -f kinds.awk > "$tmp/kinds.out"
"$SM" --serve "$tmp/kinds.out" > "$tmp/out" 2> "$tmp/err" &
server=$!
n=2400
while ! grep -q serving "$tmp/err" 2>/dev/null; do
	n=$((n - 1))
	[ $n -gt 0 ] || { echo "FAIL livekinds: the server did not start:"; cat "$tmp/err"; kill $server; exit 1; }
	sleep 0.05
done
url=$(sed -n 's/^statemap-lua: serving //p' "$tmp/err")
timeout 300 node livekinds.test.js "$url" "$artefacts"
status=$?
# It exits 0 on SIGTERM (under check-asan, also with nothing leaked).
kill $server
if ! wait $server; then
	echo "FAIL livekinds: the server did not exit cleanly:"
	cat "$tmp/err"
	status=1
fi
exit $status
