/*
 * pda_stacktree.c - the prefix tree of fold's distinct stacks
 * (pda_stacktree_int.h).
 *
 * A capture's distinct stacks share most of their frames: the bench's
 * 243k stacks of up to 128 frames (7.4M frames spelled out) are 1.1M
 * nodes.  A node is 12 bytes, its path hash 8 and the lookup table 4
 * bytes a slot while stacks are added (the hashes and slots go when the
 * tree is sealed), so the tree costs about a fourth of the frame arrays
 * it replaces.
 *
 * Adding a stack finds the deepest of its callers' nodes the tree has,
 * then adds the frames past it.  A node is looked up by the hash of its
 * whole path (path_hash), so a stack's prefixes are computed at once,
 * with no lookup, and the deepest one present is found by bisection
 * (a tree that holds a path holds each of its prefixes): about log2 of
 * a stack's depth lookups, each a cache miss, where walking it down
 * from the root took one per frame (the bench's deep, varied stacks:
 * 4.8M lookups for 220k stacks).  The nodes added are the same, in the
 * same order, as the walk added them.  Most stacks also share their
 * callers with the stack their thread added last: a path per hint
 * remembers that stack's frames, hashes and nodes, and the bisection
 * starts past the shared part.
 *
 * The sorted walk needs each node's children: they are grouped by
 * parent once (a counting sort into one array), and each node's
 * children are sorted when the walk reaches it.
 */
#include "pda_base_int.h"
#include "pda_stacktree_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#define MIN_SLOTS_LOG2 10
#define MIN_SLOTS ((size_t)1 << MIN_SLOTS_LOG2)
#define SMALL_SORT 16 /* insertion sort up to this many tokens */

void pda_stacktree_release(struct pda_stacktree *t, const struct pd_alloc *a)
{
	const struct pda_stacktree empty = PDA_STACKTREE_INIT;

	pdc_free(a, t->nodes);
	pdc_free(a, t->hashes);
	pdc_free(a, t->slots);
	pdc_free(a, t->counts);
	for (size_t i = 0; i < PDA_STACKTREE_PATHS; i++)
		pdc_free(a, t->paths[i].steps);
	*t = empty;
}

/*
 * The hash of the path of frame called from the path hashed parent:
 * murmur3's finalizer, a bijection, of parent's hash and the frame times
 * an odd constant, so that two children of one node never meet, and
 * paths that differ higher up meet with a chance of 2^-64 a pair.  The
 * root's hash, the tree's seed, is random: a capture cannot be made to
 * collide.  A lookup also compares the frame (below): two paths are
 * taken for one only when their hashes and last frames are equal.
 */
static uint64_t path_hash(uint64_t parent, uint32_t frame)
{
	uint64_t x = parent ^ ((uint64_t)frame + 1) * 0x9e3779b97f4a7c15ull;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* The node whose path hashes to hash and ends with frame; 0 (the root,
 * never looked up) when there is none. */
static uint32_t find(const struct pda_stacktree *t, uint64_t hash,
		     uint32_t frame)
{
	uint32_t id;

	for (size_t i = (size_t)(hash >> t->shift); (id = t->slots[i]) != 0;
	     i = (i + 1) & t->mask)
		if (t->hashes[id] == hash && t->nodes[id].frame == frame)
			return id;
	return 0;
}

/* The empty slot for a node of hash not in slots. */
static size_t free_slot(const struct pda_stacktree *t, uint64_t hash)
{
	size_t i = (size_t)(hash >> t->shift);

	while (t->slots[i])
		i = (i + 1) & t->mask;
	return i;
}

/* Twice the slots, every node put back.  @return 0 or PD_ERR_NOMEM (t
 * unchanged). */
static int grow_slots(struct pda_stacktree *t, const struct pd_alloc *a)
{
	const size_t nr = (t->mask + 1) * 2;
	uint32_t *old = t->slots;

	if (nr > SIZE_MAX / sizeof(*old) / 2)
		return PD_ERR_NOMEM;
	t->slots = pdc_zalloc(a, nr * sizeof(*old));
	if (!t->slots) {
		t->slots = old;
		return PD_ERR_NOMEM;
	}
	t->mask = nr - 1;
	t->shift--;
	for (uint32_t id = 1; id < t->nr_nodes; id++)
		t->slots[free_slot(t, t->hashes[id])] = id;
	pdc_free(a, old);
	return 0;
}

/* The root, and the first slots.  @return 0 or PD_ERR_NOMEM. */
static int start(struct pda_stacktree *t, const struct pd_alloc *a)
{
	uint64_t seed;

	if (PDC_GROW(a, t->nodes, t->alloc_nodes, 1, PDA_STACKTREE_MAX) < 0 ||
	    PDC_GROW(a, t->hashes, t->alloc_hashes, 1, PDA_STACKTREE_MAX) < 0)
		return PD_ERR_NOMEM;
	t->slots = pdc_zalloc(a, MIN_SLOTS * sizeof(*t->slots));
	if (!t->slots)
		return PD_ERR_NOMEM;
	/* a seed no capture can know; time only where getrandom fails */
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = (uint64_t)time(NULL) ^ (uintptr_t)t;
	t->mask = MIN_SLOTS - 1;
	t->shift = 64 - MIN_SLOTS_LOG2;
	t->nodes[0] = (struct pda_stacktree_node){0, 0, 0};
	t->hashes[0] = seed;
	t->nr_nodes = 1;
	return 0;
}

/* A new node, of frame called from parent, its path hashing to hash;
 * 0 (the root, no one's child) when out of memory. */
static uint32_t add_node(struct pda_stacktree *t, const struct pd_alloc *a,
			 uint32_t parent, uint32_t frame, uint64_t hash)
{
	uint32_t id;

	/* the root is in no slot: nr_nodes - 1 are, one more goes in */
	if (t->nr_nodes * 4 > (t->mask + 1) * 3 && grow_slots(t, a) < 0)
		return 0;
	if (PDC_GROW(a, t->nodes, t->alloc_nodes, t->nr_nodes + 1,
		     PDA_STACKTREE_MAX) < 0 ||
	    PDC_GROW(a, t->hashes, t->alloc_hashes, t->nr_nodes + 1,
		     PDA_STACKTREE_MAX) < 0)
		return 0;
	id = (uint32_t)t->nr_nodes++;
	t->nodes[id] = (struct pda_stacktree_node){parent, frame, 0};
	t->hashes[id] = hash;
	t->slots[free_slot(t, hash)] = id;
	return id;
}

/* The node of p's first depth steps (there), looked up if not known. */
static uint32_t step_node(const struct pda_stacktree *t,
			  struct pda_stacktree_path *p, size_t depth)
{
	struct pda_stacktree_step *st;

	if (!depth)
		return 0;
	st = &p->steps[depth - 1];
	if (st->node == PDA_STACKTREE_NO_NODE)
		st->node = find(t, st->hash, st->frame);
	return st->node;
}

int pda_stacktree_add(struct pda_stacktree *t, const struct pd_alloc *a,
		      const uint32_t *frames, size_t nr, unsigned hint,
		      uint32_t *end)
{
	struct pda_stacktree_path *p = &t->paths[hint % PDA_STACKTREE_PATHS];
	size_t same = 0, lo, hi;
	uint32_t node;

	if (t->sealed)
		return PD_ERR_API;
	if (!t->nr_nodes && start(t, a) < 0)
		return PD_ERR_NOMEM;
	if (PDC_GROW(a, p->steps, p->alloc, nr, PDA_STACKTREE_MAX) < 0)
		return PD_ERR_NOMEM;
	while (same < nr && same < p->nr &&
	       p->steps[same].frame == frames[same])
		same++;
	for (size_t i = same; i < nr; i++)
		p->steps[i] = (struct pda_stacktree_step){
			frames[i], PDA_STACKTREE_NO_NODE,
			path_hash(i ? p->steps[i - 1].hash : t->hashes[0],
				  frames[i])};
	/* the deepest prefix the tree holds: lo frames (same are there) */
	for (lo = same, hi = nr; lo < hi;) {
		const size_t mid = lo + (hi - lo + 1) / 2;
		struct pda_stacktree_step *st = &p->steps[mid - 1];
		const uint32_t id = find(t, st->hash, st->frame);

		if (id) {
			st->node = id;
			lo = mid;
		} else {
			hi = mid - 1;
		}
	}
	node = step_node(t, p, lo);
	for (size_t i = lo; i < nr; i++) {
		node = add_node(t, a, node, frames[i], p->steps[i].hash);
		if (!node) {
			p->nr = i;
			return PD_ERR_NOMEM;
		}
		p->steps[i].node = node;
	}
	p->nr = nr;
	return pda_stacktree_end(t, a, node, end);
}

int pda_stacktree_child(struct pda_stacktree *t, const struct pd_alloc *a,
			uint32_t parent, uint32_t frame, uint32_t *node)
{
	uint64_t hash;

	if (t->sealed)
		return PD_ERR_API;
	if (!t->nr_nodes && start(t, a) < 0)
		return PD_ERR_NOMEM;
	hash = path_hash(t->hashes[parent], frame);
	*node = find(t, hash, frame);
	if (!*node)
		*node = add_node(t, a, parent, frame, hash);
	return *node ? 0 : PD_ERR_NOMEM;
}

int pda_stacktree_end(struct pda_stacktree *t, const struct pd_alloc *a,
		      uint32_t node, uint32_t *end)
{
	if (t->sealed)
		return PD_ERR_API;
	if (!t->nr_nodes && start(t, a) < 0)
		return PD_ERR_NOMEM;
	if (t->nodes[node].end) {
		*end = t->nodes[node].end;
		return 0;
	}
	if (t->nr_ends + 1 >= PDA_STACKTREE_MAX ||
	    PDC_GROW(a, t->counts, t->alloc_counts, t->nr_ends + 2,
		     PDA_STACKTREE_MAX) < 0)
		return PD_ERR_NOMEM;
	t->nr_ends++;
	memset(&t->counts[t->nr_ends], 0, sizeof(t->counts[0]));
	t->nodes[node].end = (uint32_t)t->nr_ends;
	*end = (uint32_t)t->nr_ends;
	return 1;
}

int pda_stacktree_seal(struct pda_stacktree *t, const struct pd_alloc *a)
{
	int rc;

	pdc_free(a, t->slots);
	t->slots = NULL;
	pdc_free(a, t->hashes);
	t->hashes = NULL;
	t->alloc_hashes = 0;
	for (size_t i = 0; i < PDA_STACKTREE_PATHS; i++) {
		pdc_free(a, t->paths[i].steps);
		t->paths[i] = (struct pda_stacktree_path){NULL, 0, 0};
	}
	/* adding is over: what doubling left unused goes back (a failed
	 * shrink leaves them as they were) */
	rc = PDC_RESIZE(a, t->nodes, t->alloc_nodes, t->nr_nodes,
			PDA_STACKTREE_MAX);
	if (PDC_RESIZE(a, t->counts, t->alloc_counts, t->nr_ends + 1,
		       PDA_STACKTREE_MAX) < 0)
		rc = PD_ERR_NOMEM;
	t->sealed = true;
	return rc < 0 ? PD_ERR_NOMEM : 0;
}

size_t pda_stacktree_path(const struct pda_stacktree *t, uint32_t node,
			  uint32_t *frames)
{
	size_t depth = 0;

	for (uint32_t n = node; n; n = t->nodes[n].parent)
		depth++;
	if (frames)
		for (size_t i = depth; i > 0; node = t->nodes[node].parent)
			frames[--i] = t->nodes[node].frame;
	return depth;
}

/* ---- the sorted walk ------------------------------------------------- */

/*
 * A token of the walk: rank << 32 | node << 1 | more, where more says
 * the node's stacks that go on (its children) and !more the stack that
 * ends at it.  Tokens sort by rank alone (ranks are distinct among one
 * node's children).
 */
static int tok_cmp_desc(const void *x, const void *y)
{
	const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? 1 : a > b ? -1 : 0;
}

static void sort_desc(uint64_t *v, size_t n)
{
	if (n > SMALL_SORT) {
		qsort(v, n, sizeof(*v), tok_cmp_desc);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		const uint64_t x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1] < x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* The walk's state: the children grouped by parent (node n's are kids[
 * n ? next[n - 1] : 0 .. next[n])), and a stack of tokens to visit, the
 * next on top. */
struct walk {
	const struct pda_stacktree *t;
	const uint32_t *ranks;
	uint32_t *next, *kids;
	uint64_t *tok;
	size_t nr_tok, alloc_tok;
};

static size_t kids_from(const struct walk *w, uint32_t n)
{
	return n ? w->next[n - 1] : 0;
}

/* Push n's children's tokens, the first to visit on top.  @return 0 or
 * PD_ERR_NOMEM. */
static int push_kids(struct walk *w, const struct pd_alloc *a, uint32_t n)
{
	const size_t from = kids_from(w, n), to = w->next[n];
	const size_t base = w->nr_tok;

	if (PDC_GROW(a, w->tok, w->alloc_tok, base + 2 * (to - from),
		     2 * PDA_STACKTREE_MAX) < 0)
		return PD_ERR_NOMEM;
	for (size_t k = from; k < to; k++) {
		const uint32_t c = w->kids[k];
		const uint32_t f = w->t->nodes[c].frame;

		if (w->t->nodes[c].end)
			w->tok[w->nr_tok++] =
				(uint64_t)w->ranks[2 * (size_t)f + 1] << 32 |
				(uint64_t)c << 1;
		if (kids_from(w, c) < w->next[c])
			w->tok[w->nr_tok++] = (uint64_t)w->ranks[2 * (size_t)f]
						      << 32 |
					      (uint64_t)c << 1 | 1;
	}
	sort_desc(w->tok + base, w->nr_tok - base);
	return 0;
}

int pda_stacktree_sort_into(const struct pda_stacktree *t,
			    const struct pd_alloc *a, const uint32_t *ranks,
			    uint32_t *out, pda_stacktree_progress_fn progress,
			    void *arg)
{
	const size_t nr = t->nr_nodes;
	struct walk w = {.t = t, .ranks = ranks};
	size_t nr_out = 0, told = 0;
	int rc = PD_ERR_NOMEM;

	if (!nr)
		return 0;
	w.next = pdc_zalloc(a, (nr + 1) * sizeof(*w.next));
	w.kids = pdc_malloc(a, nr * sizeof(*w.kids));
	if (!w.next || !w.kids)
		goto out;
	/* a counting sort by parent: next[p] is where p's children start,
	 * then, once they are in, where they end */
	for (size_t n = 1; n < nr; n++)
		w.next[t->nodes[n].parent + 1]++;
	for (size_t n = 1; n <= nr; n++)
		w.next[n] += w.next[n - 1];
	for (uint32_t n = 1; n < nr; n++)
		w.kids[w.next[t->nodes[n].parent]++] = n;
	/* the empty stack's token is lower than any frame's */
	if (t->nodes[0].end)
		out[nr_out++] = 0;
	if (push_kids(&w, a, 0) < 0)
		goto out;
	while (w.nr_tok) {
		const uint64_t tk = w.tok[--w.nr_tok];
		const uint32_t n = (uint32_t)tk >> 1;

		if (tk & 1) {
			if (push_kids(&w, a, n) < 0)
				goto out;
			continue;
		}
		out[nr_out++] = n;
		if (progress && nr_out - told >= PDA_STACKTREE_SORT_STEP) {
			progress(arg, nr_out);
			told = nr_out;
		}
	}
	rc = 0;
out:
	pdc_free(a, w.next);
	pdc_free(a, w.kids);
	pdc_free(a, w.tok);
	return rc;
}

int pda_stacktree_sort(const struct pda_stacktree *t, const struct pd_alloc *a,
		       const uint32_t *ranks, uint32_t **order)
{
	uint32_t *out = pdc_malloc(a, (t->nr_ends + 1) * sizeof(*out));
	int rc;

	*order = NULL;
	if (!out)
		return PD_ERR_NOMEM;
	rc = pda_stacktree_sort_into(t, a, ranks, out, NULL, NULL);
	if (rc < 0)
		pdc_free(a, out);
	else
		*order = out;
	return rc;
}
