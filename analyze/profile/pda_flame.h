/*
 * pda_flame.h - the flame graph tree `pdtool flame` draws.
 */
#ifndef PDA_FLAME_H
#define PDA_FLAME_H

#include "pda_fold.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The merged frame tree of a flame graph, built from a structured
 * profile (pda_profile.h) or from stacks given root first.  It needs no
 * session.  Not thread-safe; one tree per thread.
 *
 *	struct pda_flame *fl;
 *	PDA_FLAME_OPTS(o, .reverse = false);
 *	pda_flame_new(&o, &fl);
 *	pda_flame_add_profile(fl, profile, 0);
 *	pda_flame_finish(fl);
 *	nodes = pda_flame_nodes(fl, &nr);
 *	pda_flame_free(fl);
 */
struct pda_flame;

struct pda_flame_opts {
	size_t sz;		/* sizeof(struct pda_flame_opts) */
	bool reverse;		/* reverse each stack before merging it */
	const struct pd_alloc *alloc;
};

#define PDA_FLAME_OPTS(name, ...)                                           \
	struct pda_flame_opts name = { .sz = sizeof(struct pda_flame_opts), \
				       __VA_ARGS__ }

/*
 * One frame of the finished tree.  Nodes come depth first, each node's
 * children sorted by name (bytewise), so the same stacks in any order
 * give the same array.  Node 0 is the root, "all".
 */
struct pda_flame_node {
	const char *name;	/* NUL-terminated; equal names, same pointer */
	uint32_t name_id;	/* 0.. pda_flame_nr_names()-1, by first use */
	uint32_t depth;		/* 0: the root */
	uint32_t parent;	/* index of the parent (the root: 0) */
	uint32_t nr_children;
	uint64_t start;		/* samples left of it at its depth: its x */
	uint64_t total;		/* samples in it and its callees: its width */
	uint64_t self;		/* samples with it as the leaf */
	uint64_t other;		/* the second count of pda_flame_add_pair()
				 * in it and its callees; 0 otherwise */
};

/* @return 0 and *out, or PD_ERR_NOMEM, PD_ERR_API (bad opts). */
int pda_flame_new(const struct pda_flame_opts *opts, struct pda_flame **out);
/* Accepts NULL. */
void pda_flame_free(struct pda_flame *fl);
/* The last error's detail.  Never NULL. */
const char *pda_flame_errmsg(const struct pda_flame *fl);

/*
 * Add count samples of one stack, frames[0] the outermost, each
 * lens[i] bytes (a NUL byte ends a name early).  A zero count adds
 * nothing.  @return 0, PD_ERR_NOMEM, PD_ERR_FORMAT (the total would
 * overflow 64 bits) or PD_ERR_API (after pda_flame_finish()); on error
 * the counts are unchanged.
 */
int pda_flame_add(struct pda_flame *fl, const char *const *frames,
		  const size_t *lens, size_t nr_frames, uint64_t count);

/*
 * The same with a second count, other, summed into each node's other
 * (a differential flame graph: count draws the frames, other is the
 * profile they are compared with).  Only count makes frames: a stack
 * with count 0 adds its other to the nodes it shares with stacks that
 * have a count (the root at least), and no frame of its own.  Same
 * returns.
 */
int pda_flame_add_pair(struct pda_flame *fl, const char *const *frames,
		       const size_t *lens, size_t nr_frames, uint64_t count,
		       uint64_t other);

/*
 * Add one folded line, "frame;frame;... COUNT", a trailing newline
 * allowed; the count is the last blank-separated field (a decimal
 * integer).  @return 0 (added), 1 (blank or not a folded line: nothing
 * added) or a negative pd_err as pda_flame_add().
 */
int pda_flame_add_folded(struct pda_flame *fl, const char *line,
			 size_t len);

/*
 * Add every sample row of p with a value in column col (frames: the
 * locations' labels, root first), as pda_flame_add() would.  p is not
 * kept.  Same returns; on error the rows before the failing one are
 * counted.
 */
int pda_flame_add_profile(struct pda_flame *fl, const struct pda_profile *p,
			  unsigned col);

/* Sort and lay out the tree; no stacks can be added after it, and after
 * a failure the tree can only be freed.  @return 0 or PD_ERR_NOMEM. */
int pda_flame_finish(struct pda_flame *fl);

/* The nodes, after pda_flame_finish() (else NULL, *nr = 0).  Valid until
 * pda_flame_free(). */
const struct pda_flame_node *pda_flame_nodes(const struct pda_flame *fl,
					     size_t *nr);
/* Distinct names among the nodes, after pda_flame_finish(). */
size_t pda_flame_nr_names(const struct pda_flame *fl);
/* The deepest node's depth, after pda_flame_finish(). */
uint32_t pda_flame_max_depth(const struct pda_flame *fl);

#ifdef __cplusplus
}
#endif

#endif /* PDA_FLAME_H */
