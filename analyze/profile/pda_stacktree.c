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

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#define MIN_SLOTS_LOG2 10
#define MIN_SLOTS ((size_t)1 << MIN_SLOTS_LOG2)
#define SMALL_SORT 16 /* insertion sort up to this many tokens */

/* A shared tree's slots as readers see them: one allocation's worth,
 * its size with it. */
struct slot_tab {
	_Atomic uint32_t *slots;
	size_t mask;
	unsigned shift;
};

/* Arrays replaced while readers may read them: nodes, hashes and slots
 * each grow at most ~30 times, and their slot tables with them. */
#define MAX_RETIRED 128

struct pda_stacktree_reader {
	/* odd while the reader reads the tree; its own copy in n */
	atomic_uint seq;
	unsigned n;
	unsigned snap; /* the writer's: seq when retired arrays waited */
	struct pda_stacktree_path paths[PDA_STACKTREE_PATHS];
	/* what pda_stacktree_find_shared() left to add: its path and the
	 * depth of the deepest node it found */
	struct pda_stacktree_path *cur;
	size_t lo;
	struct pda_stacktree_reader *next;
};

/* pda_stacktree_share(): what readers load (acquire) and what waits to
 * be freed. */
struct pda_stacktree_shared {
	_Atomic(struct slot_tab *) tab;
	_Atomic(struct pda_stacktree_node *) nodes;
	_Atomic(uint64_t *) hashes;
	uint64_t seed; /* hashes[0], which no reader reads there */
	struct pda_stacktree_reader *readers;
	void *retired[MAX_RETIRED];
	size_t nr_retired;
};

static void free_shared(struct pda_stacktree *t, const struct pd_alloc *a);

void pda_stacktree_release(struct pda_stacktree *t, const struct pd_alloc *a)
{
	const struct pda_stacktree empty = PDA_STACKTREE_INIT;

	free_shared(t, a);
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

/* Readers' arrays replaced, after their replacements were published:
 * each reader reading now is noted.  Both sides take seq by a
 * read-modify-write, not a store and a fence (which ThreadSanitizer does
 * not model, and gcc -fsanitize=thread rejects): whichever comes second
 * in seq's order sees the other, so a reader either loads the new
 * arrays (its exchange read the value this release wrote) or is seen
 * reading. */
static void retire(struct pda_stacktree_shared *sh, void *p)
{
	sh->retired[sh->nr_retired++] = p;
	for (struct pda_stacktree_reader *r = sh->readers; r; r = r->next)
		r->snap = atomic_fetch_add_explicit(&r->seq, 0,
						    memory_order_acq_rel);
}

/* The retired arrays freed once no reader that was reading when they
 * were retired still is. */
static void reclaim(struct pda_stacktree_shared *sh, const struct pd_alloc *a)
{
	if (!sh->nr_retired)
		return;
	for (const struct pda_stacktree_reader *r = sh->readers; r;
	     r = r->next)
		if ((r->snap & 1) &&
		    atomic_load_explicit(&r->seq, memory_order_acquire) ==
			    r->snap)
			return;
	for (size_t i = 0; i < sh->nr_retired; i++)
		pdc_free(a, sh->retired[i]);
	sh->nr_retired = 0;
}

/* Twice the slots, every node put back.  @return 0 or PD_ERR_NOMEM (t
 * unchanged). */
static int grow_slots(struct pda_stacktree *t, const struct pd_alloc *a)
{
	const size_t nr = (t->mask + 1) * 2;
	uint32_t *old = t->slots;
	struct slot_tab *tab = NULL;

	if (nr > SIZE_MAX / sizeof(*old) / 2)
		return PD_ERR_NOMEM;
	if (t->sh && (t->sh->nr_retired + 2 > MAX_RETIRED ||
		      !(tab = pdc_malloc(a, sizeof(*tab)))))
		return PD_ERR_NOMEM;
	t->slots = pdc_zalloc(a, nr * sizeof(*old));
	if (!t->slots) {
		t->slots = old;
		pdc_free(a, tab);
		return PD_ERR_NOMEM;
	}
	t->mask = nr - 1;
	t->shift--;
	for (uint32_t id = 1; id < t->nr_nodes; id++)
		t->slots[free_slot(t, t->hashes[id])] = id;
	if (!t->sh) {
		pdc_free(a, old);
		return 0;
	}
	/* readers may be probing the old slots: they stay until none is */
	*tab = (struct slot_tab){(_Atomic uint32_t *)t->slots, t->mask,
				 t->shift};
	retire(t->sh, atomic_exchange_explicit(&t->sh->tab, tab,
					       memory_order_acq_rel));
	retire(t->sh, old);
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

/* A copy of arr's nr elements of elem bytes, with room for want (its
 * room in *alloc, doubled), or NULL. */
static void *copy_grown(const struct pd_alloc *a, const void *arr, size_t elem,
			size_t nr, size_t *alloc, size_t want)
{
	size_t n = *alloc ? *alloc : 16;
	void *p;

	while (n < want && n < PDA_STACKTREE_MAX)
		n = n > PDA_STACKTREE_MAX / 2 ? PDA_STACKTREE_MAX : n * 2;
	if (n < want || n > SIZE_MAX / elem)
		return NULL;
	p = pdc_malloc(a, n * elem);
	if (!p)
		return NULL;
	memcpy(p, arr, nr * elem);
	*alloc = n;
	return p;
}

/* A shared tree's room for one more node: its arrays copied, not moved
 * in place (readers may read the old ones).  @return 0 or
 * PD_ERR_NOMEM. */
static int shared_room(struct pda_stacktree *t, const struct pd_alloc *a)
{
	struct pda_stacktree_shared *sh = t->sh;
	const size_t want = t->nr_nodes + 1;

	if (want > PDA_STACKTREE_MAX || sh->nr_retired + 2 > MAX_RETIRED)
		return PD_ERR_NOMEM;
	if (want > t->alloc_nodes) {
		struct pda_stacktree_node *p =
			copy_grown(a, t->nodes, sizeof(*p), t->nr_nodes,
				   &t->alloc_nodes, want);

		if (!p)
			return PD_ERR_NOMEM;
		atomic_store_explicit(&sh->nodes, p, memory_order_release);
		retire(sh, t->nodes);
		t->nodes = p;
	}
	if (want > t->alloc_hashes) {
		uint64_t *p = copy_grown(a, t->hashes, sizeof(*p), t->nr_nodes,
					 &t->alloc_hashes, want);

		if (!p)
			return PD_ERR_NOMEM;
		atomic_store_explicit(&sh->hashes, p, memory_order_release);
		retire(sh, t->hashes);
		t->hashes = p;
	}
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
	if (t->sh ? shared_room(t, a) < 0
		  : PDC_GROW(a, t->nodes, t->alloc_nodes, t->nr_nodes + 1,
			     PDA_STACKTREE_MAX) < 0 ||
			    PDC_GROW(a, t->hashes, t->alloc_hashes,
				     t->nr_nodes + 1, PDA_STACKTREE_MAX) < 0)
		return 0;
	id = (uint32_t)t->nr_nodes++;
	t->nodes[id] = (struct pda_stacktree_node){parent, frame, 0};
	t->hashes[id] = hash;
	if (t->sh) /* the node is whole before a reader can find it */
		atomic_store_explicit(
			(_Atomic uint32_t *)&t->slots[free_slot(t, hash)], id,
			memory_order_release);
	else
		t->slots[free_slot(t, hash)] = id;
	return id;
}

static uint32_t find_shared(struct pda_stacktree_shared *sh, uint64_t hash,
			    uint32_t frame);

/* The node of hash and frame: in t's own arrays (the writer), or in the
 * published ones (a reader of a shared tree); 0: none. */
static uint32_t lookup(const struct pda_stacktree *t, bool reader,
		       uint64_t hash, uint32_t frame)
{
	return reader ? find_shared(t->sh, hash, frame) : find(t, hash, frame);
}

/* The node of p's first depth steps (there), looked up if not known. */
static uint32_t step_node(const struct pda_stacktree *t, bool reader,
			  struct pda_stacktree_path *p, size_t depth)
{
	struct pda_stacktree_step *st;

	if (!depth)
		return 0;
	st = &p->steps[depth - 1];
	if (st->node == PDA_STACKTREE_NO_NODE)
		st->node = lookup(t, reader, st->hash, st->frame);
	return st->node;
}

/*
 * frames[0 .. nr) into p (room made; paths hashed from seed, the part
 * shared with p's last stack kept), and the deepest prefix the tree
 * holds: @return its depth, its node in *node.  For a reader, a node
 * published meanwhile only makes it shallower.
 */
static size_t deepest(const struct pda_stacktree *t, bool reader,
		      struct pda_stacktree_path *p, const uint32_t *frames,
		      size_t nr, uint64_t seed, uint32_t *node)
{
	size_t same = 0, lo, hi;

	while (same < nr && same < p->nr &&
	       p->steps[same].frame == frames[same])
		same++;
	for (size_t i = same; i < nr; i++)
		p->steps[i] = (struct pda_stacktree_step){
			frames[i], PDA_STACKTREE_NO_NODE,
			path_hash(i ? p->steps[i - 1].hash : seed, frames[i])};
	p->nr = nr;
	/* lo frames are there (same are) */
	for (lo = same, hi = nr; lo < hi;) {
		const size_t mid = lo + (hi - lo + 1) / 2;
		struct pda_stacktree_step *st = &p->steps[mid - 1];
		const uint32_t id = lookup(t, reader, st->hash, st->frame);

		if (id) {
			st->node = id;
			lo = mid;
		} else {
			hi = mid - 1;
		}
	}
	*node = step_node(t, reader, p, lo);
	return lo;
}

/* Before a node is added: t open, its arrays made, what readers no
 * longer read freed.  @return 0, PD_ERR_API (sealed) or PD_ERR_NOMEM. */
static int begin_add(struct pda_stacktree *t, const struct pd_alloc *a)
{
	if (t->sealed)
		return PD_ERR_API;
	if (!t->nr_nodes && start(t, a) < 0)
		return PD_ERR_NOMEM;
	if (t->sh)
		reclaim(t->sh, a);
	return 0;
}

int pda_stacktree_add(struct pda_stacktree *t, const struct pd_alloc *a,
		      const uint32_t *frames, size_t nr, unsigned hint,
		      uint32_t *end)
{
	struct pda_stacktree_path *p = &t->paths[hint % PDA_STACKTREE_PATHS];
	size_t lo;
	uint32_t node;
	int rc;

	rc = begin_add(t, a);
	if (rc < 0)
		return rc;
	if (PDC_GROW(a, p->steps, p->alloc, nr, PDA_STACKTREE_MAX) < 0)
		return PD_ERR_NOMEM;
	lo = deepest(t, false, p, frames, nr, t->hashes[0], &node);
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
	int rc;

	rc = begin_add(t, a);
	if (rc < 0)
		return rc;
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
	if (t->sh)
		atomic_store_explicit((_Atomic uint32_t *)&t->nodes[node].end,
				      (uint32_t)t->nr_ends,
				      memory_order_release);
	else
		t->nodes[node].end = (uint32_t)t->nr_ends;
	*end = (uint32_t)t->nr_ends;
	return 1;
}

int pda_stacktree_seal(struct pda_stacktree *t, const struct pd_alloc *a)
{
	int rc;

	free_shared(t, a);
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

/* ---- a tree shared by threads ---------------------------------------- */

/* The shared state, the readers and what waits to be freed: no reader
 * reads any more. */
static void free_shared(struct pda_stacktree *t, const struct pd_alloc *a)
{
	struct pda_stacktree_shared *sh = t->sh;
	struct pda_stacktree_reader *r, *next;

	if (!sh)
		return;
	for (size_t i = 0; i < sh->nr_retired; i++)
		pdc_free(a, sh->retired[i]);
	pdc_free(a, atomic_load_explicit(&sh->tab, memory_order_relaxed));
	for (r = sh->readers; r; r = next) {
		next = r->next;
		for (size_t i = 0; i < PDA_STACKTREE_PATHS; i++)
			pdc_free(a, r->paths[i].steps);
		pdc_free(a, r);
	}
	pdc_free(a, sh);
	t->sh = NULL;
}

int pda_stacktree_share(struct pda_stacktree *t, const struct pd_alloc *a)
{
	struct pda_stacktree_shared *sh;
	struct slot_tab *tab;

	if (t->sealed || t->sh)
		return PD_ERR_API;
	if (!t->nr_nodes && start(t, a) < 0)
		return PD_ERR_NOMEM;
	sh = pdc_zalloc(a, sizeof(*sh));
	tab = pdc_malloc(a, sizeof(*tab));
	if (!sh || !tab) {
		pdc_free(a, sh);
		pdc_free(a, tab);
		return PD_ERR_NOMEM;
	}
	*tab = (struct slot_tab){(_Atomic uint32_t *)t->slots, t->mask,
				 t->shift};
	atomic_init(&sh->tab, tab);
	atomic_init(&sh->nodes, t->nodes);
	atomic_init(&sh->hashes, t->hashes);
	sh->seed = t->hashes[0];
	t->sh = sh;
	return 0;
}

int pda_stacktree_reader_new(struct pda_stacktree *t, const struct pd_alloc *a,
			     struct pda_stacktree_reader **r)
{
	*r = NULL;
	if (!t->sh)
		return PD_ERR_API;
	*r = pdc_zalloc(a, sizeof(**r));
	if (!*r)
		return PD_ERR_NOMEM;
	atomic_init(&(*r)->seq, 0);
	(*r)->next = t->sh->readers;
	t->sh->readers = *r;
	return 0;
}

/* r reads from here: its seq odd, then the arrays loaded (the exchange
 * pairs with retire()'s read-modify-write). */
static void read_begin(struct pda_stacktree_reader *r)
{
	atomic_exchange_explicit(&r->seq, ++r->n, memory_order_acq_rel);
}

/* r reads nothing more: what it read may be freed. */
static void read_end(struct pda_stacktree_reader *r)
{
	atomic_store_explicit(&r->seq, ++r->n, memory_order_release);
}

/* find() for a reader: a node published (its slot's release store) is
 * in the arrays loaded after the slot. */
static uint32_t find_shared(struct pda_stacktree_shared *sh, uint64_t hash,
			    uint32_t frame)
{
	const struct slot_tab *tab =
		atomic_load_explicit(&sh->tab, memory_order_acquire);
	uint32_t id;

	for (size_t i = (size_t)(hash >> tab->shift);
	     (id = atomic_load_explicit(&tab->slots[i],
					memory_order_acquire)) != 0;
	     i = (i + 1) & tab->mask)
		if (atomic_load_explicit(&sh->hashes,
					 memory_order_acquire)[id] == hash &&
		    atomic_load_explicit(&sh->nodes, memory_order_acquire)[id]
				    .frame == frame)
			return id;
	return 0;
}

int pda_stacktree_find_shared(const struct pda_stacktree *t,
			      struct pda_stacktree_reader *r,
			      const struct pd_alloc *a, const uint32_t *frames,
			      size_t nr, unsigned hint, uint32_t *end)
{
	struct pda_stacktree_shared *sh = t->sh;
	struct pda_stacktree_path *p = &r->paths[hint % PDA_STACKTREE_PATHS];
	size_t lo;
	uint32_t node, e = 0;

	if (PDC_GROW(a, p->steps, p->alloc, nr, PDA_STACKTREE_MAX) < 0)
		return PD_ERR_NOMEM;
	/* as pda_stacktree_add(), on the reader's own paths */
	read_begin(r);
	lo = deepest(t, true, p, frames, nr, sh->seed, &node);
	if (lo == nr)
		e = atomic_load_explicit(
			(_Atomic uint32_t *)&atomic_load_explicit(
				 &sh->nodes, memory_order_acquire)[node]
				 .end,
			memory_order_acquire);
	read_end(r);
	if (e) {
		*end = e;
		return 0;
	}
	r->cur = p;
	r->lo = lo;
	return 1;
}

int pda_stacktree_add_rest(struct pda_stacktree *t, const struct pd_alloc *a,
			   struct pda_stacktree_reader *r, uint32_t *end)
{
	struct pda_stacktree_path *p = r->cur;
	size_t i = r->lo;
	uint32_t node;

	if (t->sealed || !t->sh || !p)
		return PD_ERR_API;
	node = i ? p->steps[i - 1].node : 0;
	reclaim(t->sh, a);
	r->cur = NULL;
	r->lo = 0;
	if (i && !node) /* not found where it was (cannot be): the root */
		i = 0;
	/* what other threads added since the reader looked, then the
	 * rest (a tree that holds a path holds its prefixes) */
	for (uint32_t id; i < p->nr &&
			  (id = find(t, p->steps[i].hash, p->steps[i].frame));
	     i++)
		node = p->steps[i].node = id;
	for (; i < p->nr; i++) {
		node = add_node(t, a, node, p->steps[i].frame,
				p->steps[i].hash);
		if (!node) {
			p->nr = i;
			return PD_ERR_NOMEM;
		}
		p->steps[i].node = node;
	}
	return pda_stacktree_end(t, a, node, end);
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
