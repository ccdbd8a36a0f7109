# The trace of the value and nested entities' browser tests (run with
# -v title=NAME): 4ms; gauge takes value 2i+1 at i us (4000 values);
# worker pushes a at 5k us, b at +1.5us, pops them at +3us and +4us (800
# cycles); cpu is plain.
BEGIN {
	print "{\"start\": [0, 0], \"title\": \"" title "\", \"states\": {\"idle\": {\"value\": 0, \"color\": \"#e0e0e0\"}, \"a\": {\"value\": 1, \"color\": \"#2e7d32\"}, \"b\": {\"value\": 2, \"color\": \"#c62828\"}}}"
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
}
