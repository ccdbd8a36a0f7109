#!/bin/sh
# Names that read (issue 36) in a real browser (Debian's chromium through
# playwright-core): labels.test.js writes a few-entities trace named by
# paths (a Chrome trace's processes and threads) and a many-entities one
# (a /proc sampler's COMM/TID threads), draws each with statemap-lua, and
# checks at 1280x720 and 1920x1080 the bounding boxes of every name and
# group header drawn (none overlaps another, each on its row) and of the
# details panel (never over the rows).
suite=labels
. ./prologue.sh
timeout 300 node labels.test.js "$SM" "$tmp" "$artefacts"
