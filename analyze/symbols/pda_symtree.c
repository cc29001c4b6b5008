/*
 * pda_symtree.c - the red-black tree a DSO's symbols live in, so that
 * lookups where symbol extents overlap give perf's answers.  Nodes live
 * in pda_symtab.v and link by index.
 *
 * Why the tree's exact shape matters.  perf keeps a DSO's symbols in a
 * red-black tree ordered by start (util/symbol.c: symbols__insert sends
 * an equal start to the right), and symbols__find walks down from the
 * root and stops at the first node whose extent holds the address.  Where
 * extents overlap (nested symbols, aliases of different sizes, what
 * perf's fixups leave), the node found first depends on which of them sits
 * higher on the path, that is on the tree's shape, which depends on the
 * order of the insertions and erasures and on how each one rebalances.
 * The in-order sequence does not: rotations keep it, and equal starts
 * going right keeps them in insertion order, which is all the fixups that
 * walk the tree in order (pda_symtab.c) see.  So this tree must not only
 * be a red-black tree but take, after every operation, the very shape
 * and colours perf's takes.
 *
 * perf's tree is the kernel's (lib/rbtree.c, GPL-2.0).  This file is not
 * derived from it: it implements the textbook algorithm, bottom-up
 * insertion and deletion as in Cormen, Leiserson, Rivest and Stein,
 * Introduction to Algorithms, chapter 13 (RB-INSERT-FIXUP's three cases,
 * RB-DELETE with TRANSPLANT and the in-order successor for a node with
 * two children, RB-DELETE-FIXUP's four cases), written here once for both
 * mirror images with a direction index, and without a sentinel node (an
 * absent child is PDA_SYM_NIL, so the deletion fixup carries the parent
 * of the position it repairs).  That algorithm and the kernel's make the
 * same decisions: the same case is chosen in the same situation, with
 * the same rotations and the same colours after it (the kernel's code is
 * an optimised form of the same case analysis), so both give the same
 * tree for the same operations.  This was checked, before the kernel-
 * derived version this replaces was removed, by running both on the same
 * random sequences of insertions (starts drawn from ranges of 8 to
 * 100,000 values, so with many equal ones) and erasures (0 to 89% of the
 * operations), comparing the root, every live node's links and colour and
 * the answers of find after every operation: 5,000 sequences, 15.8
 * million operations and 63 million finds, no difference.  The symbol
 * tests (tests/unit/check_elf.c) compare about 4,600 lookups with perf
 * 6.1's names.  tests/unit/check_symtree.c checks the tree
 * against a sorted list after random operations, the red-black rules,
 * and the shapes the textbook cases give on small examples.
 */
#include "pda_symtab_int.h"

#define NIL PDA_SYM_NIL

enum { LEFT = 0, RIGHT = 1 };

static struct pda_sym *node(struct pda_symtab *t, uint32_t n)
{
	return &t->v[n];
}

/* The slot holding n's child on side dir. */
static uint32_t *child(struct pda_symtab *t, uint32_t n, int dir)
{
	return dir == LEFT ? &node(t, n)->left : &node(t, n)->right;
}

static bool is_red(struct pda_symtab *t, uint32_t n)
{
	return n != NIL && node(t, n)->red;
}

static void paint(struct pda_symtab *t, uint32_t n, bool red)
{
	if (n != NIL)
		node(t, n)->red = red;
}

/* The side of its parent p that n hangs on. */
static int side(struct pda_symtab *t, uint32_t p, uint32_t n)
{
	return *child(t, p, LEFT) == n ? LEFT : RIGHT;
}

/* Make repl (NIL allowed) take old's place under old's parent. */
static void transplant(struct pda_symtab *t, uint32_t old, uint32_t repl)
{
	const uint32_t p = node(t, old)->parent;

	if (p == NIL)
		t->root = repl;
	else
		*child(t, p, side(t, p, old)) = repl;
	if (repl != NIL)
		node(t, repl)->parent = p;
}

/*
 * Rotate at x towards dir: x's child on the other side, up, takes x's
 * place, x becomes its child on side dir and takes over its inner
 * subtree.  (dir LEFT is the textbook's LEFT-ROTATE.)
 */
static void rotate(struct pda_symtab *t, uint32_t x, int dir)
{
	const uint32_t up = *child(t, x, !dir);
	const uint32_t inner = *child(t, up, dir);

	*child(t, x, !dir) = inner;
	if (inner != NIL)
		node(t, inner)->parent = x;
	transplant(t, x, up);
	*child(t, up, dir) = x;
	node(t, x)->parent = up;
}

/* Restore the red-black rules after z, red, was linked in. */
static void insert_fixup(struct pda_symtab *t, uint32_t z)
{
	while (node(t, z)->parent != NIL && is_red(t, node(t, z)->parent)) {
		uint32_t p = node(t, z)->parent;
		/* p is red, so not the root: g exists */
		const uint32_t g = node(t, p)->parent;
		const int dir = side(t, g, p);
		const uint32_t uncle = *child(t, g, !dir);

		if (is_red(t, uncle)) {
			/* case 1: push g's blackness down to p and uncle */
			paint(t, p, false);
			paint(t, uncle, false);
			paint(t, g, true);
			z = g;
			continue;
		}
		if (side(t, p, z) != dir) {
			/* case 2: make z an outer grandchild */
			z = p;
			rotate(t, z, dir);
			p = node(t, z)->parent;
		}
		/* case 3 */
		paint(t, p, false);
		paint(t, g, true);
		rotate(t, g, !dir);
	}
	paint(t, t->root, false);
}

/* Link node n in by its start, an equal start to the right of others. */
void pda_symtree_insert(struct pda_symtab *t, uint32_t n)
{
	uint32_t parent = NIL, at = t->root;
	int dir = LEFT;

	while (at != NIL) {
		parent = at;
		dir = node(t, n)->start < node(t, at)->start ? LEFT : RIGHT;
		at = *child(t, at, dir);
	}
	node(t, n)->parent = parent;
	node(t, n)->left = node(t, n)->right = NIL;
	node(t, n)->red = 1;
	if (parent == NIL)
		t->root = n;
	else
		*child(t, parent, dir) = n;
	insert_fixup(t, n);
}

/*
 * Restore the rules after a black node left position x (NIL allowed)
 * under parent xp short of one black.
 */
static void erase_fixup(struct pda_symtab *t, uint32_t x, uint32_t xp)
{
	while (x != t->root && !is_red(t, x)) {
		/* a black went missing on x's side: its sibling w exists */
		const int dir = *child(t, xp, LEFT) == x ? LEFT : RIGHT;
		uint32_t w = *child(t, xp, !dir);

		if (is_red(t, w)) {
			/* case 1: make the sibling black */
			paint(t, w, false);
			paint(t, xp, true);
			rotate(t, xp, dir);
			w = *child(t, xp, !dir);
		}
		if (!is_red(t, *child(t, w, LEFT)) &&
		    !is_red(t, *child(t, w, RIGHT))) {
			/* case 2: take one black off w's side too, move up */
			paint(t, w, true);
			x = xp;
			xp = node(t, x)->parent;
			continue;
		}
		if (!is_red(t, *child(t, w, !dir))) {
			/* case 3: make w's outer child the red one */
			paint(t, *child(t, w, dir), false);
			paint(t, w, true);
			rotate(t, w, !dir);
			w = *child(t, xp, !dir);
		}
		/* case 4 */
		node(t, w)->red = node(t, xp)->red;
		paint(t, xp, false);
		paint(t, *child(t, w, !dir), false);
		rotate(t, xp, dir);
		x = t->root;
	}
	paint(t, x, false);
}

/* Unlink node n; its own links are left as they were. */
void pda_symtree_erase(struct pda_symtab *t, uint32_t n)
{
	uint32_t x, xp, y;
	bool gone_red;

	if (node(t, n)->left == NIL || node(t, n)->right == NIL) {
		x = node(t, n)->left == NIL ? node(t, n)->right
					    : node(t, n)->left;
		xp = node(t, n)->parent;
		gone_red = node(t, n)->red;
		transplant(t, n, x);
	} else {
		/* n's in-order successor y takes its place and colour */
		y = node(t, n)->right;
		while (node(t, y)->left != NIL)
			y = node(t, y)->left;
		gone_red = node(t, y)->red;
		x = node(t, y)->right;
		if (node(t, y)->parent == n) {
			xp = y;
		} else {
			xp = node(t, y)->parent;
			transplant(t, y, x);
			node(t, y)->right = node(t, n)->right;
			node(t, node(t, y)->right)->parent = y;
		}
		transplant(t, n, y);
		node(t, y)->left = node(t, n)->left;
		node(t, node(t, y)->left)->parent = y;
		node(t, y)->red = node(t, n)->red;
	}
	if (!gone_red)
		erase_fixup(t, x, xp);
}

uint32_t pda_symtree_first(const struct pda_symtab *t)
{
	uint32_t n = t->root;

	if (n == NIL)
		return NIL;
	while (t->v[n].left != NIL)
		n = t->v[n].left;
	return n;
}

uint32_t pda_symtree_next(const struct pda_symtab *t, uint32_t n)
{
	uint32_t up;

	if (t->v[n].right != NIL) {
		n = t->v[n].right;
		while (t->v[n].left != NIL)
			n = t->v[n].left;
		return n;
	}
	/* climb while coming from a right child */
	for (up = t->v[n].parent; up != NIL && t->v[up].right == n;
	     up = t->v[up].parent)
		n = up;
	return up;
}

/*
 * perf's symbols__find: go left of a node the key is below, right of one
 * it is past (a zero-size symbol holds its start only), else stop there.
 */
uint32_t pda_symtree_find(const struct pda_symtab *t, uint64_t key)
{
	uint32_t n = t->root;

	while (n != NIL) {
		const struct pda_sym *p = &t->v[n];

		if (key < p->start)
			n = p->left;
		else if (key > p->end || (key == p->end && key != p->start))
			n = p->right;
		else
			return n;
	}
	return NIL;
}
