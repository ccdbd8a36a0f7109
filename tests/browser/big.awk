# big.awk: the largest default output (test_viewer.sh, bench/viewer):
# 1000 entities, 100 transitions each, over 1s, in three states.
BEGIN {
	print "{\"start\": [0, 0], \"title\": \"big\", \"states\": {\"a\": {\"value\": 0}, \"b\": {\"value\": 1}, \"c\": {\"value\": 2}}}"
	for (i = 0; i < 100000; i++)
		printf "{\"time\": \"%d\", \"entity\": \"thread-%d\", \"state\": %d}\n", i * 10000, i % 1000, (i * 7 + int(i / 1000)) % 3
}
