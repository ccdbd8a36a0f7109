#!/bin/sh
# Entity names that look like markup, and the path escape, in a real
# browser: names.test.js opens the command's SVG of names.out, and the
# --serve page of it, and checks that the details panel and the strip's
# tooltip show the whole name as text (never markup), and the label reads
# its "\/" as "/".
suite=names
. ./prologue.sh
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
"$SM" -o "$tmp/names.svg" names.out 2>/dev/null || { echo "FAIL names: could not make the SVG"; exit 1; }
"$SM" --serve names.out 2> "$tmp/err" &
server=$!
n=2400
while ! grep -q serving "$tmp/err"; do
	n=$((n - 1))
	[ $n -gt 0 ] || { echo "FAIL names: --serve did not serve:"; cat "$tmp/err"; kill $server; exit 1; }
	sleep 0.05
done
url=$(sed -n 's/^statemap-lua: serving //p' "$tmp/err")
timeout 300 node names.test.js "$tmp/names.svg" "$url" "$artefacts"
status=$?
kill $server
wait $server 2>/dev/null
exit $status
