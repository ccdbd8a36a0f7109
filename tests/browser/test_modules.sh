#!/bin/sh
# The viewer's modules that draw, each made alone in a real browser
# (Debian's chromium through playwright-core): modules.test.js loads one
# module into an SVG drawn here without the viewer's script, on the
# modules below it, with the others stood in for, and checks what it
# draws and does (viewer_dom, layout, panel, legend, events, input,
# paint; modules-node.test.js has the others).
suite=modules
. ./prologue.sh
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
# An SVG as statemap-lua draws it, but without the viewer.
bare() {	# out args...
	out=$1
	shift
	"$SM" -o "$tmp/full.svg" "$@" 2>> "$tmp/err" &&
	    sed '/^<script type="text\/javascript" id="statemap-viewer">/,/^]]><\/script>$/d' \
	    "$tmp/full.svg" > "$tmp/$out" && ! grep -q 'statemap-viewer"><!\[CDATA' "$tmp/$out"
}
if ! { bare plain.svg plain.out && bare tagged.svg tagged.out &&
    bare kinds.svg ../golden/state-system-draw/input.out &&
    bare messages-stacked.svg messages-n1.out messages-n2.out; }; then
	echo "FAIL $suite: the bare SVGs were not drawn:"
	cat "$tmp/err"
	exit 1
fi
timeout 300 node modules.test.js "$tmp"
