#!/bin/sh
# The offline SVG's finer windows (--detail) for a value entity and a
# nested one, in a real browser: detailkinds.test.js opens the file from
# file://, checks the windows are its source, zooms into one and reads
# exact values and the depth rows of that window, and zooms back out to
# level 0's depth rows.
suite=detailkinds
. ./prologue.sh
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
# kinds.awk: gauge, 4000 values over 4ms; worker, 800 push-pop cycles.
awk -v title=detailkinds -f kinds.awk > "$tmp/kinds.out"
if ! "$SM" -c 600 --detail 16M -o "$tmp/kinds.svg" "$tmp/kinds.out" 2> "$tmp/err"; then
	echo "FAIL detailkinds: the SVG was not drawn:"
	cat "$tmp/err"
	exit 1
fi
timeout 300 node detailkinds.test.js "$tmp/kinds.svg" "$artefacts"
