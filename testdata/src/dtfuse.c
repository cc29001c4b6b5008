/*
 * dtfuse.c - memory accesses a timer's sample lands after (dtypes.md):
 * a read-modify-write of a member, then an instruction without memory
 * operand, and a compare of a member before a conditional jump.  perf
 * >= 6.8 gives a sample on the second of two instructions the x86 CPU
 * fuses (cmp, test, add, sub, and, inc, dec then anything but jmp) to
 * the first's memory access; tests/golden/datatype has perf 7.2's
 * answer on dtfuse.perf.data.  Each line that touches a member says
 * which, "dt: TYPE +OFFSET (MEMBER)", as dtypes.c's lines do.
 */
#include <stdlib.h>

struct counter {
	long id;
	long hits;
	long misses;
	int limit;
};

__attribute__((noinline)) long bump(struct counter *c, long n)
{
	c->hits += n; /* dt: struct counter +0x8 (hits) */
	n = (n * 7) ^ (n >> 2);
	if (c->limit == (int)n) /* dt: struct counter +0x18 (limit) */
		n++;
	return n ^ (n >> 3);
}

/* the instruction after the add has a memory operand (lea's), so perf
 * gives its samples no type: only an instruction without one is fused */
__attribute__((noinline)) long scale(struct counter *c, long n)
{
	c->misses += n; /* dt: struct counter +0x10 (misses) */
	return n * 5 + 3;
}

int main(int argc, char **argv)
{
	static struct counter ctr = {1, 0, 0, -1};
	long t = 0, n = argc > 1 ? atol(argv[1]) : 100000000;

	for (long i = 0; i < n; i++)
		t += bump(&ctr, i) + scale(&ctr, t);
	return (int)(t & 1);
}
