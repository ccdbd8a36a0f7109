#!/bin/sh
# The viewer's modules that need no DOM, each made alone in Node
# (modules-node.test.js): the joined script's files, viewer_format,
# viewer_data, viewer_rows, viewer_source (with a stand-in server) and
# viewer_paint's colours, on documents drawn here (read as stand-ins).
# Needs node only (counted with the browser tests).
suite=modules-node
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
# kinds.awk: gauge, 4000 values over 4ms; worker, 800 push-pop cycles.
awk -v title=modules -f kinds.awk > "$tmp/kinds.out"
if ! { "$SM" -o "$tmp/plain.svg" plain.out &&
    "$SM" --detail 0 -c 5 -o "$tmp/nocount.svg" ../golden/json-basic/input.out &&
    "$SM" -c 600 --detail 16M -o "$tmp/detail.svg" "$tmp/kinds.out" &&
    "$SM" -o "$tmp/stacked.svg" stack-a.out stack-b.out &&
    "$SM" -o "$tmp/kinds.svg" ../golden/state-system-draw/input.out &&
    "$SM" -o "$tmp/blend.svg" -c 5 ../golden/json-basic/input.out; } 2> "$tmp/err"; then
	echo "FAIL $suite: the SVGs were not drawn:"
	cat "$tmp/err"
	exit 1
fi
timeout 300 node modules-node.test.js "$tmp"
