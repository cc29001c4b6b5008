/*
 * pda_stacktree_int.h - fold's table of distinct stacks as a prefix tree
 * (pda_stacktree.c): a stack is a node, (its caller's node, its frame),
 * so stacks that share callers share their nodes, and the profile built
 * at the end (pda_profile.h's stacks are the same kind of tree) is made
 * from it without spelling every stack out.  Internal to the profile
 * module: pda_fold.c builds on it, tests/unit/check_stacktree.c checks it.
 *
 * A frame is the caller's 32-bit id (pda_fold's atom ids).  Node 0 is the
 * root, the empty stack; every other node has a parent with a smaller id
 * (a node is added after its caller), so the nodes in id order are
 * already a valid pda_profile stack table.  A node that some stack ends
 * at is an end: it has an end id (1, 2, ... in the order the stacks were
 * first added) and the counts of that stack.
 *
 * Invariants: no two nodes have the same (parent, frame); nodes[0] is
 * the root (parent and frame 0); node ids and end ids stay below
 * PDA_STACKTREE_MAX; until pda_stacktree_seal(), slots holds every node
 * but the root (open addressing, linear probing, at most 3/4 full),
 * keyed by the node's path hash (hashes[id], below).  P3's pdc_hash
 * would hold a 16-byte slot (a hash and a pointer) per node, twice what
 * a node is: here a slot is the node's 32-bit id and the key is read
 * back from hashes[], which halves the table where a capture has
 * millions of nodes.  A failed call leaves the tree as it was but
 * for nodes no end is under, which nothing counts or walks into a line
 * (O6).  Not thread-safe, but for a shared tree's readers (below).
 *
 *	struct pda_stacktree t = PDA_STACKTREE_INIT;
 *	uint32_t end;
 *	rc = pda_stacktree_add(&t, alloc, frames, nr, tid, &end);
 *	pda_stacktree_count(&t, end)->samples++;
 *	...
 *	pda_stacktree_seal(&t, alloc);		(adding is over)
 *	pda_stacktree_sort(&t, alloc, ranks, &order);	(ends, sorted)
 *	for (size_t i = 0; i < pda_stacktree_nr_ends(&t); i++)
 *		depth = pda_stacktree_path(&t, order[i], NULL);
 *	pdc_free(alloc, order);
 *	pda_stacktree_release(&t, alloc);
 */
#ifndef PDA_STACKTREE_INT_H
#define PDA_STACKTREE_INT_H

#include "pdc_alloc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Nodes and ends, each (O5); bit 31 of an id is left to the caller. */
#define PDA_STACKTREE_MAX ((size_t)1 << 30)
/* Paths remembered for pda_stacktree_add()'s hint. */
#define PDA_STACKTREE_PATHS 8

struct pda_stacktree_node {
	uint32_t parent; /* the caller's node; 0 for a root frame */
	uint32_t frame;	 /* the caller's id */
	uint32_t end;	 /* its end id; 0: no stack ends here */
};

/* What a stack counted. */
struct pda_stacktree_count {
	uint64_t weight;
	uint64_t samples;
	uint64_t period;
};

/* A frame of a remembered path, its path hash, and its node
 * (PDA_STACKTREE_NO_NODE: there, its id not looked up). */
struct pda_stacktree_step {
	uint32_t frame, node;
	uint64_t hash;
};
#define PDA_STACKTREE_NO_NODE UINT32_MAX

/* The last stack added under a hint, root first, so that a stack that
 * shares callers with it looks up only the frames that follow them. */
struct pda_stacktree_path {
	struct pda_stacktree_step *steps;
	size_t nr, alloc;
};

struct pda_stacktree {
	struct pda_stacktree_node *nodes;
	size_t nr_nodes, alloc_nodes;
	/* by node id until sealed: the hash of the node's path, root first
	 * (pda_stacktree.c path_hash), [0] the root's: the tree's seed */
	uint64_t *hashes;
	size_t alloc_hashes;
	uint32_t *slots; /* node ids, 0 empty; NULL once sealed */
	size_t mask;	 /* nr slots - 1 */
	unsigned shift;	 /* 64 - log2(nr slots) */
	struct pda_stacktree_count *counts; /* by end id, [0] unused */
	size_t nr_ends, alloc_counts;
	bool sealed;
	struct pda_stacktree_path paths[PDA_STACKTREE_PATHS];
	struct pda_stacktree_shared *sh; /* pda_stacktree_share()d */
};

#define PDA_STACKTREE_INIT                                                     \
	{                                                                      \
		NULL, 0, 0, NULL, 0, NULL, 0, 0, NULL, 0, 0, false,            \
		{                                                              \
			{                                                      \
				NULL, 0, 0                                     \
			}                                                      \
		},                                                             \
		NULL                                                           \
	}

/* Free the tree's memory; it is then empty, as PDA_STACKTREE_INIT. */
void pda_stacktree_release(struct pda_stacktree *t, const struct pd_alloc *a);

/*
 * The end of the stack frames[0 .. nr), root first (nr 0: the empty
 * stack), its nodes found or added, and its end made if new, in *end.
 * hint picks the remembered path compared first (a thread id: a thread's
 * samples share callers); any value is right, a good one is faster.
 * @return 1 when the end is new (its counts zero), 0 when it was there,
 * PD_ERR_NOMEM (out of memory or past PDA_STACKTREE_MAX) or PD_ERR_API
 * (sealed).
 */
int pda_stacktree_add(struct pda_stacktree *t, const struct pd_alloc *a,
		      const uint32_t *frames, size_t nr, unsigned hint,
		      uint32_t *end);

/*
 * For merging trees: the node of frame called from parent (a node id;
 * 0: a root frame), found or added, in *node; and node's end, made if
 * new, in *end (1 when new, its counts zero; 0 when it was there).
 * @return as pda_stacktree_add().  A node's parent comes before it, so
 * another tree's nodes taken in id order find their parents mapped.
 */
int pda_stacktree_child(struct pda_stacktree *t, const struct pd_alloc *a,
			uint32_t parent, uint32_t frame, uint32_t *node);
int pda_stacktree_end(struct pda_stacktree *t, const struct pd_alloc *a,
		      uint32_t node, uint32_t *end);

/* End end's counts (1 <= end <= nr_ends).  Valid until the next
 * pda_stacktree_add() or pda_stacktree_release(). */
static inline struct pda_stacktree_count *
pda_stacktree_count(const struct pda_stacktree *t, uint32_t end)
{
	return &t->counts[end];
}

static inline size_t pda_stacktree_nr_ends(const struct pda_stacktree *t)
{
	return t->nr_ends;
}

/* Adding is over: the lookup table and the paths are freed, and the
 * nodes and counts keep what they hold.  @return 0, or PD_ERR_NOMEM
 * when shrinking them failed (E5: reported; the tree is sealed and
 * whole, only bigger than it needs). */
int pda_stacktree_seal(struct pda_stacktree *t, const struct pd_alloc *a);

/*
 * A tree that threads add to at once, each through a reader of its own:
 * a stack whose nodes and end are there is found without a lock (most of
 * a shard's new stacks: another shard made them, or they differ from one
 * it made in their ips only), and only what is missing is added under
 * the caller's lock, which every other call on the tree must hold too.
 * Slots are published with release stores and nodes' ends likewise; an
 * array that grows is copied, not moved in place, and the old one freed
 * once no reader can be reading it (each reader's sequence number, odd
 * while it reads, is checked under the lock), so a reader never sees
 * freed memory and the tree's memory stays that of one tree.
 *
 *	pda_stacktree_share(&t, a);			(before the threads)
 *	pda_stacktree_reader_new(&t, a, &r);		(one a thread)
 *	rc = pda_stacktree_find_shared(&t, r, a, frames, nr, hint, &end);
 *	if (rc == 1) {					(not all there)
 *		lock; rc = pda_stacktree_add_rest(&t, a, r, &end); unlock;
 *	}
 *
 * The readers are the tree's, freed with it; after the threads (or at
 * its seal) the tree is a tree like any other.
 */
struct pda_stacktree_reader;
/* @return 0, PD_ERR_NOMEM or PD_ERR_API (sealed or already shared) */
int pda_stacktree_share(struct pda_stacktree *t, const struct pd_alloc *a);
/* @return 0, PD_ERR_NOMEM or PD_ERR_API (t not shared) */
int pda_stacktree_reader_new(struct pda_stacktree *t, const struct pd_alloc *a,
			     struct pda_stacktree_reader **r);
/*
 * Without the lock: the end of frames[0 .. nr) (as pda_stacktree_add())
 * in *end when its nodes and end are there.  @return 0 (found), 1 (not
 * all there: pda_stacktree_add_rest() under the lock, with nothing else
 * of r's between) or PD_ERR_NOMEM.
 */
int pda_stacktree_find_shared(const struct pda_stacktree *t,
			      struct pda_stacktree_reader *r,
			      const struct pd_alloc *a, const uint32_t *frames,
			      size_t nr, unsigned hint, uint32_t *end);
/* Under the lock: the rest of r's stack added.  @return as
 * pda_stacktree_add(). */
int pda_stacktree_add_rest(struct pda_stacktree *t, const struct pd_alloc *a,
			   struct pda_stacktree_reader *r, uint32_t *end);

/*
 * After pda_stacktree_seal(): the nr_ends ends' nodes in *order (freed by
 * the caller with pdc_free()), sorted as folded lines are when a frame
 * f is the token ranks[2 * f] followed by more frames and ranks[2 * f +
 * 1] at the end (so ranks[] must have 2 entries per frame id used, every
 * rank distinct among those of one node's children): stacks compare by
 * their tokens root first, a stack before the stacks it is the start of.
 * A depth-first walk that sorts each node's children, and looks at each
 * node once.  @return 0 or PD_ERR_NOMEM (*order NULL).
 */
int pda_stacktree_sort(const struct pda_stacktree *t, const struct pd_alloc *a,
		       const uint32_t *ranks, uint32_t **order);

/*
 * pda_stacktree_sort() into out (pda_stacktree_nr_ends() entries, the
 * caller's), calling progress(arg, n) each time PDA_STACKTREE_SORT_STEP
 * more ends are in out[0 .. n), which no later step changes (a consumer
 * on another thread may read them as they come), and never after an
 * error.  progress may be NULL.  @return 0 or PD_ERR_NOMEM.
 */
#define PDA_STACKTREE_SORT_STEP 16384
typedef void (*pda_stacktree_progress_fn)(void *arg, size_t nr_out);
int pda_stacktree_sort_into(const struct pda_stacktree *t,
			    const struct pd_alloc *a, const uint32_t *ranks,
			    uint32_t *out, pda_stacktree_progress_fn progress,
			    void *arg);

/*
 * The depth of node (its frames; 0 for the root) and, when frames is not
 * NULL, its frames root first into frames[0 .. depth).
 */
size_t pda_stacktree_path(const struct pda_stacktree *t, uint32_t node,
			  uint32_t *frames);

#endif /* PDA_STACKTREE_INT_H */
