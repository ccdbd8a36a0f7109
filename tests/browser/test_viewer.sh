#!/bin/sh
# The interactive viewer in a real browser: SVGs made from the traces here
# (two golden inputs and the two examples) are driven by viewer.test.js through
# playwright-core and Debian's chromium (no browser is downloaded).
# Screenshots go to $ARTEFACTS (default build/browser-artefacts).
# playwright-core is pinned in package-lock.json: `npm ci` installs it.
suite=viewer
. ./prologue.sh
"$SM" -o "$tmp/plain.svg" plain.out 2>/dev/null &&
"$SM" -o "$tmp/window.svg" -b 2ms plain.out 2>/dev/null &&
"$SM" -o "$tmp/tagged.svg" tagged.out 2>/dev/null &&
"$SM" -o "$tmp/blend.svg" -c 5 ../golden/json-basic/input.out 2>/dev/null &&
"$SM" -o "$tmp/stacked.svg" stack-a.out stack-b.out 2>/dev/null &&
"$SM" -o "$tmp/hostile.svg" ../golden/svg-escape/input.out 2>/dev/null &&
"$SM" -o "$tmp/messages.svg" messages.out 2>/dev/null &&
"$SM" -o "$tmp/messages-stacked.svg" messages-n1.out messages-n2.out 2>/dev/null &&
awk -f many.awk > "$tmp/many.out" && "$SM" -o "$tmp/many.svg" "$tmp/many.out" 2>/dev/null &&
"$SM" -o "$tmp/db-threads.svg" ../../examples/data/db-threads.out 2>/dev/null &&
"$SM" -o "$tmp/cpu.svg" ../../examples/data/cpu.out 2>/dev/null &&
"$SM" -o "$tmp/kinds.svg" ../golden/state-system-draw/input.out 2>/dev/null &&
"$SM" -o "$tmp/kinds-merged.svg" -c 4 ../golden/state-system-draw/input.out 2>/dev/null &&
"$SM" -o "$tmp/tree.svg" tree.out 2>/dev/null || {
	echo "FAIL viewer: could not make the SVGs"; exit 1; }
# The largest default output: 1000 entities, 100 transitions each, 1s
# (bench/viewer times the viewer on it).
awk -f big.awk > "$tmp/big.out"
"$SM" -o "$tmp/big.svg" "$tmp/big.out" 2>/dev/null || { echo "FAIL viewer: big.svg"; exit 1; }
timeout 300 node viewer.test.js "$tmp" "$artefacts"
