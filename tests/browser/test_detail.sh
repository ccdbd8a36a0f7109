#!/bin/sh
# The offline SVG's finer windows (--detail) in a real browser (Debian's
# chromium through playwright-core): detail.test.js writes a trace whose
# every transition it knows, draws it with and without detail, and zooms
# into the files from file://.
suite=detail
. ./prologue.sh
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
timeout 300 node detail.test.js "$SM" "$tmp" "$artefacts"
