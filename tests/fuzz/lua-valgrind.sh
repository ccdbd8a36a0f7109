#!/bin/sh
# tests/fuzz/lua-valgrind.sh: runs the Lua programs of fuzz_lua's inputs
# with the normal build of statemap-lua under valgrind, which sees what
# ASan cannot in the harness: Debian's liblua5.4 is not instrumented, so
# a binding's misuse of Lua's own memory shows only here.
#
#   make fuzz-valgrind                          # the seeds, tests/fuzz/lua/
#   make fuzz-valgrind FUZZ_INPUTS="build-fuzz/corpus-lua crash-..."
#
# Arguments are input files or directories of them.  Each input becomes
# a program (by $BUILD/fuzz_lua_gen, the harness's own generator) run as
# `statemap-lua --memory-limit 64M --timeout 120 PROGRAM DIR`; a valgrind
# error, a crash or a timeout fails, and its program is kept to look at.
# The last line is "N programs, N failed".
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
BIN=${BIN:-statemap-lua}
BUILD=${BUILD:-build}
[ $# -gt 0 ] || set -- tests/fuzz/lua
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/programs" "$tmp/failed"
XDG_CACHE_HOME="$tmp/cache"
STATEMAP_PROGRESS=never
export XDG_CACHE_HOME STATEMAP_PROGRESS

inputs=
for a in "$@"; do
	if [ -d "$a" ]; then
		for f in "$a"/*; do
			[ -f "$f" ] && inputs="$inputs $f"
		done
	else
		inputs="$inputs $a"
	fi
done
# shellcheck disable=SC2086  # input names are corpus hashes: no spaces
"$BUILD/fuzz_lua_gen" "$tmp/programs" $inputs || exit 1

n=0
failed=0
for p in "$tmp"/programs/*.lua; do
	[ -f "$p" ] || continue
	n=$((n + 1))
	rm -rf "$tmp/cache"
	STATEMAP_PLAIN_ALLOC=1 timeout -k 10 600 valgrind -q --error-exitcode=99 --leak-check=full \
	    --errors-for-leak-kinds=definite,indirect \
	    --suppressions="$top/tests/valgrind.supp" \
	    "$top/$BIN" --memory-limit 64M --timeout 120 "$p" "$tmp/programs" \
	    > /dev/null 2> "$tmp/err"
	status=$?
	# 0: the program ran; 1: it stopped at its memory limit or timeout.
	if [ "$status" -gt 1 ]; then
		failed=$((failed + 1))
		keep=build-fuzz/valgrind-failed
		mkdir -p "$keep"
		cp "$p" "$keep/"
		echo "FAIL $(basename "$p" .lua): status $status (program kept in $keep/)"
		head -40 "$tmp/err"
	fi
done
echo "$n programs, $failed failed"
[ "$failed" -eq 0 ]
