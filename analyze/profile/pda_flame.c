/*
 * pda_flame.c - the frame tree of a flame graph, built from a structured
 * profile's stacks (pda_profile.h), or from stacks given as names: folded
 * lines (`comm;outer;...;leaf count`) through the one folded-line
 * splitter, pda_folded_split().
 *
 * Building: every stack walks down from the root, finding or adding one
 * child per frame; a hash table (common/pdc_hash.c) keyed by (parent,
 * name) finds a child in O(1), and holds ids + 1 as its items (the node
 * array moves as it grows).  Names are interned in a profile's string table
 * (pda_profile_intern()), so equal names share one copy and one id.
 * Nothing depends on the order the stacks came in:
 * pda_flame_finish() sorts each node's children and lays the tree out
 * depth first, so the same stacks in any order give the same nodes, and
 * the same input gives byte-identical output downstream.  The order is
 * flamegraph.pl's, which sorts the folded lines bytewise and lays them
 * out left to right: a node's own samples ("a;b N") come before its
 * callees ("a;b;c N", as ' ' sorts before ';'), and a name that is the
 * start of another sorts by the byte after it against the ' ' or ';'
 * that would follow it in a line ("f::g" before "f;h", after "f 3").
 * Where the pl draws one name as two boxes (a name with samples of its
 * own and callees, and a longer name whose next byte sorts between ' '
 * and ';'), the one box here takes the place of the callees' part.
 *
 * Invariants while building (node 0 is the root, "all"):
 *   - a node's total is the sum of its self and its children's totals;
 *   - a node's total is never 0 (zero counts add nothing);
 *   - kids: the (parent, name) -> node table holds every node but the
 *     root; names: its strings hold every distinct name.
 * Not thread-safe: one tree per thread.
 */
#include "pda_base_int.h"
#include "pda_flame.h"

#include <stdlib.h>
#include <string.h>

#define ROOT_NAME "all"
#define MAX_ITEMS (UINT32_MAX / 2) /* nodes, names: ids are uint32_t */
#define MAX_FRAMES_PER_STACK (1u << 20)

struct bnode {		 /* a node while building */
	uint32_t name;	 /* name id */
	uint32_t parent; /* node index; the root is its own parent */
	uint32_t first_child, next_sibling; /* 0: none (0 is the root) */
	uint32_t nr_children;
	uint32_t depth;
	uint64_t total, self;
	uint64_t other; /* pda_flame_add_pair()'s second count */
};

struct pda_flame {
	const struct pd_alloc *alloc;
	bool reverse;
	bool finished;
	bool broken; /* pda_flame_finish() failed: free only */
	char errmsg[128];

	struct bnode *nodes;
	size_t nr_nodes, alloc_nodes;
	struct pda_profile *names; /* its strings: a name's id is its
				    * string id */
	struct pdc_hash kids; /* of id_item(id) */
	bool kids_stale; /* nodes were added without kids */

	/* the frames of the stack being added, reused */
	const char **frame_ptr;
	size_t *frame_len;
	size_t alloc_frames;
	struct pda_folded_split split; /* pda_flame_add_folded()'s */

	/* after pda_flame_finish() */
	struct pda_flame_node *out;
	size_t nr_out;
	uint32_t nr_names_out;
	uint32_t max_depth;
};

/* A table item for an id: never NULL. */
static void *id_item(uint32_t id)
{
	return (void *)((uintptr_t)id + 1);
}

static uint32_t item_id(const void *item)
{
	return (uint32_t)((uintptr_t)item - 1);
}

struct kid_key {
	const struct pda_flame *fl;
	uint32_t parent, name;
};

static bool kid_eq(const void *item, const void *key)
{
	const struct kid_key *k = key;
	const struct bnode *n = &k->fl->nodes[item_id(item)];

	return n->parent == k->parent && n->name == k->name;
}

/* The id of name s[0..len), added if new.  @return 0 or PD_ERR_NOMEM. */
static int intern(struct pda_flame *fl, const char *s, size_t len, uint32_t *id)
{
	return pda_profile_intern(fl->names, s, len, id);
}

/* Name id's bytes and length. */
static const char *name_of(const struct pda_flame *fl, uint32_t id,
			   size_t *len)
{
	return pda_profile_str(fl->names, id, len);
}

/* A new child of parent, named name, in no table yet. */
static int new_node(struct pda_flame *fl, uint32_t parent, uint32_t name,
		    uint32_t *out)
{
	struct bnode *n;

	if (PDC_GROW(fl->alloc, fl->nodes, fl->alloc_nodes,
			 fl->nr_nodes + 1, MAX_ITEMS) < 0)
		return PD_ERR_NOMEM;
	n = &fl->nodes[fl->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->name = name;
	n->parent = parent;
	n->depth = fl->nodes[parent].depth + 1;
	n->next_sibling = fl->nodes[parent].first_child;
	fl->nodes[parent].first_child = (uint32_t)fl->nr_nodes;
	fl->nodes[parent].nr_children++;
	*out = (uint32_t)fl->nr_nodes++;
	return 0;
}

/* The child of parent named name, added if new. */
static int child(struct pda_flame *fl, uint32_t parent, uint32_t name,
		 uint32_t *out)
{
	const struct kid_key key = {fl, parent, name};
	const uint64_t h = pdc_hash_u64((uint64_t)parent << 32 | name);
	struct pdc_hash_slot *slot;

	if (pdc_hash_reserve(fl->alloc, &fl->kids) < 0)
		return PD_ERR_NOMEM;
	slot = pdc_hash_probe(&fl->kids, h, kid_eq, &key);
	if (slot->item) {
		*out = item_id(slot->item);
		return 0;
	}
	/* nor is nodes: slot stays where the child goes */
	if (new_node(fl, parent, name, out) < 0)
		return PD_ERR_NOMEM;
	pdc_hash_fill(&fl->kids, slot, h, id_item(*out));
	return 0;
}

/*
 * Make kids hold every node again, after pda_flame_add_profile() added
 * nodes without it.  @return 0 or PD_ERR_NOMEM (still stale).
 */
static int rebuild_kids(struct pda_flame *fl)
{
	if (!fl->kids_stale)
		return 0;
	pdc_hash_release(fl->alloc, &fl->kids);
	for (size_t i = 1; i < fl->nr_nodes; i++) {
		const struct bnode *n = &fl->nodes[i];

		if (pdc_hash_add(fl->alloc, &fl->kids,
				 pdc_hash_u64((uint64_t)n->parent << 32 |
					      n->name),
				 id_item((uint32_t)i)) < 0) {
			pdc_hash_release(fl->alloc, &fl->kids);
			return PD_ERR_NOMEM;
		}
	}
	fl->kids_stale = false;
	return 0;
}

int pda_flame_new(const struct pda_flame_opts *opts, struct pda_flame **out)
{
	struct pda_flame_opts o = {0};
	struct pda_flame *fl;
	const struct pd_alloc *alloc;
	uint32_t root_name;

	*out = NULL;
	if (opts && pdc_opts_copy(&o, sizeof(o), opts) < 0)
		return PD_ERR_API;
	alloc = o.alloc;
	fl = pdc_zalloc(alloc, sizeof(*fl));
	if (!fl)
		return PD_ERR_NOMEM;
	fl->alloc = alloc;
	fl->reverse = o.reverse;
	{
		PDA_PROFILE_OPTS(po, .alloc = alloc);

		if (pda_profile_new(&po, &fl->names) < 0) {
			pda_flame_free(fl);
			return PD_ERR_NOMEM;
		}
	}
	/* the root: its own parent, depth 0 */
	if (PDC_GROW(alloc, fl->nodes, fl->alloc_nodes, 1, MAX_ITEMS) < 0 ||
	    intern(fl, ROOT_NAME, strlen(ROOT_NAME), &root_name) < 0) {
		pda_flame_free(fl);
		return PD_ERR_NOMEM;
	}
	memset(&fl->nodes[0], 0, sizeof(fl->nodes[0]));
	fl->nodes[0].name = root_name;
	fl->nr_nodes = 1;
	*out = fl;
	return 0;
}

void pda_flame_free(struct pda_flame *fl)
{
	if (!fl)
		return;
	pda_profile_free(fl->names);
	pdc_free(fl->alloc, fl->nodes);
	pdc_hash_release(fl->alloc, &fl->kids);
	pdc_free(fl->alloc, fl->frame_ptr);
	pdc_free(fl->alloc, fl->frame_len);
	pda_folded_split_release(fl->alloc, &fl->split);
	pdc_free(fl->alloc, fl->out);
	pdc_free(fl->alloc, fl);
}

const char *pda_flame_errmsg(const struct pda_flame *fl)
{
	return fl->errmsg;
}

static int set_err(struct pda_flame *fl, int err, const char *msg)
{
	size_t n = strlen(msg);

	if (n >= sizeof(fl->errmsg))
		n = sizeof(fl->errmsg) - 1;
	memcpy(fl->errmsg, msg, n);
	fl->errmsg[n] = '\0';
	return err;
}

int pda_flame_add_pair(struct pda_flame *fl, const char *const *frames,
		       const size_t *lens, size_t nr_frames, uint64_t count,
		       uint64_t other)
{
	uint32_t cur = 0, name;
	int rc;

	if (fl->finished || fl->broken)
		return set_err(fl, PD_ERR_API, "stack added after finish");
	if (count == 0 && other == 0)
		return 0;
	if (rebuild_kids(fl) < 0)
		return set_err(fl, PD_ERR_NOMEM, "out of memory");
	if (fl->nodes[0].total > UINT64_MAX - count ||
	    fl->nodes[0].other > UINT64_MAX - other)
		return set_err(fl, PD_ERR_FORMAT,
			       "the total count does not fit in 64 bits");
	/*
	 * Find or add every node first, then count: a failure half way
	 * leaves the counts as they were (O6); a node added with no count
	 * yet is pruned at finish, and so is one that only other reaches.
	 */
	for (size_t i = 0; i < nr_frames; i++) {
		size_t k = fl->reverse ? nr_frames - 1 - i : i;

		rc = intern(fl, frames[k], lens[k], &name);
		if (rc == 0)
			rc = child(fl, cur, name, &cur);
		if (rc < 0)
			return set_err(fl, rc, "out of memory");
	}
	fl->nodes[cur].self += count;
	for (;;) {
		fl->nodes[cur].total += count;
		fl->nodes[cur].other += other;
		if (cur == 0)
			break;
		cur = fl->nodes[cur].parent;
	}
	return 0;
}

/* Room for nr frames in frame_ptr and frame_len. */
static int grow_frames(struct pda_flame *fl, size_t nr)
{
	size_t a = fl->alloc_frames;

	if (nr <= a)
		return 0;
	/* the two arrays share alloc_frames: both grow alike from it */
	if (PDC_GROW(fl->alloc, fl->frame_ptr, a, nr,
			 MAX_FRAMES_PER_STACK) < 0)
		return PD_ERR_NOMEM;
	a = fl->alloc_frames;
	if (PDC_GROW(fl->alloc, fl->frame_len, a, nr,
			 MAX_FRAMES_PER_STACK) < 0)
		return PD_ERR_NOMEM;
	fl->alloc_frames = a;
	return 0;
}

int pda_flame_add(struct pda_flame *fl, const char *const *frames,
		  const size_t *lens, size_t nr_frames, uint64_t count)
{
	return pda_flame_add_pair(fl, frames, lens, nr_frames, count, 0);
}

int pda_flame_add_folded(struct pda_flame *fl, const char *line, size_t len)
{
	int rc = pda_folded_split(fl->alloc, &fl->split, line, len);

	if (rc < 0)
		return set_err(fl, rc,
			       fl->split.too_many ? "a stack has too many frames"
						  : "out of memory");
	if (rc > 0)
		return rc;
	return pda_flame_add(fl, fl->split.frames, fl->split.lens,
			     fl->split.nr, fl->split.count);
}

/*
 * Whether every location of p has a label no other location has: then
 * p's stacks, unique by (prefix, location), are unique by (parent,
 * name), that is, they are the tree's nodes.
 */
static int labels_unique(struct pda_flame *fl, const struct pda_profile *p,
			 bool *unique)
{
	const size_t nr_strs = pda_profile_nr_strs(p);
	uint32_t *loc_of = pdc_zalloc(fl->alloc, nr_strs * sizeof(*loc_of));

	if (!loc_of)
		return PD_ERR_NOMEM;
	*unique = true;
	for (uint32_t l = 1; *unique && l < pda_profile_nr_locs(p); l++) {
		const uint32_t label = pda_profile_loc(p, l)->label;

		*unique = !loc_of[label];
		loc_of[label] = l;
	}
	pdc_free(fl->alloc, loc_of);
	return 0;
}

/*
 * pda_flame_add_profile() into an empty tree whose stacks are p's
 * (labels_unique()): a node per stack, made in stack order (a prefix
 * before its callees) without looking it up, then the counts, each
 * node's total summed from its callees' in reverse order.
 */
static int add_profile_tree(struct pda_flame *fl, const struct pda_profile *p,
			    unsigned col)
{
	const size_t nr_stacks = pda_profile_nr_stacks(p);
	const size_t nr_strs = pda_profile_nr_strs(p);
	uint32_t *node_of = pdc_malloc(fl->alloc, nr_stacks * sizeof(*node_of));
	uint32_t *name_of = pdc_malloc(fl->alloc, nr_strs * sizeof(*name_of));
	int rc = 0;

	if (!node_of || !name_of) {
		rc = PD_ERR_NOMEM;
		goto out;
	}
	memset(name_of, 0xff, nr_strs * sizeof(*name_of));
	fl->kids_stale = true;
	node_of[0] = 0;
	for (uint32_t s = 1; s < nr_stacks; s++) {
		const struct pda_profile_stack *st = pda_profile_stack(p, s);
		const uint32_t label = pda_profile_loc(p, st->loc)->label;

		if (name_of[label] == UINT32_MAX) {
			size_t len;
			const char *str = pda_profile_str(p, label, &len);

			rc = intern(fl, str, len, &name_of[label]);
			if (rc < 0)
				goto out;
		}
		rc = new_node(fl, node_of[st->prefix], name_of[label],
			      &node_of[s]);
		if (rc < 0)
			goto out;
	}
	/* the profile's totals fit: so do the nodes' */
	for (size_t i = 0; i < pda_profile_nr_samples(p); i++) {
		const struct pda_profile_sample *r = pda_profile_sample(p, i);

		fl->nodes[node_of[r->stack]].self += r->values[col];
	}
	for (size_t i = 0; i < fl->nr_nodes; i++)
		fl->nodes[i].total = fl->nodes[i].self;
	for (size_t i = fl->nr_nodes - 1; i > 0; i--)
		fl->nodes[fl->nodes[i].parent].total += fl->nodes[i].total;
out:
	pdc_free(fl->alloc, node_of);
	pdc_free(fl->alloc, name_of);
	return rc < 0 ? set_err(fl, rc, "out of memory") : 0;
}

int pda_flame_add_profile(struct pda_flame *fl, const struct pda_profile *p,
			  unsigned col)
{
	bool unique;
	int rc = 0;

	if (col >= pda_profile_nr_columns(p))
		return set_err(fl, PD_ERR_API, "no such column");
	if (fl->finished || fl->broken)
		return set_err(fl, PD_ERR_API, "stack added after finish");
	if (!fl->reverse && fl->nr_nodes == 1 && !fl->nodes[0].total &&
	    !fl->nodes[0].other) {
		rc = labels_unique(fl, p, &unique);
		if (rc < 0)
			return set_err(fl, rc, "out of memory");
		if (unique)
			return add_profile_tree(fl, p, col);
	}
	for (size_t i = 0; rc == 0 && i < pda_profile_nr_samples(p); i++) {
		const struct pda_profile_sample *s = pda_profile_sample(p, i);
		const struct pda_profile_stack *st =
			pda_profile_stack(p, s->stack);
		const size_t nr = st ? st->depth : 0;
		size_t k = nr;

		if (s->values[col] == 0)
			continue;
		if (grow_frames(fl, nr) < 0)
			return set_err(fl, PD_ERR_NOMEM, "out of memory");
		/* the prefix links run leaf to root */
		for (; st; st = pda_profile_stack(p, st->prefix)) {
			const struct pda_profile_loc *l =
				pda_profile_loc(p, st->loc);

			k--;
			fl->frame_ptr[k] =
				pda_profile_str(p, l->label, &fl->frame_len[k]);
		}
		rc = pda_flame_add(fl, fl->frame_ptr, fl->frame_len, nr,
				   s->values[col]);
	}
	return rc;
}

struct kid_ref {
	const char *name;
	size_t len;
	uint32_t node;
	unsigned char sep; /* what follows the name in its lines */
};

static int cmp_kid(const void *a, const void *b)
{
	const struct kid_ref *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);

	if (c)
		return c;
	if (x->len == y->len)
		return 0;
	/* one name starts the other: the longer one's next byte against
	 * the shorter one's separator, as their folded lines compare */
	if (x->len < y->len)
		return (unsigned char)y->name[n] < x->sep ? 1 : -1;
	return (unsigned char)x->name[n] < y->sep ? -1 : 1;
}

/* A node waiting in pda_flame_finish()'s walk. */
struct walk {
	uint32_t node;
	uint32_t parent; /* output index of its parent */
	uint64_t start;
};

/*
 * Sort every node's children by name, relinking the sibling lists, so a
 * depth-first walk visits them in order.
 */
static int sort_children(struct pda_flame *fl)
{
	struct kid_ref *kids = NULL;
	size_t alloc_kids = 0;
	int rc = 0;

	for (size_t i = 0; i < fl->nr_nodes; i++) {
		struct bnode *n = &fl->nodes[i];
		size_t nr = 0;

		if (n->nr_children < 2)
			continue;
		rc = PDC_GROW(fl->alloc, kids, alloc_kids, n->nr_children,
				  MAX_ITEMS);
		if (rc < 0)
			break;
		for (uint32_t c = n->first_child; c;
		     c = fl->nodes[c].next_sibling) {
			kids[nr].name =
				name_of(fl, fl->nodes[c].name, &kids[nr].len);
			kids[nr].sep = fl->nodes[c].nr_children ? ';' : ' ';
			kids[nr++].node = c;
		}
		qsort(kids, nr, sizeof(*kids), cmp_kid);
		n->first_child = kids[0].node;
		for (size_t k = 0; k + 1 < nr; k++)
			fl->nodes[kids[k].node].next_sibling = kids[k + 1].node;
		fl->nodes[kids[nr - 1].node].next_sibling = 0;
	}
	pdc_free(fl->alloc, kids);
	return rc;
}

int pda_flame_finish(struct pda_flame *fl)
{
	struct walk *stack = NULL;
	size_t alloc_stack = 0, sp = 0, nr_out = 0;
	uint32_t *name_map = NULL, nr_names_out = 0;
	size_t nr_names;
	int rc;

	if (fl->finished)
		return 0;
	if (fl->broken)
		return set_err(fl, PD_ERR_API, "finish failed before");
	fl->broken = true; /* until it succeeds */
	rc = sort_children(fl);
	if (rc < 0)
		return set_err(fl, rc, "out of memory");
	/* no more lookups: the tables' memory can go before the layout's
	 * arrives (a tree of millions of nodes) */
	pdc_hash_release(fl->alloc, &fl->kids);
	fl->out = pdc_malloc(fl->alloc, fl->nr_nodes * sizeof(*fl->out));
	nr_names = pda_profile_nr_strs(fl->names);
	name_map = pdc_malloc(fl->alloc, nr_names * sizeof(*name_map));
	if (!fl->out || !name_map ||
	    PDC_GROW(fl->alloc, stack, alloc_stack, 1, MAX_ITEMS) < 0) {
		rc = PD_ERR_NOMEM;
		goto out;
	}
	/* name ids in order of first use in the walk, so they too do not
	 * depend on the order of the input */
	memset(name_map, 0xff, nr_names * sizeof(*name_map));
	stack[sp++] = (struct walk){0, 0, 0};
	fl->max_depth = 0;
	while (sp) {
		const struct walk w = stack[--sp];
		const struct bnode *n = &fl->nodes[w.node];
		struct pda_flame_node *o = &fl->out[nr_out];
		/* its own samples first, its callees after them */
		uint64_t x = w.start + n->self;
		size_t nr_kids = 0, k = 0;

		o->name = name_of(fl, n->name, NULL);
		if (name_map[n->name] == UINT32_MAX)
			name_map[n->name] = nr_names_out++;
		o->name_id = name_map[n->name];
		o->start = w.start;
		o->total = n->total;
		o->self = n->self;
		o->other = n->other;
		o->depth = n->depth;
		o->parent = w.parent;
		if (n->depth > fl->max_depth)
			fl->max_depth = n->depth;
		/* a node added by a stack whose adding failed half way has
		 * no count: leave it out */
		for (uint32_t c = n->first_child; c;
		     c = fl->nodes[c].next_sibling)
			if (fl->nodes[c].total)
				nr_kids++;
		o->nr_children = (uint32_t)nr_kids;
		rc = PDC_GROW(fl->alloc, stack, alloc_stack, sp + nr_kids,
				  MAX_ITEMS);
		if (rc < 0)
			goto out;
		/* pushed last first, so the first child pops first; each
		 * begins where the one before it ended */
		for (uint32_t c = n->first_child; c;
		     c = fl->nodes[c].next_sibling) {
			if (!fl->nodes[c].total)
				continue;
			stack[sp + nr_kids - 1 - k++] =
				(struct walk){c, (uint32_t)nr_out, x};
			x += fl->nodes[c].total;
		}
		sp += nr_kids;
		nr_out++;
	}
	fl->nr_out = nr_out;
	fl->nr_names_out = nr_names_out;
	fl->finished = true;
	fl->broken = false;
	/* the output holds all a caller needs; the names stay */
	pdc_free(fl->alloc, fl->nodes);
	fl->nodes = NULL;
	fl->nr_nodes = fl->alloc_nodes = 0;
out:
	pdc_free(fl->alloc, stack);
	pdc_free(fl->alloc, name_map);
	return rc < 0 ? set_err(fl, rc, "out of memory") : 0;
}

const struct pda_flame_node *pda_flame_nodes(const struct pda_flame *fl,
					     size_t *nr)
{
	if (!fl->finished) {
		*nr = 0;
		return NULL;
	}
	*nr = fl->nr_out;
	return fl->out;
}

size_t pda_flame_nr_names(const struct pda_flame *fl)
{
	return fl->finished ? fl->nr_names_out : 0;
}

uint32_t pda_flame_max_depth(const struct pda_flame *fl)
{
	return fl->finished ? fl->max_depth : 0;
}
