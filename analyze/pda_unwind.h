/*
 * pda_unwind.h - the DWARF unwinder seam: how pda_session.c gets the user
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
 *   a backend		pda_unwind_libdw.c (elfutils, the default) or
 *			pda_unwind_libunwind.c (x86_64 only): the unwinding
 *			itself, behind struct pda_unwind_backend.
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
 * the result: no session-global state.  The exceptions all go through
 * pda_unwind_dso_elf(), the one function that may load a binary (DSO
 * lookup, ELF open, interning, logging): a change that runs unwinds on
 * worker threads puts it under a lock, runs each process's samples on one
 * worker at a time (a pda_unwind_proc is not thread-safe), and freezes
 * the maps for the batch.  pda_unwind_sample() itself also counts the
 * statistics and finds the process's state: a worker change splits it
 * into a lookup (on the decoding thread), the unwind (a worker) and the
 * accounting (the aggregating thread).
 */
#ifndef PDA_UNWIND_H
#define PDA_UNWIND_H

#include "pda_session_int.h"

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
 * Read size (4 or 8) bytes of target memory at addr, in the target's byte
 * order, as the backends' memory callbacks do: from the stack dump, else
 * from the file bytes of the map holding addr (perf's access_dso_mem).
 * @return 1 and *val; 0 with *why PDA_UNWIND_STACK_SHORT (past the dump's
 * end, where the stack goes on) or PDA_UNWIND_BAD_ADDR; PD_ERR_NOMEM.
 */
int pda_unwind_read(struct pda_session *s, const struct pda_unwind_req *req,
		    uint64_t addr, unsigned size, uint64_t *val, unsigned *why);

/*
 * The binary of d in *out (looked up on first use), NULL when it is
 * missing or d is no file: the one way an unwinder loads files, so that a
 * threaded change can put it under a lock.  Its separate debug file, if
 * any, is d->d.debug.  @return 0 or PD_ERR_NOMEM.
 */
int pda_unwind_dso_elf(struct pda_session *s, struct pda_dso_ent *d,
		       struct pda_elf **out);

/*
 * Why an unwind that failed at pc (a frame's pc, less 1 where the
 * unwinder subtracted it) stopped, as far as the maps tell: NO_MAP,
 * NO_CFI (JIT or anonymous code), NO_BINARY; PDA_UNWIND_NR_STOPS when
 * pc is in a binary that was found, whose CFI the backend then looks at.
 * @return 0 or PD_ERR_NOMEM.
 */
int pda_unwind_classify(struct pda_session *s, const struct pda_unwind_req *req,
			uint64_t pc, unsigned *why);

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
	 * of CFI or memory (that is res->stop).  @return 0 or NOMEM. */
	int (*unwind)(struct pda_session *s, struct pda_unwind_proc *p,
		      const struct pda_unwind_req *req,
		      struct pda_unwind_res *res);
};

extern const struct pda_unwind_backend pda_unwind_libdw;
extern const struct pda_unwind_backend pda_unwind_libunwind;

/* ---- the session's unwinder (pda_unwind.c) -------------------------- */

struct pda_unwinder;

/* @return 0 and *out, PD_ERR_UNSUPPORTED (no backend called name; the
 * session's message says so) or NOMEM. */
int pda_unwinder_new(struct pda_session *s, const char *name,
		     struct pda_unwinder **out);
void pda_unwinder_free(struct pda_session *s, struct pda_unwinder *u);

/* Whether sample carries what DWARF unwinding needs (REGS_USER with an
 * abi, STACK_USER), as perf checks it before unwinding. */
bool pda_unwind_wanted(const struct pd_sample *sample);

/*
 * The user ips of sample in process maps (pda_machine_maps of its pid),
 * leaf first, into *ips (valid until the next call), and its stop reason
 * counted in the statistics.  *nr is 0 when nothing could be unwound
 * (no stack dump, no pc); the stop reason then says why.  @return 0 or
 * PD_ERR_NOMEM.
 */
int pda_unwind_sample(struct pda_session *s, struct pda_unwinder *u,
		      const struct pd_sample *sample, struct pda_maps *maps,
		      const uint64_t **ips, size_t *nr);

/*
 * arm64's leaf caller on a frame-pointer (-g) sample that sampled the
 * user LR: the caller of the leaf at pc (the callchain's first user
 * entry) as perf 6.1 recovers it, less 1, in *caller, or 0 when the
 * leaf's return address is no longer in LR (or the capture is not
 * aarch64).  Not counted in the statistics.  @return 0 or NOMEM.
 */
int pda_unwind_leaf_caller(struct pda_session *s, struct pda_unwinder *u,
			   const struct pd_sample *sample,
			   struct pda_maps *maps, uint64_t pc,
			   uint64_t *caller);

/* The statistics so far into *st (its DSO list valid until the next
 * call; a shorter list on NOMEM). */
void pda_unwind_stats(struct pda_session *s, struct pda_unwinder *u,
		      struct pda_unwind_stats *st);

#endif /* PDA_UNWIND_H */
