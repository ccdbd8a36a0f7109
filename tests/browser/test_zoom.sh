#!/bin/sh
# Live zoom in a real browser (Debian's chromium through playwright-core):
# zoom.test.js writes a trace whose every transition it knows, serves it
# with statemap-lua --serve (and a trace of 1000 entities, for the time a
# 1920-pixel answer takes to draw), and zooms from the whole trace down to a
# few microseconds, checking what is drawn against the trace, the
# exact/merged indicator, a refused token, and two pages at once.  Waits
# poll; the servers take free ports and are stopped by their process ids.
suite=zoom
. ./prologue.sh
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
timeout 300 node zoom.test.js "$SM" "$tmp" "$artefacts"
