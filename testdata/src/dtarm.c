/*
 * dtarm.c - aarch64 addressing modes with a known answer, for data-type
 * attribution (issue 19): pair loads and stores (ldp/stp: the access is
 * the first register's, at the lower address), post-indexed and
 * pre-indexed loads walking an array (the base register moved by the
 * access itself), a global reached through ADRP and an LDR's low 12
 * bits, a global's member address made by ADRP+ADD, and load-acquire /
 * store-release (no offset: the member's address computed before; the
 * stdatomic.h macros keep it in a pointer variable of their own, an
 * atomic_int *, which DWARF places in the register: the innermost
 * variable there types the access, as perf's lookup goes).
 * Marked as dtypes.c: "dt: TYPE +OFFSET (MEMBER)"; built for aarch64
 * only (testdata/dtypes.md), tests/unit/check_datatype.c holds every
 * load and store on a marked line to it.  Usage: dtarm [iterations]
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

struct pair {
	long a, b;
};

struct point {
	int x, y;
};

struct gauge {
	long total;
	long peak;
	atomic_int flag;
	atomic_int ready;
};

struct gauge meter; /* a global struct */

__attribute__((noinline)) long pair_sum(const struct pair *p)
{
	return p->a + p->b; /* dt: struct pair +0 (a) */
}

__attribute__((noinline)) void pair_set(struct pair *p, long a, long b)
{
	/* one stp: both members, the first register's at +0 */
	p->a = a, p->b = b; /* dt: struct pair +0 (a) */
}

__attribute__((noinline)) long xs_post(const struct point *p, long n)
{
	long s = 0;

	while (n--)
		s += (p++)->x; /* dt: struct point +0 (x) */
	return s;
}

__attribute__((noinline)) long xs_pre(const struct point *p, long n)
{
	long s = 0;

	while (n--)
		s += (++p)->x; /* dt: struct point +0 (x) */
	return s;
}

__attribute__((noinline)) long gauge_peak(void)
{
	return meter.peak > 0 ? meter.peak : 0; /* dt: struct gauge +8 (peak) */
}

__attribute__((noinline)) void gauge_add(long v)
{
	meter.total += v; /* dt: struct gauge +0 (total) */
}

__attribute__((noinline)) int gauge_ready(const struct gauge *g)
{
	return atomic_load_explicit(&g->ready, memory_order_acquire); /* dt: atomic_int +0 (no field) */
}

__attribute__((noinline)) void gauge_flag(struct gauge *g, int v)
{
	atomic_store_explicit(&g->flag, v, memory_order_release); /* dt: atomic_int +0 (no field) */
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 2000;
	struct pair pr = {1, 2};
	struct point pts[17];
	long total = 0;

	for (int i = 0; i < 17; i++) {
		pts[i].x = i;
		pts[i].y = -i;
	}
	for (long it = 0; it < iters; it++) {
		pair_set(&pr, it, it + 1);
		total += pair_sum(&pr);
		total += xs_post(pts, 16) + xs_pre(pts, 16);
		gauge_add(it);
		total += gauge_peak() + gauge_ready(&meter);
		gauge_flag(&meter, (int)it);
	}
	printf("%ld %ld\n", total, meter.total);
	return 0;
}
