#!/bin/sh
# tests/kernel/workload.sh DIR: the small workload the kernel tests trace
# (tests/lua/test_kernel.lua): a make -j2 of four C files, a dd with
# oflag=direct (block I/O that skips the page cache), and a sleeper, at
# once.  DIR is a scratch directory of the caller's.
d=$1
mkdir -p "$d/src" || exit 1
for i in 1 2 3 4; do
	printf 'int f%d(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * %d; return s; }\n' \
	    "$i" "$i" > "$d/src/f$i.c"
done
printf 'all: f1.o f2.o f3.o f4.o\n%%.o: %%.c\n\tcc -O2 -c -o $@ $<\n' > "$d/src/Makefile"
(cd "$d/src" && make -s -j2 > /dev/null 2>&1) &
dd if=/dev/zero of="$d/dd.out" bs=64k count=32 oflag=direct 2> /dev/null &
(for i in 1 2 3 4 5; do sleep 0.01; done) &
wait
rm -f "$d/dd.out"
