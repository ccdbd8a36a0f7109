#!/bin/sh
# Message arrows of one merged, clock-aligned trace (statemap.merge with
# the offsets of t:align) in a real browser: aligned-n1.out and
# aligned-n2.out are two nodes' logs, n2's clock 0.5ms ahead, with a
# message each way taking 1ms.  arrows.test.js opens the interactive SVG
# (render{interactive = true}), the classic command's SVG of the merged
# trace written out, and the --serve page of that file; each must draw
# the two arrows 1ms long (unaligned they would be 1.5ms and 0.5ms).
suite=arrows
. ./prologue.sh
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
"$SM" -E "
local t1 = statemap.load('aligned-n1.out')
local t2 = statemap.load('aligned-n2.out')
local al = statemap.merge { t1, t2 }:align()
local m = statemap.merge { t1, t2, offsets = al.offsets }
statemap.render { output = '$tmp/render.svg', trace = m, interactive = true }
m:write('$tmp/merged.out')" &&
"$SM" -o "$tmp/classic.svg" "$tmp/merged.out" 2>/dev/null || {
	echo "FAIL arrows: could not make the SVGs"; exit 1; }
"$SM" --serve "$tmp/merged.out" 2> "$tmp/err" &
server=$!
n=2400
while ! grep -q serving "$tmp/err"; do
	n=$((n - 1))
	[ $n -gt 0 ] || { echo "FAIL arrows: --serve did not serve:"; cat "$tmp/err"; kill $server; exit 1; }
	sleep 0.05
done
url=$(sed -n 's/^statemap-lua: serving //p' "$tmp/err")
timeout 300 node arrows.test.js "$tmp" "$url" "$artefacts"
status=$?
kill $server
wait $server 2>/dev/null
exit $status
