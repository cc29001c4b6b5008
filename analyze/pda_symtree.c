/*
 * pda_symtree.c - the red-black tree perf keeps a DSO's symbols in
 * (rb_root_cached, util/symbol.c), replayed so that lookups where symbol
 * extents overlap give perf's answers: insertion and erasure rebalance
 * exactly as the kernel's lib/rbtree.c does (__rb_insert,
 * __rb_erase_augmented, ____rb_erase_color: the same cases, colours and
 * rotations), and find walks it as symbols__find does.  Nodes live in
 * pda_symtab.v and link by index.
 */
#include "pda_symtab_int.h"

#define N(i) (t->v[(i)])

static void change_child(struct pda_symtab *t, uint32_t old, uint32_t new,
			 uint32_t parent)
{
	if (parent == PDA_SYM_NIL)
		t->root = new;
	else if (N(parent).left == old)
		N(parent).left = new;
	else
		N(parent).right = new;
}

/* new takes old's place and colour; old goes under new with colour red. */
static void rotate_set_parents(struct pda_symtab *t, uint32_t old, uint32_t new,
			       uint8_t red)
{
	uint32_t parent = N(old).parent;

	N(new).parent = parent;
	N(new).red = N(old).red;
	N(old).parent = new;
	N(old).red = red;
	change_child(t, old, new, parent);
}

static void set_parent_black(struct pda_symtab *t, uint32_t n, uint32_t parent)
{
	N(n).parent = parent;
	N(n).red = 0;
}

static void insert_fixup(struct pda_symtab *t, uint32_t node)
{
	uint32_t parent = N(node).parent, gparent, tmp;

	for (;;) {
		if (parent == PDA_SYM_NIL) {
			N(node).red = 0;
			break;
		}
		if (!N(parent).red)
			break;
		gparent = N(parent).parent;
		tmp = N(gparent).right;
		if (parent != tmp) { /* parent is gparent's left child */
			if (tmp != PDA_SYM_NIL && N(tmp).red) {
				set_parent_black(t, tmp, gparent);
				set_parent_black(t, parent, gparent);
				node = gparent;
				parent = N(node).parent;
				N(node).red = 1;
				continue;
			}
			tmp = N(parent).right;
			if (node == tmp) { /* left rotate at parent */
				tmp = N(node).left;
				N(parent).right = tmp;
				N(node).left = parent;
				if (tmp != PDA_SYM_NIL)
					set_parent_black(t, tmp, parent);
				N(parent).parent = node;
				N(parent).red = 1;
				parent = node;
				tmp = N(node).right;
			}
			/* right rotate at gparent */
			N(gparent).left = tmp;
			N(parent).right = gparent;
			if (tmp != PDA_SYM_NIL)
				set_parent_black(t, tmp, gparent);
			rotate_set_parents(t, gparent, parent, 1);
			break;
		}
		tmp = N(gparent).left;
		if (tmp != PDA_SYM_NIL && N(tmp).red) {
			set_parent_black(t, tmp, gparent);
			set_parent_black(t, parent, gparent);
			node = gparent;
			parent = N(node).parent;
			N(node).red = 1;
			continue;
		}
		tmp = N(parent).left;
		if (node == tmp) { /* right rotate at parent */
			tmp = N(node).right;
			N(parent).left = tmp;
			N(node).right = parent;
			if (tmp != PDA_SYM_NIL)
				set_parent_black(t, tmp, parent);
			N(parent).parent = node;
			N(parent).red = 1;
			parent = node;
			tmp = N(node).left;
		}
		/* left rotate at gparent */
		N(gparent).right = tmp;
		N(parent).left = gparent;
		if (tmp != PDA_SYM_NIL)
			set_parent_black(t, tmp, gparent);
		rotate_set_parents(t, gparent, parent, 1);
		break;
	}
}

/* Link node n in as perf's symbols__insert does: equal starts go right. */
void pda_symtree_insert(struct pda_symtab *t, uint32_t n)
{
	uint32_t parent = PDA_SYM_NIL, cur = t->root;
	bool left = false;

	while (cur != PDA_SYM_NIL) {
		parent = cur;
		left = N(n).start < N(cur).start;
		cur = left ? N(cur).left : N(cur).right;
	}
	N(n).parent = parent;
	N(n).left = N(n).right = PDA_SYM_NIL;
	N(n).red = 1;
	if (parent == PDA_SYM_NIL)
		t->root = n;
	else if (left)
		N(parent).left = n;
	else
		N(parent).right = n;
	insert_fixup(t, n);
}

static void erase_color(struct pda_symtab *t, uint32_t parent)
{
	uint32_t node = PDA_SYM_NIL, sibling, tmp1, tmp2;

	for (;;) {
		sibling = N(parent).right;
		if (node != sibling) {	      /* node is parent's left child */
			if (N(sibling).red) { /* left rotate at parent */
				tmp1 = N(sibling).left;
				N(parent).right = tmp1;
				N(sibling).left = parent;
				set_parent_black(t, tmp1, parent);
				rotate_set_parents(t, parent, sibling, 1);
				sibling = tmp1;
			}
			tmp1 = N(sibling).right;
			if (tmp1 == PDA_SYM_NIL || !N(tmp1).red) {
				tmp2 = N(sibling).left;
				if (tmp2 == PDA_SYM_NIL || !N(tmp2).red) {
					/* sibling colour flip */
					N(sibling).parent = parent;
					N(sibling).red = 1;
					if (N(parent).red) {
						N(parent).red = 0;
					} else {
						node = parent;
						parent = N(node).parent;
						if (parent != PDA_SYM_NIL)
							continue;
					}
					break;
				}
				/* right rotate at sibling */
				tmp1 = N(tmp2).right;
				N(sibling).left = tmp1;
				N(tmp2).right = sibling;
				N(parent).right = tmp2;
				if (tmp1 != PDA_SYM_NIL)
					set_parent_black(t, tmp1, sibling);
				tmp1 = sibling;
				sibling = tmp2;
			}
			/* left rotate at parent, colour flips */
			tmp2 = N(sibling).left;
			N(parent).right = tmp2;
			N(sibling).left = parent;
			set_parent_black(t, tmp1, sibling);
			if (tmp2 != PDA_SYM_NIL)
				N(tmp2).parent = parent;
			rotate_set_parents(t, parent, sibling, 0);
			break;
		}
		sibling = N(parent).left;
		if (N(sibling).red) { /* right rotate at parent */
			tmp1 = N(sibling).right;
			N(parent).left = tmp1;
			N(sibling).right = parent;
			set_parent_black(t, tmp1, parent);
			rotate_set_parents(t, parent, sibling, 1);
			sibling = tmp1;
		}
		tmp1 = N(sibling).left;
		if (tmp1 == PDA_SYM_NIL || !N(tmp1).red) {
			tmp2 = N(sibling).right;
			if (tmp2 == PDA_SYM_NIL || !N(tmp2).red) {
				N(sibling).parent = parent;
				N(sibling).red = 1;
				if (N(parent).red) {
					N(parent).red = 0;
				} else {
					node = parent;
					parent = N(node).parent;
					if (parent != PDA_SYM_NIL)
						continue;
				}
				break;
			}
			/* left rotate at sibling */
			tmp1 = N(tmp2).left;
			N(sibling).right = tmp1;
			N(tmp2).left = sibling;
			N(parent).left = tmp2;
			if (tmp1 != PDA_SYM_NIL)
				set_parent_black(t, tmp1, sibling);
			tmp1 = sibling;
			sibling = tmp2;
		}
		/* right rotate at parent, colour flips */
		tmp2 = N(sibling).right;
		N(parent).left = tmp2;
		N(sibling).right = parent;
		set_parent_black(t, tmp1, sibling);
		if (tmp2 != PDA_SYM_NIL)
			N(tmp2).parent = parent;
		rotate_set_parents(t, parent, sibling, 0);
		break;
	}
}

/* Unlink node n (lib/rbtree.c's __rb_erase_augmented, then its fixup). */
void pda_symtree_erase(struct pda_symtab *t, uint32_t n)
{
	uint32_t child = N(n).right, tmp = N(n).left;
	uint32_t parent, rebalance, pparent;
	uint8_t red;

	if (tmp == PDA_SYM_NIL) {
		parent = N(n).parent;
		red = N(n).red;
		change_child(t, n, child, parent);
		if (child != PDA_SYM_NIL) {
			N(child).parent = parent;
			N(child).red = red;
			rebalance = PDA_SYM_NIL;
		} else {
			rebalance = red ? PDA_SYM_NIL : parent;
		}
	} else if (child == PDA_SYM_NIL) {
		parent = N(n).parent;
		N(tmp).parent = parent;
		N(tmp).red = N(n).red;
		change_child(t, n, tmp, parent);
		rebalance = PDA_SYM_NIL;
	} else {
		uint32_t successor = child, child2;

		tmp = N(child).left;
		if (tmp == PDA_SYM_NIL) {
			parent = successor;
			child2 = N(successor).right;
		} else {
			do {
				parent = successor;
				successor = tmp;
				tmp = N(tmp).left;
			} while (tmp != PDA_SYM_NIL);
			child2 = N(successor).right;
			N(parent).left = child2;
			N(successor).right = child;
			N(child).parent = successor;
		}
		tmp = N(n).left;
		N(successor).left = tmp;
		N(tmp).parent = successor;
		pparent = N(n).parent;
		red = N(n).red;
		change_child(t, n, successor, pparent);
		if (child2 != PDA_SYM_NIL) {
			set_parent_black(t, child2, parent);
			rebalance = PDA_SYM_NIL;
		} else {
			rebalance = N(successor).red ? PDA_SYM_NIL : parent;
		}
		N(successor).parent = pparent;
		N(successor).red = red;
	}
	if (rebalance != PDA_SYM_NIL)
		erase_color(t, rebalance);
}

uint32_t pda_symtree_first(const struct pda_symtab *t)
{
	uint32_t n = t->root;

	if (n == PDA_SYM_NIL)
		return PDA_SYM_NIL;
	while (N(n).left != PDA_SYM_NIL)
		n = N(n).left;
	return n;
}

uint32_t pda_symtree_next(const struct pda_symtab *t, uint32_t n)
{
	uint32_t parent;

	if (N(n).right != PDA_SYM_NIL) {
		n = N(n).right;
		while (N(n).left != PDA_SYM_NIL)
			n = N(n).left;
		return n;
	}
	while ((parent = N(n).parent) != PDA_SYM_NIL && n == N(parent).right)
		n = parent;
	return parent;
}

/* perf's symbols__find. */
uint32_t pda_symtree_find(const struct pda_symtab *t, uint64_t key)
{
	uint32_t n = t->root;

	while (n != PDA_SYM_NIL) {
		const struct pda_sym *p = &N(n);

		if (key < p->start)
			n = p->left;
		else if (key > p->end || (key == p->end && key != p->start))
			n = p->right;
		else
			return n;
	}
	return PDA_SYM_NIL;
}

#undef N
