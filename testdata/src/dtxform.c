/*
 * dtxform.c - indexed loads and stores, for data-type attribution on
 * ppc64 (X-form: RA + RB, no displacement) and s390x (base + index):
 * each line that touches a member says which, as dtypes.c's markers
 * (testdata/dtypes.md); tests/unit/check_datatype.c holds every access
 * of the marker's type on the line to it.
 */
#include <stdio.h>
#include <stdlib.h>

struct point {
	int x;
	int y;
};

struct rec {
	long key;
	struct point pt;
};

long sink;

__attribute__((noinline)) void first_x(volatile struct point *v, long i)
{
	sink += v[i].x; /* dt: struct point +0 (x) */
}

__attribute__((noinline)) void set_key(volatile struct rec *r, long i, long k)
{
	r[i].key = k; /* dt: struct rec +0 (key) */
}

__attribute__((noinline)) void set_y(volatile struct rec *r, long i, int y)
{
	r[i].pt.y = y; /* dt: struct rec +12 (pt.y) */
}

__attribute__((noinline)) void key_at(volatile struct rec *r,
				      const long *idx, long k)
{
	sink += r[idx[k]].key; /* dt: struct rec +0 (key) */
}

__attribute__((noinline)) long sum_x(volatile struct point *v,
				     const long *idx, long n)
{
	long s = 0;

	for (long k = 0; k < n; k++)
		s += v[idx[k]].x; /* dt: struct point +0 (x) */
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, sum = 0;
	static struct point pts[64];
	static struct rec recs[64];
	static long idx[64];

	for (long i = 0; i < 64; i++)
		idx[i] = (i * 7) & 63;
	for (long i = 0; i < n; i++) {
		first_x(pts, i & 63);
		set_key(recs, i & 63, i);
		set_y(recs, (i + 1) & 63, (int)i);
		key_at(recs, idx, i & 63);
		sum += sum_x(pts, idx, 64);
	}
	printf("%ld\n", sum + sink);
	return 0;
}
