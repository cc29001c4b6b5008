/*
 * dtchain.c - members reached through a pointer that was itself loaded
 * through a loaded pointer (t->mid->leaf->val), for data-type
 * attribution (issue 19): no variable's DWARF location holds the
 * register with t->mid->leaf, only the types of the members loaded on
 * the way say what it points to, as perf's register tracking follows
 * them (tools/perf/util/annotate-data.c's type state).  Chains start at
 * a parameter (in a register at -O2, in a stack slot at -O0, where
 * t->mid->weight is already two loads deep), a global pointer and a
 * call's result.
 * Marked as dtypes.c: "dt: TYPE +OFFSET (MEMBER)", the access on the
 * line to the marker's type (the loads of the pointers on the way are
 * other types' members); built for x86_64 and aarch64 at -O2 and -O0
 * (testdata/dtypes.md), tests/unit/check_datatype.c holds every marked
 * line to it.  Usage: dtchain [iterations]
 */
#include <stdio.h>
#include <stdlib.h>

struct leaf {
	long pad;
	int val;
	int cnt;
	double w;
};

struct mid {
	int tag;
	struct leaf *leaf;
	struct mid *peer;
	long weight;
};

struct top {
	long id;
	struct mid *mid;
	struct top *next;
};

struct top *root; /* a global pointer */

/* the load stays on its line (aarch64's gcc puts a function's last one
 * on its closing brace otherwise) */
#define KEEP(v) asm volatile("" : : "g"(v))

__attribute__((noinline)) int leaf_val(struct top *t)
{
	int v = t->mid->leaf->val; /* dt: struct leaf +8 (val) */

	KEEP(v);
	return v;
}

__attribute__((noinline)) void bump_weight(struct top *t)
{
	t->mid->weight += 1; /* dt: struct mid +24 (weight) */
}

__attribute__((noinline)) long peer_leaf(struct top *t)
{
	struct mid *p = t->mid->peer;

	long c = p->leaf->cnt; /* dt: struct leaf +12 (cnt) */

	KEEP(c);
	return c;
}

__attribute__((noinline)) long second_id(struct top *t)
{
	struct top *n = t->next;

	n = n->next;
	long id = n->id; /* dt: struct top +0 (id) */

	KEEP(id);
	return id;
}

__attribute__((noinline)) int root_cnt(void)
{
	int c = root->mid->leaf->cnt; /* dt: struct leaf +12 (cnt) */

	KEEP(c);
	return c;
}

__attribute__((noinline)) double leaf_w(struct top *t, long i)
{
	double w = t->mid->leaf[i & 3].w; /* dt: struct leaf +16 (w) */

	KEEP(w);
	return w;
}

__attribute__((noinline)) struct top *pick(long k)
{
	return k & 1 ? root : root->next;
}

__attribute__((noinline)) int picked_val(long k)
{
	int v = pick(k)->mid->leaf->val; /* dt: struct leaf +8 (val) */

	KEEP(v);
	return v;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, sum = 0;
	static struct leaf leaves[4] = {{1, 2, 3, 0.5}, {4, 5, 6, 1.5},
					{7, 8, 9, 2.5}, {10, 11, 12, 3.5}};
	static struct mid mids[2] = {{1, leaves, &mids[1], 0},
				     {2, leaves + 2, &mids[0], 0}};
	static struct top tops[3] = {{1, &mids[0], &tops[1]},
				     {2, &mids[1], &tops[2]},
				     {3, &mids[0], &tops[0]}};
	double w = 0;

	root = tops;
	for (long i = 0; i < n; i++) {
		struct top *t = &tops[i % 3];

		sum += leaf_val(t);
		bump_weight(t);
		sum += peer_leaf(t);
		sum += second_id(t);
		sum += root_cnt();
		w += leaf_w(t, i);
		sum += picked_val(i);
	}
	printf("%ld %g %ld\n", sum, w, mids[0].weight);
	return 0;
}
