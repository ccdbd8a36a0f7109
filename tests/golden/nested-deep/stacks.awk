# Three nested entities' stacks, 3000 records (Park-Miller draws, so any
# awk gives the same trace): pushes and pops up to 30 deep, some tagged,
# some at the time before; now and then a plain datum that replaces the
# stack, and from depth 2 one that gives the bottom frame back unchanged
# (which a store cannot tell from a pop).
BEGIN {
	print "{\"start\": [0, 0], \"title\": \"stacks\", \"states\": {\"a\": {\"value\": 0}, \"b\": {\"value\": 1}, \"c\": {\"value\": 2}}}"
	x = 11
	t = 0
	for (e = 0; e < 3; e++) {
		printf "{\"time\": \"0\", \"entity\": \"n%d\", \"state\": %d}\n", e, e
		d[e] = 1
		st[e, 1] = e
		tg[e, 1] = ""
	}
	for (i = 0; i < 3000; i++) {
		x = (x * 16807) % 2147483647
		if (x % 7 != 0)
			t += 1 + x % 13
		e = x % 3
		k = int(x / 3) % 20
		if (k == 0 || (k == 1 && d[e] == 2)) {
			s = k == 1 ? st[e, 1] : int(x / 60) % 3
			g = k == 1 ? tg[e, 1] : x % 5 == 0 ? ", \"tag\": \"g\"" : ""
			printf "{\"time\": \"%d\", \"entity\": \"n%d\", \"state\": %d%s}\n", t, e, s, g
			d[e] = 1
			st[e, 1] = s
			tg[e, 1] = g
		} else if (d[e] > 1 && (k < 11 || d[e] == 30)) {
			printf "{\"time\": \"%d\", \"entity\": \"n%d\", \"pop\": %d}\n", t, e, st[e, d[e]]
			d[e]--
		} else {
			d[e]++
			st[e, d[e]] = int(x / 60) % 3
			tg[e, d[e]] = k == 19 ? ", \"tag\": \"f\"" : ""
			printf "{\"time\": \"%d\", \"entity\": \"n%d\", \"push\": %d%s}\n", t, e, st[e, d[e]], tg[e, d[e]]
		}
	}
}
