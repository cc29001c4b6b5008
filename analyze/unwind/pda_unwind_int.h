/*
 * pda_unwind_int.h - the DWARF unwinder seam: how pda_session.c gets the user
 * frames of a sample that carries REGS_USER and STACK_USER
 * (`--call-graph dwarf`), and how an unwinder backend plugs in.  Private
 * to pda_session.c and pda_unwind*.c.
 *
 * The layers:
 *
 *   pda_session.c	resolves the callchain (the kernel part), then asks
 *			pda_unwind_sample() for the user ips and resolves
 *			those (symbols, inlined frames) as it does any ip;
 *   pda_unwind.c	the generic part: the capture's architecture, perf's
 *			register numbers to DWARF's, one state per process
 *			(kept while its maps hold), the stack dump and the
 *			mapped files as memory, why an unwind stopped, the
 *			statistics;
 *   a backend		pda_unwind_libdw.c (elfutils, the default, with its
 *			cached CFI rows in pda_unwind_cfi.c) or
 *			pda_unwind_libunwind.c (x86_64 only): the unwinding
 *			itself, behind struct pda_unwind_backend;
 *   pda_pipe.c		runs the unwinds of a pipeline on several threads.
 *
 * A backend sees a request (struct pda_unwind_req): the sample's
 * registers, its stack dump, the process's maps at that moment (const:
 * the backend never changes them) and the arch, and fills a result (struct
 * pda_unwind_res): ips, leaf first, each a return address less 1 where
 * perf subtracts it (every frame but the first and those after a signal
 * frame), and the reason it stopped.  It keeps what it learns of a process
 * (modules, CFI) in its pda_unwind_proc across samples; pda_unwind.c tells
 * it when the process's maps changed (maps_changed) and it drops what no
 * longer holds.
 *
 * Threads.  An unwind touches only its process's state, the request and
 * the result: no session-global state.  A pipeline (pda_pipe.c) runs
 * unwinds on several threads, each with its own backend state per process
 * (a slot: pda_unwind_proc is not thread-safe), each unwind in a frozen
 * copy of its process's maps (req->maps; maps_changed is called on the
 * slot's own thread, by pda_unwind_run, when a slot meets other maps).
 * It splits pda_unwind_sample() in three: pda_unwind_prep() on the
 * session's thread finds the arch and the process's state; any thread
 * runs pda_unwind_run() with its slot; pda_unwind_finish() on the
 * session's thread, in sample order, redoes what could not run elsewhere
 * and counts the statistics.  On the other threads a backend may use
 * only pda_malloc/pda_realloc/pda_free, pda_logf (both locked while
 * threads run), pda_unwind_read, pda_unwind_classify, pda_unwind_dso_elf,
 * pda_maps_lookup and the read-only pda_elf accessors it already uses
 * (pda_elf_image, pda_elf_load_span, pda_elf_map_bias, pda_elf_path,
 * pda_elf_arch); never pda_set_err, pda_intern or the arena.  A binary is
 * loaded only on the session's thread: elsewhere pda_unwind_dso_elf (and
 * so pda_unwind_read and pda_unwind_classify) returns PDA_UNWIND_AGAIN
 * for one not loaded yet, which the backend passes up as it passes up
 * NOMEM, leaving its state consistent; the unwind is then redone on the
 * session's thread, so that binaries load, and are warned about, in
 * sample order whatever the number of threads.
 */
#ifndef PDA_UNWIND_INT_H
#define PDA_UNWIND_INT_H

#include "pda_machine_int.h"

/* ---- architectures -------------------------------------------------- */

/* DWARF registers set from a sample at most (s390: 0..31). */
#define PDA_UNWIND_MAX_DWARF_REGS 32

/*
 * A target as unwound: perf's register numbers (sample_regs_user bits)
 * mapped to the DWARF register numbers of its ABI, as perf's
 * arch/{x86,arm,arm64,powerpc,s390,riscv}/util/unwind-libdw.c map them.
 */
struct pda_unwind_arch {
	const char *name;	/* "x86_64", "i386", "aarch64", "arm",
				 * "ppc64le", "ppc64", "s390x", "riscv64" */
	uint16_t e_machine;	/* EM_* */
	bool is64;
	bool big_endian;
	unsigned perf_pc, perf_sp; /* perf register numbers of pc and sp */
	unsigned nr_dwarf;	/* DWARF registers 0..nr_dwarf-1 are set */
	signed char perf_of_dwarf[PDA_UNWIND_MAX_DWARF_REGS]; /* -1: none */
	bool pc_is_dwarf;	/* the pc is one of those (arm r15, x86 rip
				 * 16 is not: it is passed apart) */
	/* more registers the ABI's CFI may use (ppc64 lr, xer, ctr) */
	unsigned nr_extra;
	struct {
		unsigned dwarf, perf;
	} extra[3];
};

/*
 * The target of a capture: name is its HEADER_ARCH (uname -m), e_machine
 * an ELF machine when the name is unknown (the E_MACHINE feature, the
 * binaries'), abi the sample's PERF_SAMPLE_REGS_ABI (1: 32-bit, 2:
 * 64-bit: an arm process on aarch64, i386 on x86_64).  @return the arch,
 * or NULL when neither names one pdtool can unwind.
 */
const struct pda_unwind_arch *pda_unwind_arch_find(const char *name,
						   unsigned e_machine,
						   uint64_t abi);

/* perf register reg of a sample's regs: @return false when not sampled. */
bool pda_unwind_reg(const struct pd_regs *regs, unsigned reg, uint64_t *val);

/* ---- requests and results ------------------------------------------- */

struct pda_unwind_req {
	const struct pda_unwind_arch *arch;
	const struct pd_regs *regs;	/* the sample's user registers */
	const unsigned char *stack;	/* the dump, raw target memory */
	uint64_t stack_size;		/* valid bytes of it (dyn_size) */
	uint64_t sp;			/* the address stack[0] was at */
	uint64_t pc;			/* the leaf */
	const struct pda_maps *maps;	/* the process's, frozen for the call */
	uint32_t pid, tid;
	size_t max_frames;		/* > 0 */
};

struct pda_unwind_res {
	uint64_t *ips;		/* max_frames entries, the caller's */
	size_t nr;
	unsigned stop;		/* enum pda_unwind_stop */
	uint64_t stop_pc;	/* the last frame's pc, where it stopped */
};

/*
 * v without the pointer authentication code an arm64 return address may
 * carry (the rule is in pda_unwind.c); v itself on other targets and for
 * values that are user addresses.  Backends apply it to the registers
 * they start from; pda_unwind_read applies it to what it reads.
 */
uint64_t pda_unwind_strip(const struct pda_unwind_req *req, uint64_t v);

/*
 * Read size (4 or 8) bytes of target memory at addr, in the target's byte
 * order, as the backends' memory callbacks do: from the stack dump, else
 * from the file bytes of the map holding addr (perf's access_dso_mem);
 * 8 bytes pass through pda_unwind_strip().
 * @return 1 and *val; 0 with *why PDA_UNWIND_STACK_SHORT (past the dump's
 * end, where the stack goes on) or PDA_UNWIND_BAD_ADDR; PD_ERR_NOMEM,
 * PDA_UNWIND_AGAIN.
 */
int pda_unwind_read(struct pda_session *s, const struct pda_unwind_req *req,
		    uint64_t addr, unsigned size, uint64_t *val, unsigned *why);

/*
 * Not an error: the unwind needs a binary that only the session's thread
 * may load (see Threads above).  No pd_err has this value.
 */
#define PDA_UNWIND_AGAIN (-1000)

/*
 * The binary of d in *out (looked up on first use), NULL when it is
 * missing or d is no file: the one way an unwinder loads files.  Its
 * separate debug file, if any, is d->d.debug.  @return 0, PD_ERR_NOMEM,
 * or PDA_UNWIND_AGAIN off the session's thread when d is not looked up
 * yet.
 */
int pda_unwind_dso_elf(struct pda_session *s, struct pda_dso_ent *d,
		       struct pda_elf **out);

/*
 * Why an unwind that failed at pc (a frame's pc, less 1 where the
 * unwinder subtracted it) stopped, as far as the maps tell: NO_MAP,
 * NO_CFI (JIT or anonymous code), NO_BINARY; PDA_UNWIND_NR_STOPS when
 * pc is in a binary that was found, whose CFI the backend then looks at.
 * @return 0, PD_ERR_NOMEM or PDA_UNWIND_AGAIN.
 */
int pda_unwind_classify(struct pda_session *s, const struct pda_unwind_req *req,
			uint64_t pc, unsigned *why);

/*
 * Whether a binary a backend placed from the map that began at anchor
 * (dso's file elf, at load bias) is still there in maps: the same DSO
 * mapped at anchor with the same bias.  The backends' maps_changed drop
 * what no longer holds.
 */
bool pda_unwind_still_mapped(const struct pda_maps *maps, uint64_t anchor,
			     const struct pda_dso_ent *dso, struct pda_elf *elf,
			     uint64_t bias);

/* ---- backends ------------------------------------------------------- */

struct pda_unwind_proc; /* a backend's state for one process */

struct pda_unwind_backend {
	const char *name; /* opts.unwinder names it */
	/* State for a process of arch; @return 0 or PD_ERR_NOMEM,
	 * PD_ERR_UNSUPPORTED (the backend cannot unwind arch). */
	int (*proc_new)(struct pda_session *s,
			const struct pda_unwind_arch *arch,
			struct pda_unwind_proc **out);
	void (*proc_free)(struct pda_session *s, struct pda_unwind_proc *p);
	/* The process's maps changed since the last unwind: drop what was
	 * learnt of maps that are gone or moved.  May be NULL. */
	void (*maps_changed)(struct pda_session *s, struct pda_unwind_proc *p,
			     const struct pda_maps *maps);
	/* Unwind one sample: res->ips[0] is req->pc; never fails for want
	 * of CFI or memory (that is res->stop).  @return 0, NOMEM or
	 * PDA_UNWIND_AGAIN (passed up from the services above). */
	int (*unwind)(struct pda_session *s, struct pda_unwind_proc *p,
		      const struct pda_unwind_req *req,
		      struct pda_unwind_res *res);
};

extern const struct pda_unwind_backend pda_unwind_libdw;
extern const struct pda_unwind_backend pda_unwind_libunwind;
/* For tests: libdw without its cached CFI rows (pda_unwind_cfi.c), every
 * frame through libdwfl. */
extern const struct pda_unwind_backend pda_unwind_libdwfl;

/* ---- the libdw backend's cached CFI rows (pda_unwind_cfi.c) --------- */

struct pda_cfi_cache;
struct pda_cfi_store; /* the session's rows, s->cfi_store */
struct Dwfl_Module;

/* Where rows come from: the module (reported to the backend's Dwfl) that
 * holds addr, or NULL.  @return 0, NOMEM or AGAIN. */
struct pda_cfi_src {
	int (*module)(void *arg, uint64_t addr, struct Dwfl_Module **mod);
	void *arg;
};

/* A cache for a process of arch, over *store (made when NULL, on the
 * session's thread); *out NULL (and 0) when arch is not one the rows can
 * follow.  @return 0 or NOMEM. */
int pda_cfi_cache_new(struct pda_session *s, const struct pda_unwind_arch *a,
		      struct pda_cfi_store **store, struct pda_cfi_cache **out);
/* Accepts NULL; after every cache over it. */
void pda_cfi_store_free(struct pda_session *s, struct pda_cfi_store *st);
/* Forget every row (the modules changed). */
void pda_cfi_cache_clear(struct pda_session *s, struct pda_cfi_cache *c);
/* Accepts NULL. */
void pda_cfi_cache_free(struct pda_session *s, struct pda_cfi_cache *c);
/*
 * Unwind req through cached rows into res as the libdw backend would
 * through libdwfl, or leave it (*done false) to libdwfl.  @return 0,
 * NOMEM or AGAIN.
 */
int pda_cfi_unwind(struct pda_session *s, struct pda_cfi_cache *c,
		   const struct pda_cfi_src *src,
		   const struct pda_unwind_req *req, struct pda_unwind_res *res,
		   bool *done);

/* ---- the session's unwinder (pda_unwind.c) -------------------------- */

struct pda_unwinder;

/* @return 0 and *out, PD_ERR_UNSUPPORTED (no backend called name; the
 * session's message says so) or NOMEM. */
int pda_unwinder_new(struct pda_session *s, const char *name,
		     struct pda_unwinder **out);
void pda_unwinder_free(struct pda_session *s, struct pda_unwinder *u);
/* For tests: unwind with be instead, before the first unwind.  @return 0
 * or PD_ERR_API (too late). */
int pda_unwinder_use(struct pda_unwinder *u,
		     const struct pda_unwind_backend *be);

/*
 * The user ips of sample of the process whose live maps are key
 * (pda_machine_maps of its pid), unwound in maps (its maps at the
 * sample, or NULL: key), leaf first, into *ips (valid until the next
 * call), and its stop reason counted in the statistics.  *nr is 0 when
 * nothing could be unwound (no stack dump, no pc); the stop reason then
 * says why.  @return 0 or PD_ERR_NOMEM.  The same as prep, run on slot 0
 * and finish.
 */
int pda_unwind_sample(struct pda_session *s, struct pda_unwinder *u,
		      const struct pd_sample *sample, struct pda_maps *key,
		      const struct pda_maps *maps, const uint64_t **ips,
		      size_t *nr);

/*
 * arm64's leaf caller on a frame-pointer (-g) sample that sampled the
 * user LR: the caller of the leaf at pc (the callchain's first user
 * entry) as perf 6.1 recovers it, less 1, in *caller, or 0 when the
 * leaf's return address is no longer in LR (or the capture is not
 * aarch64).  key and maps as for pda_unwind_prep.  Not counted in the
 * statistics.  @return 0 or NOMEM.
 */
int pda_unwind_leaf_caller(struct pda_session *s, struct pda_unwinder *u,
			   const struct pd_sample *sample, struct pda_maps *key,
			   const struct pda_maps *maps, uint64_t pc,
			   uint64_t *caller);

/* ---- unwinding on several threads (pda_pipe.c) ---------------------- */

struct pda_unwind_job;

/*
 * pda_sample_stack() with the user stack's unwind begun in job (prepped
 * for sample, maybe run on another thread), or NULL: done here, and user
 * addresses resolved in umaps (a frozen copy of the process's maps as
 * they were at the sample), or NULL: in the process's maps now
 * (pda_session.c).
 */
int pda_sample_stack_job(struct pda_session *s, struct pda_view *v,
			 const struct pd_sample *sample, struct pda_stack *st,
			 struct pda_unwind_job *job, struct pda_maps *umaps);

struct pda_unwind_uproc; /* a process: its backend state per slot */

/* One sample's unwind, from prep to finish. */
struct pda_unwind_job {
	const struct pd_sample *sample;
	struct pda_maps *key;		/* the process's live maps: its state */
	const struct pda_maps *maps;	/* the maps unwound in (a frozen copy
					 * of key while they change, or key) */
	struct pda_unwind_req req;
	struct pda_unwind_res res;	/* res.ips: the caller's, of
					 * pda_unwind_max_frames() entries */
	struct pda_unwind_uproc *proc;	/* NULL: nothing to run (res.stop
					 * says why) */
	bool prepped;			/* false: prep to be redone */
	bool ran, unwound;		/* run was called; the backend too */
	int rc;				/* run's */
};

/* User frames an unwind gives at most (opts.max_stack). */
size_t pda_unwind_max_frames(const struct pda_session *s);

/* Unwinding threads, the session's included: each gets a slot
 * 0..nr-1 (the session's thread 0).  Only grows.  @return 0. */
int pda_unwind_set_slots(struct pda_session *s, struct pda_unwinder *u,
			 unsigned nr);

/* While hold, unwinds may be under way: no backend state is released
 * (more than the cap may live); releasing the hold trims them. */
void pda_unwind_hold(struct pda_session *s, struct pda_unwinder *u, bool hold);

/*
 * On the session's thread: set job up for sample of the process whose
 * live maps are key, unwound in maps (a frozen copy of key, or NULL: key
 * itself), its ips into ips.  @return 0 (job->proc NULL when there is
 * nothing to run), PD_ERR_NOMEM, or PDA_UNWIND_AGAIN (job->prepped false:
 * the arch needs a binary loaded, or the process's state to be released;
 * finish preps it again).
 */
int pda_unwind_prep(struct pda_session *s, struct pda_unwinder *u,
		    const struct pd_sample *sample, struct pda_maps *key,
		    const struct pda_maps *maps, uint64_t *ips,
		    struct pda_unwind_job *job);
/* On the thread of slot: the backend's unwind of a prepped job (first
 * telling the slot's state when the maps changed since its last unwind).
 * @return (also in job->rc) 0, NOMEM or PDA_UNWIND_AGAIN. */
int pda_unwind_run(struct pda_session *s, struct pda_unwinder *u,
		   struct pda_unwind_job *job, unsigned slot);
/*
 * On the session's thread, in sample order: prep and run what could not
 * be done elsewhere (slot 0), count the job in the statistics and hand
 * back its ips (valid as long as job->res.ips).  @return 0 or NOMEM.
 */
int pda_unwind_finish(struct pda_session *s, struct pda_unwinder *u,
		      struct pda_unwind_job *job, const uint64_t **ips,
		      size_t *nr);

/* The statistics so far into *st (its DSO list valid until the next
 * call; a shorter list on NOMEM). */
void pda_unwind_stats(struct pda_session *s, struct pda_unwinder *u,
		      struct pda_unwind_stats *st);

#endif /* PDA_UNWIND_INT_H */
