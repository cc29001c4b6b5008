/*
 * dtcall.c - accesses through the pointer a call returns, for data-type
 * attribution (issue 19): no variable holds the result (DWARF places
 * none in the return register), so only the callee's return type, from
 * its DWARF subprogram, says what the register points to, as perf's
 * register tracking takes it after a call: the other registers a call
 * may change are forgotten, and a second call's result replaces the
 * first's.  count_ends() touches the global table (196 bytes) in its
 * first and third 64-byte cache lines (annotate --data-type
 * --cacheline; testdata/dtypes.md).
 * Marked as dtypes.c: "dt: TYPE +OFFSET (MEMBER)"; built for x86_64 and
 * aarch64 (testdata/dtypes.md), tests/unit/check_datatype.c holds every
 * load and store on a marked line to it.  Usage: dtcall [iterations]
 */
#include <stdio.h>
#include <stdlib.h>

struct entry {
	long key;
	long hits;
	struct {
		int lo, hi;
	} range;
};

struct table {
	int size;
	struct entry slots[8];
};

static struct table tab;

__attribute__((noinline)) struct entry *slot_of(long key)
{
	return &tab.slots[key & 7];
}

__attribute__((noinline)) void touch(long key)
{
	slot_of(key)->hits++; /* dt: struct entry +8 (hits) */
}

__attribute__((noinline)) long span(long key)
{
	int hi = slot_of(key)->range.hi; /* dt: struct entry +20 (range.hi) */

	asm volatile("" : : "r"(hi)); /* the load stays on its line */
	return hi * key;
}

__attribute__((noinline)) void mark(long key)
{
	slot_of(key)->range.lo = (int)key; /* dt: struct entry +16 (range.lo) */
}

__attribute__((noinline)) long twice(long key)
{
	long a = slot_of(key)->key; /* dt: struct entry +0 (key) */

	return a + slot_of(key + 1)->range.lo; /* dt: struct entry +16 (range.lo) */
}

__attribute__((noinline)) void count_ends(long key)
{
	tab.size++; /* dt: struct table +0 (size) */
	tab.slots[7].hits += key; /* dt: struct table +184 (slots[7].hits) */
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, sum = 0;

	for (long i = 0; i < n; i++) {
		touch(i);
		mark(i);
		count_ends(i);
		sum += span(i) + twice(i);
	}
	printf("%ld\n", sum);
	return 0;
}
