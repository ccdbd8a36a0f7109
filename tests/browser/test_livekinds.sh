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
# 4ms: gauge takes value 2i+1 at i us (4000 values); worker pushes a at
# 5k us, b at +1.5us, pops them at +3us and +4us (800 cycles); cpu is plain.
awk 'BEGIN {
	print "{\"start\": [0, 0], \"title\": \"livekinds\", \"states\": {\"idle\": {\"value\": 0, \"color\": \"#e0e0e0\"}, \"a\": {\"value\": 1, \"color\": \"#2e7d32\"}, \"b\": {\"value\": 2, \"color\": \"#c62828\"}}}"
	print "{\"time\": \"0\", \"entity\": \"cpu\", \"state\": 1}"
	print "{\"time\": \"0\", \"entity\": \"worker\", \"state\": 0}"
	for (i = 0; i < 4000; i++) {
		t = i * 1000
		printf "{\"time\": \"%d\", \"entity\": \"gauge\", \"value\": %d}\n", t, 2 * i + 1
		if (i % 5 == 0) {
			printf "{\"time\": \"%d\", \"entity\": \"worker\", \"push\": 1}\n", t
			printf "{\"time\": \"%d\", \"entity\": \"worker\", \"push\": 2}\n", t + 1500
			printf "{\"time\": \"%d\", \"entity\": \"worker\", \"pop\": 2}\n", t + 3000
			printf "{\"time\": \"%d\", \"entity\": \"worker\", \"pop\": 1}\n", t + 4000
		}
	}
	print "{\"time\": \"4000000\", \"entity\": \"cpu\", \"state\": 0}"
}' > "$tmp/kinds.out"
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
