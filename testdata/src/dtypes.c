/*
 * dtypes.c - struct accesses with a known answer, for data-type
 * attribution (pdtool report -s type,typeoff; issue 19).  Each access
 * that matters carries its expected attribution as a comment on its
 * line, "dt: TYPE +OFFSET (MEMBER)", which tests/unit/check_datatype.c
 * reads as the ground truth: every load or store the compiler put on
 * such a line must be attributed so (at -O2, where the pointers live in
 * registers; the parameters are volatile so that each iteration loads
 * again).  Usage: dtypes [iterations]
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

struct point {
	int x, y;
};

struct inner {
	long a;
	struct point pt;
};

struct outer {
	int id;
	struct inner in;
	struct point pts[4];
	double weight;
};

struct node {
	long val;
	struct node *next;
};

struct counters {
	unsigned long hits;
	unsigned long misses;
	struct point last;
};

struct counters stats; /* a global struct */

#define container_of(p, type, member)                                          \
	((type *)((char *)(p) - offsetof(type, member)))

__attribute__((noinline)) long nested(volatile struct outer *o, int n)
{
	long sum = 0;

	for (int i = 0; i < n; i++) {
		sum += o->in.pt.y; /* dt: struct outer +20 (in.pt.y) */
		sum += o->id;      /* dt: struct outer +0 (id) */
		o->in.a += i;      /* dt: struct outer +8 (in.a) */
	}
	return sum;
}

__attribute__((noinline)) long array_member(volatile struct outer *o, int n)
{
	long sum = 0;

	for (int i = 0; i < n; i++) {
		sum += o->pts[2].y; /* dt: struct outer +44 (pts[2].y) */
		sum += o->pts[1].x; /* dt: struct outer +32 (pts[1].x) */
	}
	return sum;
}

__attribute__((noinline)) long walk_list(volatile struct node *head)
{
	long sum = 0;

	for (volatile struct node *p = head; p; p = p->next) /* dt: struct node +8 (next) */
		sum += p->val; /* dt: struct node +0 (val) */
	return sum;
}

__attribute__((noinline)) long points(volatile struct point *v, int n)
{
	long sum = 0;

	for (int i = 0; i < n; i++)
		sum += v[i].y; /* dt: struct point +4 (y) */
	return sum;
}

__attribute__((noinline)) void count(long v)
{
	if (v & 1)
		stats.hits++; /* dt: struct counters +0 (hits) */
	else
		stats.misses++; /* dt: struct counters +8 (misses) */
	stats.last.y = (int)v; /* dt: struct counters +20 (last.y) */
}

__attribute__((noinline)) long from_member(struct point *pt)
{
	struct inner *in = container_of(pt, struct inner, pt);

	return in->a + pt->x;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 2000;
	struct outer o = {.id = 1, .in = {2, {3, 4}}, .weight = 1.5};
	struct node nodes[64];
	struct point pv[256];
	long total = 0;

	for (int i = 0; i < 64; i++) {
		nodes[i].val = i;
		nodes[i].next = i + 1 < 64 ? &nodes[i + 1] : NULL;
	}
	for (int i = 0; i < 256; i++) {
		pv[i].x = i;
		pv[i].y = -i;
	}
	for (long it = 0; it < iters; it++) {
		total += nested(&o, 1000);
		total += array_member(&o, 1000);
		total += walk_list(nodes);
		total += points(pv, 256);
		total += from_member(&o.in.pt);
		for (int k = 0; k < 100; k++)
			count(total + k);
	}
	printf("%ld %lu %lu\n", total, stats.hits, stats.misses);
	return 0;
}
