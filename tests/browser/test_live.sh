#!/bin/sh
# The live server's page in a real browser (Debian's chromium through
# playwright-core): the REPL serves plain.out in the background, live.test.js
# opens the page, checks the live block, that the viewer runs on it (zoom, a
# click) and asks the API from the page's origin, and follows the REPL as it
# serves again: the same trace (the page asks again, in place), t without
# t2 (the page reloads with its rows), and t:map(...) (the page reloads
# with the mapped states, at the view it had).  Waits poll; ports are 0.
suite=live
. ./prologue.sh
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
# live.test.js writes $tmp/ask.N when it is ready for the REPL's Nth
# statement.
(
	for i in 1 2 3; do
		n=2400
		while [ ! -f "$tmp/ask.$i" ]; do
			n=$((n - 1))
			[ $n -gt 0 ] || exit 1
			sleep 0.05
		done
		case $i in
		1) echo 'statemap.serve(t)' ;;
		2) echo 'statemap.serve(t:drop("^t2$"))' ;;
		3) echo 'statemap.serve(t:map(function (s) if s == "wait" then return "blocked" end end))' ;;
		esac >&3
	done
) &
timeout 300 node live.test.js "$url" "$tmp/ask" "$artefacts"
status=$?
echo 'statemap.serve()' >&3
exec 3>&-
wait $repl
exit $status
