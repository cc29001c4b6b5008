/*
 * check_symtree.c - the red-black tree of a DSO's symbols (pda_symtree.c)
 * against models that do not share its code:
 *
 *   - random insertions and erasures against a plain list kept in start
 *     order, an equal start after the ones already there: the tree's
 *     in-order walk must give the same nodes in the same order, which is
 *     the order perf's fixups see;
 *   - the red-black rules and the links after every operation;
 *   - find against a linear scan where no two extents overlap (where they
 *     do, what find meets first depends on the shape: the tree must then
 *     at least answer with a symbol that holds the address);
 *   - the exact shapes and colours the textbook cases give on small
 *     sequences, worked out by hand.
 */
#include "pda_symtab_int.h"
#include "testrng.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NIL PDA_SYM_NIL

static uint64_t rng_state;

static uint64_t rng(void)
{
	return tr_next(&rng_state);
}

static void tree_init(struct pda_symtab *t, struct pda_sym *v)
{
	memset(t, 0, sizeof(*t));
	t->v = v;
	t->root = NIL;
}

/*
 * Black height of the subtree at n, or -1 where a rule or a link is
 * broken.  (Plain tests, not ck_assert: in fork mode every ck_assert
 * talks to the parent process, too slow for a walk after every
 * operation.)
 */
static int check_node(const struct pda_symtab *t, uint32_t n, uint32_t parent,
		      size_t *count)
{
	const struct pda_sym *p;
	int lh, rh;

	if (n == NIL)
		return 1;
	p = &t->v[n];
	(*count)++;
	if (p->parent != parent)
		return -1;
	if (p->red && ((p->left != NIL && t->v[p->left].red) ||
		       (p->right != NIL && t->v[p->right].red)))
		return -1;
	lh = check_node(t, p->left, n, count);
	rh = check_node(t, p->right, n, count);
	if (lh < 0 || lh != rh)
		return -1;
	return lh + !p->red;
}

static void check_rules(const struct pda_symtab *t, size_t nr_live, int op)
{
	size_t count = 0;

	if (t->root != NIL && t->v[t->root].red)
		ck_abort_msg("red root after operation %d", op);
	if (check_node(t, t->root, NIL, &count) < 0)
		ck_abort_msg("red-black rules or links broken after operation "
			     "%d",
			     op);
	if (count != nr_live)
		ck_abort_msg("%zu nodes linked, %zu live", count, nr_live);
}

/* The model: live nodes in the order the tree must walk them. */
struct model {
	uint32_t *idx;
	size_t nr;
};

static void model_insert(struct model *m, const struct pda_sym *v, uint32_t n)
{
	size_t at = m->nr;

	/* after every node whose start is not above n's */
	while (at > 0 && v[m->idx[at - 1]].start > v[n].start)
		at--;
	memmove(m->idx + at + 1, m->idx + at, (m->nr - at) * sizeof(*m->idx));
	m->idx[at] = n;
	m->nr++;
}

static void model_erase(struct model *m, size_t at)
{
	memmove(m->idx + at, m->idx + at + 1,
		(m->nr - at - 1) * sizeof(*m->idx));
	m->nr--;
}

static void check_order(const struct pda_symtab *t, const struct model *m)
{
	uint32_t n = pda_symtree_first(t);
	size_t i;

	for (i = 0; i < m->nr && n == m->idx[i]; i++)
		n = pda_symtree_next(t, n);
	if (i != m->nr || n != NIL)
		ck_abort_msg("the in-order walk differs from the model at node "
			     "%zu",
			     i);
}

/* Loop index: the range starts are drawn from, and the share of erasures. */
START_TEST(test_random)
{
	static const uint64_t ranges[] = {4, 64, 1000000};
	const uint64_t range = ranges[_i % 3];
	const unsigned erase_pct = (unsigned)(_i / 3) * 20;
	enum { OPS = 3000 };
	struct pda_sym *v = calloc(OPS, sizeof(*v));
	struct model m = {calloc(OPS, sizeof(uint32_t)), 0};
	struct pda_symtab t;
	uint32_t nr = 0;

	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_nonnull(m.idx);
	rng_state = 0x2545F4914F6CDD1Dull + (uint64_t)_i;
	tree_init(&t, v);
	for (int op = 0; op < OPS; op++) {
		if (m.nr && rng() % 100 < erase_pct) {
			size_t at = rng() % m.nr;

			pda_symtree_erase(&t, m.idx[at]);
			model_erase(&m, at);
		} else {
			v[nr].start = rng() % range;
			v[nr].end = v[nr].start + 1 + rng() % 8;
			pda_symtree_insert(&t, nr);
			model_insert(&m, v, nr);
			nr++;
		}
		check_rules(&t, m.nr, op);
		check_order(&t, &m);
		/* any answer holds the address, as perf's does */
		for (int q = 0; q < 4; q++) {
			uint64_t key = rng() % (range + 8);
			uint32_t hit = pda_symtree_find(&t, key);

			if (hit != NIL &&
			    !(v[hit].start <= key &&
			      (key < v[hit].end || key == v[hit].start)))
				ck_abort_msg("find(%llu) gave a symbol that "
					     "does not hold it",
					     (unsigned long long)key);
		}
	}
	free(v);
	free(m.idx);
}
END_TEST

/* Disjoint extents: find is a plain lookup, checked by a linear scan. */
START_TEST(test_find_disjoint)
{
	enum { NR = 2000 };
	struct pda_sym *v = calloc(NR, sizeof(*v));
	bool *live = calloc(NR, sizeof(*live));
	uint32_t *order = calloc(NR, sizeof(*order));
	struct pda_symtab t;

	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_nonnull(live);
	ck_assert_ptr_nonnull(order);
	rng_state = 0x9E3779B97F4A7C15ull;
	tree_init(&t, v);
	/* symbol i covers [16 i, 16 i + size), size 0 to 15, inserted in a
	 * shuffled order */
	for (uint32_t i = 0; i < NR; i++)
		order[i] = i;
	for (uint32_t i = NR - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(rng() % (i + 1)), tmp = order[i];

		order[i] = order[j];
		order[j] = tmp;
	}
	for (uint32_t k = 0; k < NR; k++) {
		uint32_t i = order[k];

		v[i].start = 16 * (uint64_t)i;
		v[i].end = v[i].start + rng() % 16;
		pda_symtree_insert(&t, i);
		live[i] = true;
		if (rng() % 4 == 0) {
			uint32_t gone = order[rng() % (k + 1)];

			if (live[gone]) {
				pda_symtree_erase(&t, gone);
				live[gone] = false;
			}
		}
	}
	for (uint64_t key = 0; key < 16 * (uint64_t)NR + 16; key++) {
		uint32_t want = NIL;

		for (uint32_t i = 0; i < NR && want == NIL; i++)
			if (live[i] && v[i].start <= key &&
			    (key < v[i].end || key == v[i].start))
				want = i;
		if (pda_symtree_find(&t, key) != want)
			ck_abort_msg("find(%llu)", (unsigned long long)key);
	}
	free(v);
	free(live);
	free(order);
}
END_TEST

/* Append "start colour" or a single character to out, which holds *len. */
static void put(char *out, size_t size, size_t *len, uint64_t start, char c)
{
	int w = start == UINT64_MAX
			? snprintf(out + *len, size - *len, "%c", c)
			: snprintf(out + *len, size - *len, "%llu%c",
				   (unsigned long long)start, c);

	ck_assert(w > 0 && (size_t)w < size - *len);
	*len += (size_t)w;
}

/* Append the subtree at n as "start colour(left,right)", "-" for none. */
static void shape(const struct pda_symtab *t, uint32_t n, char *out,
		  size_t size, size_t *len)
{
	const struct pda_sym *p;

	if (n == NIL) {
		put(out, size, len, UINT64_MAX, '-');
		return;
	}
	p = &t->v[n];
	put(out, size, len, p->start, p->red ? 'R' : 'B');
	if (p->left == NIL && p->right == NIL)
		return;
	put(out, size, len, UINT64_MAX, '(');
	shape(t, p->left, out, size, len);
	put(out, size, len, UINT64_MAX, ',');
	shape(t, p->right, out, size, len);
	put(out, size, len, UINT64_MAX, ')');
}

/*
 * Operations (a start to insert, or -N to erase the node of start N) and
 * the tree after them.  Worked out by hand from the textbook cases.
 */
static const struct {
	int ops[16];
	size_t nr_ops;
	const char *want;
} shapes[] = {
	/* 3: case 3 at the root; 4: case 1; 5: case 3; 6: case 1 below the
	 * root; 7: case 3 */
	{{1, 2, 3, 4, 5, 6, 7}, 7, "2B(1B,4R(3B,6B(5R,7R)))"},
	/* erase the root: its successor 3 (black, a leaf) takes its place
	 * and colour; the missing black left of 4 is case 4 */
	{{1, 2, 3, 4, 5, 6, 7, -2}, 8, "3B(1B,6R(4B(-,5R),7B))"},
	/* 2 under 3, 1 under 2: case 3 rotates right at 3 */
	{{3, 2, 1}, 3, "2B(1R,3R)"},
	/* 5 makes an inner grandchild: case 2 then case 3 */
	{{3, 7, 5}, 3, "5B(3R,7R)"},
	/* erase a red leaf: nothing to repair */
	{{2, 1, 3, -3}, 4, "2B(1R,-)"},
	/* erase a black leaf whose sibling is black with no red child and
	 * whose parent is red: case 2 ends at the red parent */
	{{2, 1, 4, 3, 5, 6, -6, -3}, 8, "2B(1B,4B(-,5R))"},
	/* erase a black leaf whose sibling is red: case 1, then case 2 */
	{{2, 1, 4, 3, 5, 6, -1}, 7, "4B(2B(-,3R),5B(-,6R))"},
	/* equal starts go right: the second 5 under the first */
	{{5, 5}, 2, "5B(-,5R)"},
};

START_TEST(test_shapes)
{
	struct pda_sym v[16];
	struct pda_symtab t;
	char got[512];
	size_t len = 0;
	uint32_t nr = 0;

	memset(v, 0, sizeof(v));
	tree_init(&t, v);
	for (size_t k = 0; k < shapes[_i].nr_ops; k++) {
		const int op = shapes[_i].ops[k];

		if (op > 0) {
			v[nr].start = (uint64_t)op;
			v[nr].end = v[nr].start + 1;
			pda_symtree_insert(&t, nr++);
		} else {
			uint32_t n = 0;

			while (n < nr && v[n].start != (uint64_t)-op)
				n++;
			ck_assert_uint_lt(n, nr);
			pda_symtree_erase(&t, n);
			v[n].start = UINT64_MAX; /* not found again */
		}
	}
	shape(&t, t.root, got, sizeof(got), &len);
	ck_assert_str_eq(got, shapes[_i].want);
}
END_TEST

Suite *symtree_suite(void)
{
	Suite *s = suite_create("symtree");
	TCase *tc = tcase_create("symtree");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_random, 0, 15);
	tcase_add_test(tc, test_find_disjoint);
	tcase_add_loop_test(tc, test_shapes, 0,
			    (int)(sizeof(shapes) / sizeof(shapes[0])));
	suite_add_tcase(s, tc);
	return s;
}
