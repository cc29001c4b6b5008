/*
 * pda_stack_int.h - the session module's services to the analyses: a
 * sample's leaf alone, and LBR call stacks as perf builds them.
 */
#ifndef PDA_STACK_INT_H
#define PDA_STACK_INT_H

#include "pda_machine_int.h"

/*
 * pda_sample_stack() for the sample's own address only (its ip, in the
 * space perf's thread__find_map_fb picks): the frames of that address,
 * inlined ones first, the out-of-line function last, and *dso the DSO of
 * its map (NULL: none, anonymous memory or a KSYMBOL).  @return 0 or a
 * negative pd_err.
 */
int pda_sample_leaf(struct pda_session *s, const struct pd_sample *sample,
		    struct pda_stack *st, struct pda_dso **dso);
/* The same for n samples alike (a group: pda_capture_opts.counted),
 * resolved once, each counted in the statistics as if resolved. */
int pda_sample_leaf_n(struct pda_session *s, const struct pd_sample *sample,
		      struct pda_stack *st, struct pda_dso **dso, uint64_t n);

/*
 * pda_sample_leaf() for an address that is no sample (a branch's end):
 * the session's frame counts and the binary's sample and unresolved
 * counts (the "unresolved frames by binary" shares) are left as they
 * were, so that resolving branch ends does not count them as samples.
 * *al_addr: the address as perf's map__map_ip() gives it (perf's
 * al_addr, what it shows for an address without a symbol): the map's
 * offset plus its pgoff in a file's, a module's or a KSYMBOL's map, the
 * address itself in the kernel's, a JIT's or anonymous memory, or
 * without a map.
 */
int pda_addr_leaf(struct pda_session *s, const struct pd_sample *sample,
		  struct pda_stack *st, struct pda_dso **dso, uint64_t *al_addr);
/* The same, with the start of the map that holds the address in
 * *map_start (0 without a map). */
int pda_addr_leaf_map(struct pda_session *s, const struct pd_sample *sample,
		      struct pda_stack *st, struct pda_dso **dso,
		      uint64_t *al_addr, uint64_t *map_start);

/* pda_addr_leaf() with the holding map's id in *id. */
int pda_addr_leaf_id(struct pda_session *s, const struct pd_sample *sample,
		     struct pda_stack *st, struct pda_dso **dso,
		     uint64_t *al_addr, struct pda_map_id *id);

/* pda_addr_leaf() of the sample's own ip in the process maps umaps
 * (NULL: the sample's, at its state), its one frame named by the symbol
 * table (no inlined frames): perf's addr_location, which perf report
 * makes a sample's own entry of (pda_pipe.c, ip_leaf).  Counted in v
 * (the pipeline's view; the functions here without one use s->view). */
int pda_ip_leaf(struct pda_session *s, struct pda_view *v,
		const struct pd_sample *sample, struct pda_maps *umaps,
		struct pda_stack *st);

/* ---- the unwind pass of a two-pass run (pda_pipe.c) ----------------- */

struct pda_unwind_job;

/* A sample's user ips, unwound (leaf first). */
struct pda_unwound {
	const uint64_t *ips;
	size_t nr;
};

/*
 * The unwind half of pda_sample_stack_job(): sample's user ips (out
 * valid until the next unwind), its unwind begun in job or, NULL, done
 * here in umaps.  Counted in the unwinding statistics.  0 or a negative
 * pd_err.
 */
int pda_sample_unwind(struct pda_session *s, const struct pd_sample *sample,
		      struct pda_unwind_job *job, struct pda_maps *umaps,
		      struct pda_unwound *out);
/* pda_sample_stack_job() with the user ips unwound before (pre). */
int pda_sample_stack_unwound(struct pda_session *s, struct pda_view *v,
			     const struct pd_sample *sample,
			     struct pda_stack *st, struct pda_maps *umaps,
			     const struct pda_unwound *pre);

/*
 * binutils' addr2line names a function record after the first address
 * it is asked about (pda_dwarf.c a2l_name), and perf asks about each
 * DWARF-unwound frame's address as it meets it, in time order.  A run
 * that resolves samples in another order first unwinds them, noting
 * each such address's first use in time (pda_first_note: the sample's
 * time and file place, the frame's place in it), then resolves those
 * addresses in that order (pda_first_replay) before any sample: their
 * frames are then named as perf names them.  0 or NOMEM.
 */
int pda_first_note(struct pda_session *s, struct pda_maps *umaps,
		   const struct pda_unwound *u, uint64_t time, uint64_t seq);
int pda_first_replay(struct pda_session *s);
/*
 * While the unwind pass runs on several threads: the DWARF of each
 * address noted is loaded ahead by a worker (pda_first_ahead, when it has
 * nothing to unwind), so that the replay only looks up (pda_dwahead.c),
 * and first the kernel's kallsyms (pda_kernel_ahead_open, pda_kallsyms.c).
 * pda_first_ahead_open() starts that (session's thread, before the
 * workers; 0 or NOMEM); pda_first_replay() ends it.  pda_first_ahead()
 * is false when there was nothing to load.
 */
int pda_first_ahead_open(struct pda_session *s);
bool pda_first_ahead(struct pda_session *s);

/* ---- what resolving a sample counted (the pipeline's memo) ---------- */

#define PDA_MEMO_MAX_DSOS 16

/*
 * The statistics one sample's resolution (pda_sample_stack_job) added,
 * so that a sample with the same stack in the same state of its
 * process's maps can count them without being resolved (pda_pipe.c's
 * memo): the session's frame and sample counts, and the binaries whose
 * samples, and samples with unresolved frames, it counted.  More
 * binaries than PDA_MEMO_MAX_DSOS set overflow: such a stack is resolved
 * every time.
 */
struct pda_memo_rec {
	uint64_t nr_frames, nr_frames_unresolved;
	bool unresolved;
	bool overflow;
	unsigned nr_dsos, nr_unres;
	struct pda_dso_ent *dsos[PDA_MEMO_MAX_DSOS];
	struct pda_dso_ent *unres[PDA_MEMO_MAX_DSOS];
};

/* pda_sample_stack_job() (no unwind job) noting what it counts in
 * *rec. */
int pda_sample_stack_rec(struct pda_session *s, struct pda_view *v,
			 const struct pd_sample *sample, struct pda_stack *st,
			 struct pda_maps *umaps, struct pda_memo_rec *rec);

/* What a memo keeps of a record: the counts, then nr_dsos + nr_unres
 * binaries (dsos[] of the record, then unres[]). */
struct pda_memo_counts {
	uint32_t nr_frames, nr_frames_unresolved;
	uint8_t unresolved, nr_dsos, nr_unres;
};

/* Count again, for one more sample, what a recorded sample counted. */
void pda_memo_replay(struct pda_session *s, const struct pda_memo_counts *c,
		     struct pda_dso_ent *const *dsos);
/* The same for n more samples, counted in v.  0, or PD_ERR_NOMEM (said)
 * where a shard view had no memory for a binary's counts. */
int pda_memo_replay_n(struct pda_view *v, const struct pda_memo_counts *c,
		      struct pda_dso_ent *const *dsos, uint64_t n);

/* ---- stacks from LBR call stacks (pda_lbr.c) ------------------------ */

/* A walk over the addresses of one sample's LBR call stack. */
struct pda_lbr_walk {
	const struct pd_sample *sample;
	uint64_t user_marker; /* callchain index of PERF_CONTEXT_USER */
	uint64_t pos;
	unsigned cpumode;
};

/*
 * Whether sample's stack is built from its LBR call stack, as perf 6.1
 * builds it (--call-graph lbr); then lw is set for pda_lbr_next().  On
 * false, the callchain is to be walked as usual.  lw keeps a pointer to
 * sample.
 */
bool pda_lbr_begin(const struct pd_sample *sample, struct pda_lbr_walk *lw);

/*
 * The next address of the stack, leaf first, and the space (PD_MISC_USER,
 * _KERNEL or _HYPERVISOR) it is looked up in.  @return false at the end.
 */
bool pda_lbr_next(struct pda_lbr_walk *lw, uint64_t *ip, unsigned *cpumode);

#endif /* PDA_STACK_INT_H */
