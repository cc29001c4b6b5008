/*
 * pda_unwind.c - the generic half of DWARF unwinding (the seam is
 * described in pda_unwind_int.h): the capture's architecture and its register
 * mapping, one backend state per process kept while the process's maps
 * hold, the stack dump and the mapped files as the target's memory, why
 * an unwind stopped, and the statistics of it.
 *
 * perf unwinds a sample only when its event samples REGS_USER and
 * STACK_USER and the sample carries registers (abi != 0) and a non-empty
 * dump (thread__resolve_callchain_unwind); the dump's valid size is its
 * dyn_size.  The architecture is the capture's, never this host's: its
 * HEADER_ARCH (uname -m, as perf_env__arch reads it), else its E_MACHINE
 * feature, else the e_machine of a binary the process maps, else the
 * register mask's shape; a 32-bit process (abi 1) on x86_64 or aarch64 is
 * i386 or arm.
 */
#include "pda_unwind_int.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#define PROCS_LIVE_MAX 256	 /* backend states kept; the least recently
				  * used goes first */
#define STACK_REACH (8ull << 20) /* reads this far past a dump's end are
				  * taken as the stack going on */
#define STOPPED_MAX ((size_t)1 << 16)

#ifndef EM_RISCV
#define EM_RISCV 243
#endif

/* ---- architectures -------------------------------------------------- */

/*
 * perf register numbers: tools/perf/arch/ARCH/include/uapi/asm/perf_regs.h
 * (x86: AX 0, BX 1, CX 2, DX 3, SI 4, DI 5, BP 6, SP 7, IP 8, R8-R15 16-23;
 * arm64: X0-X30 0-30, SP 31, PC 32; arm: R0-R10, FP, IP, SP, LR, PC 0-15;
 * powerpc: R0-R31 0-31, NIP 32, CTR 35, LINK 36, XER 37; s390: R0-R15
 * 0-15, FP0-FP15 16-31, MASK 32, PC 33; riscv: PC 0, then x1-x31 as 1-31).
 * DWARF numbers: the psABIs, as elfutils' backends (*_initreg.c) take
 * them.
 */
/* ppc64, either byte order: r0-r31; lr, xer, ctr as elfutils'
 * ppc_initreg numbers them */
#define PPC64_REGS                                                          \
	.is64 = true, .perf_pc = 32, .perf_sp = 1, .nr_dwarf = 32,          \
	.perf_of_dwarf = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,       \
			  11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,       \
			  22, 23, 24, 25, 26, 27, 28, 29, 30, 31},          \
	.nr_extra = 3, .extra = {{65, 36}, {101, 37}, {109, 35}}

static const struct pda_unwind_arch arches[] = {
	{
		.name = "x86_64", .e_machine = EM_X86_64, .is64 = true,
		.perf_pc = 8, .perf_sp = 7, .nr_dwarf = 17,
		/* rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip */
		.perf_of_dwarf = {0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20,
				  21, 22, 23, 8},
	},
	{
		.name = "i386", .e_machine = EM_386,
		.perf_pc = 8, .perf_sp = 7, .nr_dwarf = 9,
		/* eax ecx edx ebx esp ebp esi edi eip */
		.perf_of_dwarf = {0, 2, 3, 1, 7, 6, 4, 5, 8},
	},
	{
		.name = "aarch64", .e_machine = EM_AARCH64, .is64 = true,
		.perf_pc = 32, .perf_sp = 31, .nr_dwarf = 32,
		/* x0-x30, sp; the pc is passed apart */
		.perf_of_dwarf = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
				  11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
				  22, 23, 24, 25, 26, 27, 28, 29, 30, 31},
	},
	{
		.name = "arm", .e_machine = EM_ARM,
		.perf_pc = 15, .perf_sp = 13, .nr_dwarf = 16,
		.perf_of_dwarf = {0, 1, 2,  3,  4,  5,  6,  7,
				  8, 9, 10, 11, 12, 13, 14, 15},
	},
	{
		.name = "ppc64le", .e_machine = EM_PPC64, PPC64_REGS,
	},
	{
		.name = "ppc64", .e_machine = EM_PPC64, .big_endian = true,
		PPC64_REGS,
	},
	{
		.name = "s390x", .e_machine = EM_S390, .is64 = true,
		.big_endian = true,
		.perf_pc = 33, .perf_sp = 15, .nr_dwarf = 32,
		/* r0-r15, then f0 f2 f4 f6 f1 f3 f5 f7 f8 f10 f12 f14 f9
		 * f11 f13 f15 */
		.perf_of_dwarf = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
				  11, 12, 13, 14, 15, 16, 18, 20, 22, 17, 19,
				  21, 23, 24, 26, 28, 30, 25, 27, 29, 31},
	},
	{
		.name = "riscv64", .e_machine = EM_RISCV, .is64 = true,
		.perf_pc = 0, .perf_sp = 2, .nr_dwarf = 32,
		/* x0 is zero, not sampled; x1-x31 */
		.perf_of_dwarf = {-1, 1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
				  11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
				  22, 23, 24, 25, 26, 27, 28, 29, 30, 31},
	},
};

static const struct pda_unwind_arch *arch_named(const char *name)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (strcmp(arches[i].name, name) == 0)
			return &arches[i];
	return NULL;
}

/* uname -m as perf_env__arch normalizes it, to our names; NULL unknown. */
static const char *normal_name(const char *m)
{
	if (!strcmp(m, "x86_64") || !strcmp(m, "amd64"))
		return "x86_64";
	if (!strcmp(m, "x86") || (m[0] == 'i' && strlen(m) == 4 &&
				  m[1] >= '3' && m[1] <= '6' &&
				  !strcmp(m + 2, "86")))
		return "i386";
	if (!strcmp(m, "aarch64") || !strcmp(m, "arm64"))
		return "aarch64";
	if (!strncmp(m, "arm", 3))
		return "arm";
	if (!strcmp(m, "ppc64le") || !strcmp(m, "powerpc64le"))
		return "ppc64le";
	if (!strcmp(m, "ppc64") || !strcmp(m, "powerpc64"))
		return "ppc64";
	if (!strcmp(m, "s390x"))
		return "s390x";
	if (!strcmp(m, "riscv64"))
		return "riscv64";
	return NULL;
}

static const char *machine_name(unsigned e_machine)
{
	switch (e_machine) {
	case EM_X86_64:
		return "x86_64";
	case EM_386:
		return "i386";
	case EM_AARCH64:
		return "aarch64";
	case EM_ARM:
		return "arm";
	case EM_PPC64:
		return "ppc64le"; /* the byte order is not in e_machine */
	case EM_S390:
		return "s390x";
	case EM_RISCV:
		return "riscv64";
	default:
		return NULL;
	}
}

const struct pda_unwind_arch *pda_unwind_arch_find(const char *name,
						   unsigned e_machine,
						   uint64_t abi)
{
	const char *n = name && *name ? normal_name(name) : NULL;

	if (!n)
		n = machine_name(e_machine);
	if (!n)
		return NULL;
	/* PERF_SAMPLE_REGS_ABI_32: a compat process */
	if (abi == 1 && !strcmp(n, "x86_64"))
		n = "i386";
	else if (abi == 1 && !strcmp(n, "aarch64"))
		n = "arm";
	return arch_named(n);
}

bool pda_unwind_reg(const struct pd_regs *regs, unsigned reg, uint64_t *val)
{
	uint64_t below;
	unsigned idx;

	if (reg >= 64 || !regs->abi || !(regs->mask >> reg & 1))
		return false;
	below = reg ? regs->mask & ((1ull << reg) - 1) : 0;
	idx = (unsigned)__builtin_popcountll(below);
	if (idx >= regs->regs.nr)
		return false;
	*val = pd_u64s_get(&regs->regs, idx);
	return true;
}

/* ---- memory --------------------------------------------------------- */

static uint64_t load(const unsigned char *p, unsigned size, bool big)
{
	/* pd_load_*'s swap flag: the target's order is not this host's */
	const int swap = big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);

	return size == 8 ? pd_load_u64(p, swap) : pd_load_u32(p, swap);
}

int pda_unwind_dso_elf(struct pda_session *s, struct pda_dso_ent *d,
		       struct pda_elf **out)
{
	enum pda_dso_state state;
	struct pda_elf *e;
	int rc;

	*out = NULL;
	if (!d || (d->kind != PDA_DSO_FILE && d->kind != PDA_DSO_VDSO))
		return 0;
	if (!pda_dso_may_load(s)) {
		/* another thread unwinds: it loads nothing, so that binaries
		 * are loaded (and warned about) in sample order, as with one
		 * thread; pda_dso_load publishes under the lock */
		pda_dso_published(s, d, &state, &e);
		if (state == PDA_DSO_UNTRIED)
			return PDA_UNWIND_AGAIN;
		*out = state == PDA_DSO_FOUND ? e : NULL;
		return 0;
	}
	if (d->d.state == PDA_DSO_UNTRIED && (rc = pda_dso_load(s, d)) < 0)
		return rc;
	if (d->d.state == PDA_DSO_FOUND)
		*out = d->d.elf;
	return 0;
}

/*
 * arm64 pointer authentication (-mbranch-protection=pac-ret): a return
 * address saved in the stack or held in x30 carries a code in bits
 * [54:VA] (TBI leaves the top byte out; VA is the user address space's
 * size).  perf records no mask (the kernel's PERF_SAMPLE_ARCH_1 for it
 * was never merged, and libdw 0.188 takes none), so VA is the highest
 * address the process maps, where Linux puts its stack, rounded up to a
 * size arm64 kernels use.  A value with bit 55 clear and bits in [54:VA]
 * is no user address: it is taken for a signed one and stripped.
 */
uint64_t pda_unwind_strip(const struct pda_unwind_req *req, uint64_t v)
{
	static const unsigned sizes[] = {39, 42, 47, 48, 52};
	const struct pda_maps *m = req->maps;
	uint64_t top, mask;
	unsigned va, i;

	if (req->arch->e_machine != EM_AARCH64 || v >> 55 || !m || !m->nr)
		return v;
	top = m->v[m->nr - 1].end - 1;
	va = top ? 64 - (unsigned)__builtin_clzll(top) : 1;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]) - 1; i++)
		if (va <= sizes[i])
			break;
	mask = (1ull << 55) - (1ull << sizes[i]);
	return v & ~mask;
}

int pda_unwind_read(struct pda_session *s, const struct pda_unwind_req *req,
		    uint64_t addr, unsigned size, uint64_t *val, unsigned *why)
{
	const uint64_t end = req->sp + req->stack_size;
	const struct pda_map *map;
	const unsigned char *image;
	struct pda_elf *e;
	size_t image_size;
	uint64_t off;
	int rc;

	if (addr >= req->sp && addr < end && end - addr >= size) {
		*val = load(req->stack + (addr - req->sp), size,
			    req->arch->big_endian);
		if (size == 8)
			*val = pda_unwind_strip(req, *val);
		return 1;
	}
	/* perf's access_dso_mem: what the file holds there */
	map = pda_maps_lookup(req->maps, addr);
	if (map && (map->kind == PDA_MAP_FILE || map->kind == PDA_MAP_VDSO)) {
		rc = pda_unwind_dso_elf(s, map->dso, &e);
		if (rc < 0)
			return rc;
		image = e ? pda_elf_image(e, &image_size) : NULL;
		off = map->pgoff + (addr - map->start);
		if (image && off < image_size && image_size - off >= size) {
			*val = load(image + off, size, req->arch->big_endian);
			if (size == 8)
				*val = pda_unwind_strip(req, *val);
			return 1;
		}
	}
	*why = addr >= end && addr - end < STACK_REACH
		       ? PDA_UNWIND_STACK_SHORT
		       : PDA_UNWIND_BAD_ADDR;
	return 0;
}

bool pda_unwind_still_mapped(const struct pda_maps *maps, uint64_t anchor,
			     const struct pda_dso_ent *dso, struct pda_elf *elf,
			     uint64_t bias)
{
	const struct pda_map *map = pda_maps_lookup(maps, anchor);
	uint64_t now;

	return map && map->dso == dso &&
	       pda_elf_map_bias(elf, map->start, map->pgoff, &now) == 0 &&
	       now == bias;
}

int pda_unwind_classify(struct pda_session *s, const struct pda_unwind_req *req,
			uint64_t pc, unsigned *why)
{
	const struct pda_map *map = pda_maps_lookup(req->maps, pc);
	struct pda_elf *e;
	int rc;

	if (!map) {
		*why = PDA_UNWIND_NO_MAP;
		return 0;
	}
	if (map->kind != PDA_MAP_FILE && map->kind != PDA_MAP_VDSO) {
		/* JIT code, anonymous memory: nothing describes it */
		*why = PDA_UNWIND_NO_CFI;
		return 0;
	}
	rc = pda_unwind_dso_elf(s, map->dso, &e);
	if (rc < 0)
		return rc;
	if (!e) {
		*why = PDA_UNWIND_NO_BINARY;
		return 0;
	}
	*why = PDA_UNWIND_NR_STOPS; /* the backend looks at the CFI */
	return 0;
}

/* ---- the session's unwinder ----------------------------------------- */

static const struct pda_unwind_backend *const backends[] = {
	&pda_unwind_libdw,
	&pda_unwind_libunwind,
};

/* A process as unwound: one backend state per unwinding thread (slot). */
struct pda_unwind_uproc {
	const struct pda_maps *maps; /* the key: the process's maps */
	const struct pda_unwind_arch *arch;
	struct pda_unwind_proc **bp; /* [nr_bp], NULL: not made */
	uint64_t *seen;		     /* [nr_bp]: the gen of the maps bp[i]
				      * last unwound in, + 1; 0: none
				      * (bp[i]'s thread's own) */
	unsigned nr_bp;
	bool live;		     /* some bp[] is made */
	bool unsupported;	     /* the backend cannot unwind arch */
	uint64_t last_use;
};

struct stopped_ent {
	struct pda_unwind_stopped st; /* (dso, why): the key */
};

struct pda_unwinder {
	const struct pda_unwind_backend *be;
	struct pdc_hash procs;
	size_t nr_live;
	uint64_t use_seq;
	unsigned nr_slots;	 /* unwinding threads: 1 + workers */
	bool hold;		 /* unwinds are under way: no eviction */
	bool env_read;
	const char *arch_name;	 /* HEADER_ARCH, or NULL */
	unsigned e_machine;	 /* E_MACHINE feature, or 0 */
	const struct pda_unwind_arch *last_arch; /* the last sample's */
	uint64_t last_abi;
	bool arch_cached;	 /* last_arch (maybe NULL) is for last_abi */
	uint64_t *ips;
	size_t ips_alloc;
	struct pda_unwind_stats st;
	struct pdc_hash stopped; /* (dso, why) -> counts */
	struct pda_unwind_stopped *stopped_v;
	size_t stopped_alloc;
};

static const char *const stop_names[] = {
#define PDA_UNWIND_STOP_NAME(name, text) text,
	PDA_UNWIND_STOPS(PDA_UNWIND_STOP_NAME)
#undef PDA_UNWIND_STOP_NAME
};

const char *pda_unwind_stop_name(unsigned stop)
{
	return stop < PDA_UNWIND_NR_STOPS ? stop_names[stop] : "?";
}

int pda_unwinder_new(struct pda_session *s, const char *name,
		     struct pda_unwinder **out)
{
	const struct pda_unwind_backend *be = NULL;
	struct pda_unwinder *u;

	*out = NULL;
	if (!name)
		name = backends[0]->name;
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strcmp(backends[i]->name, name) == 0)
			be = backends[i];
	if (!be)
		return pda_set_err(s, PD_ERR_UNSUPPORTED,
				   "unwinder '%s': not built in (libdw and "
				   "libunwind are)",
				   name);
	u = pda_zalloc(s, sizeof(*u));
	if (!u)
		return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
	u->be = be;
	u->nr_slots = 1;
	*out = u;
	return 0;
}

int pda_unwinder_use(struct pda_unwinder *u,
		     const struct pda_unwind_backend *be)
{
	if (u->procs.nr)
		return PD_ERR_API;
	u->be = be;
	return 0;
}

/* Release p's backend states (it stays, to be made again). */
static void release_states(struct pda_session *s, struct pda_unwinder *u,
			   struct pda_unwind_uproc *p)
{
	for (unsigned i = 0; i < p->nr_bp; i++) {
		if (p->bp[i])
			u->be->proc_free(s, p->bp[i]);
		p->bp[i] = NULL;
		p->seen[i] = 0;
	}
	if (p->live)
		u->nr_live--;
	p->live = false;
}

void pda_unwinder_free(struct pda_session *s, struct pda_unwinder *u)
{
	struct pda_unwind_uproc *p;
	size_t pos = 0;

	if (!u)
		return;
	while ((p = pdc_hash_next(&u->procs, &pos))) {
		release_states(s, u, p);
		pda_free(s, p->bp);
		pda_free(s, p->seen);
	}
	pdc_hash_release(pda_session_alloc(s), &u->procs);
	/* the rows the libdw backend's states shared */
	pda_cfi_store_free(s, *pda_session_cfi_store(s));
	*pda_session_cfi_store(s) = NULL;
	pdc_hash_release(pda_session_alloc(s), &u->stopped);
	pda_free(s, u->ips);
	pda_free(s, u->stopped_v);
	pda_free(s, u);
}

static bool proc_eq(const void *item, const void *key)
{
	return ((const struct pda_unwind_uproc *)item)->maps == key;
}

/* The e_machine of a binary the process maps, or 0. */
static int maps_machine(struct pda_session *s, const struct pda_maps *maps,
			unsigned *em)
{
	*em = 0;
	for (size_t i = 0; i < maps->nr && !*em; i++) {
		struct pda_elf *e;
		int rc;

		if (maps->v[i].kind != PDA_MAP_FILE)
			continue;
		rc = pda_unwind_dso_elf(s, maps->v[i].dso, &e);
		if (rc < 0)
			return rc;
		if (e) {
			struct pda_elf_arch ea;

			pda_elf_arch(e, &ea);
			*em = ea.machine;
		}
	}
	return 0;
}

/* The register mask perf samples by default, where no header says more. */
static const char *mask_name(uint64_t mask)
{
	if (mask == 0xff0fff)
		return "x86_64";
	if (mask == (1ull << 33) - 1)
		return "aarch64";
	if (mask == 0xffff)
		return "arm";
	return NULL;
}

static int sample_arch(struct pda_session *s, struct pda_unwinder *u,
		       const struct pd_sample *sample,
		       const struct pda_maps *maps,
		       const struct pda_unwind_arch **out)
{
	const struct pd_regs *r = &sample->regs_user;
	const struct pda_unwind_arch *a;
	unsigned em = 0;
	int rc;

	if (!u->env_read) {
		const struct pd_env *env;

		if (pd_file_env(pda_session_file(s), &env) < 0)
			return PD_ERR_NOMEM;
		u->arch_name = env->arch;
		u->e_machine = env->e_machine;
		u->env_read = true;
	}
	if (u->arch_cached && u->last_abi == r->abi) {
		*out = u->last_arch;
		return 0;
	}
	a = pda_unwind_arch_find(u->arch_name, u->e_machine, r->abi);
	if (!a) {
		/* PDA_UNWIND_AGAIN too: redone where binaries may load */
		rc = maps_machine(s, maps, &em);
		if (rc < 0)
			return rc;
		a = pda_unwind_arch_find(NULL, em, r->abi);
	}
	if (!a)
		a = pda_unwind_arch_find(mask_name(r->mask), 0, r->abi);
	u->last_arch = a;
	u->last_abi = r->abi;
	u->arch_cached = true;
	*out = a;
	return 0;
}

/* Release the least recently used backend states past PROCS_LIVE_MAX. */
static void evict(struct pda_session *s, struct pda_unwinder *u)
{
	struct pda_unwind_uproc *old = NULL, *p;
	size_t pos = 0;

	while ((p = pdc_hash_next(&u->procs, &pos)))
		if (p->live && (!old || p->last_use < old->last_use))
			old = p;
	if (old)
		release_states(s, u, old);
}

void pda_unwind_hold(struct pda_session *s, struct pda_unwinder *u, bool hold)
{
	u->hold = hold;
	while (!hold && u->nr_live > PROCS_LIVE_MAX)
		evict(s, u);
}

int pda_unwind_set_slots(struct pda_session *s, struct pda_unwinder *u,
			 unsigned nr)
{
	(void)s;
	if (nr > u->nr_slots)
		u->nr_slots = nr;
	return 0;
}

/* Backend states for each slot of p.  0 or NOMEM. */
static int make_states(struct pda_session *s, struct pda_unwinder *u,
		       struct pda_unwind_uproc *p)
{
	int rc;

	if (p->nr_bp < u->nr_slots) {
		struct pda_unwind_proc **bp;
		uint64_t *seen;

		bp = pda_realloc(s, p->bp, u->nr_slots * sizeof(*bp));
		if (!bp)
			return PD_ERR_NOMEM;
		p->bp = bp;
		seen = pda_realloc(s, p->seen, u->nr_slots * sizeof(*seen));
		if (!seen)
			return PD_ERR_NOMEM;
		p->seen = seen;
		for (unsigned i = p->nr_bp; i < u->nr_slots; i++) {
			bp[i] = NULL;
			seen[i] = 0;
		}
		p->nr_bp = u->nr_slots;
	}
	if (!p->live) {
		if (u->nr_live >= PROCS_LIVE_MAX && !u->hold)
			evict(s, u);
		p->live = true;
		u->nr_live++;
	}
	for (unsigned i = 0; i < p->nr_bp; i++) {
		if (p->bp[i])
			continue;
		rc = u->be->proc_new(s, p->arch, &p->bp[i]);
		if (rc == PD_ERR_UNSUPPORTED) {
			release_states(s, u, p);
			p->unsupported = true;
			return 0;
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int find_proc(struct pda_session *s, struct pda_unwinder *u,
		     const struct pda_maps *maps,
		     const struct pda_unwind_arch *arch,
		     struct pda_unwind_uproc **out)
{
	uint64_t hash = pdc_hash_u64((uintptr_t)maps);
	struct pda_unwind_uproc *p;

	p = pdc_hash_find(&u->procs, hash, proc_eq, maps);
	if (!p) {
		/* as long as the session: there are few */
		p = pda_arena_alloc(s, sizeof(*p));
		if (!p)
			return PD_ERR_NOMEM;
		memset(p, 0, sizeof(*p));
		p->maps = maps;
		if (pdc_hash_add(pda_session_alloc(s), &u->procs, hash, p) < 0)
			return PD_ERR_NOMEM;
	}
	if (p->arch != arch) {
		/* an exec into another abi: start over, once no unwind of
		 * the old one is under way */
		if (p->live && u->hold)
			return PDA_UNWIND_AGAIN;
		release_states(s, u, p);
		p->arch = arch;
		p->unsupported = false;
	}
	p->last_use = ++u->use_seq;
	*out = p;
	if (p->unsupported || (p->live && p->nr_bp >= u->nr_slots))
		return 0;
	return make_states(s, u, p);
}

static bool stopped_eq(const void *item, const void *key)
{
	const struct pda_unwind_stopped *a = &((const struct stopped_ent *)item)->st;
	const struct pda_unwind_stopped *b = key;

	return a->dso == b->dso && a->why == b->why;
}

static int account(struct pda_session *s, struct pda_unwinder *u,
		   const struct pd_sample *sample, const struct pda_maps *maps,
		   unsigned stop, uint64_t stop_pc, size_t nr_frames)
{
	struct pda_unwind_stats *st = &u->st;
	struct pda_unwind_stopped key = {0};
	const struct pda_map *map;
	struct stopped_ent *e;
	uint64_t hash;

	st->nr_samples++;
	st->period += sample->period;
	st->nr_frames += nr_frames;
	st->by_stop[stop]++;
	st->period_by_stop[stop] += sample->period;
	if (stop == PDA_UNWIND_END || stop == PDA_UNWIND_MAX_FRAMES)
		return 0;
	st->nr_stopped++;
	st->period_stopped += sample->period;
	map = maps && nr_frames ? pda_maps_lookup(maps, stop_pc) : NULL;
	key.dso = map ? map->name : NULL;
	key.why = stop;
	hash = pdc_hash_u64((uintptr_t)key.dso ^ pdc_hash_u64(stop));
	e = pdc_hash_find(&u->stopped, hash, stopped_eq, &key);
	if (!e) {
		if (u->stopped.nr >= STOPPED_MAX)
			return 0; /* counted in by_stop; the table is full */
		e = pda_arena_alloc(s, sizeof(*e));
		if (!e)
			return PD_ERR_NOMEM;
		memset(e, 0, sizeof(*e));
		e->st = key;
		if (pdc_hash_add(pda_session_alloc(s), &u->stopped, hash, e) < 0)
			return PD_ERR_NOMEM;
	}
	e->st.nr_samples++;
	e->st.period += sample->period;
	return 0;
}

size_t pda_unwind_max_frames(const struct pda_session *s)
{
	const unsigned max = pda_session_opts(s)->max_stack;

	return max ? max : PDA_MAX_STACK;
}

int pda_unwind_prep(struct pda_session *s, struct pda_unwinder *u,
		    const struct pd_sample *sample, struct pda_maps *key,
		    const struct pda_maps *maps, uint64_t *ips,
		    struct pda_unwind_job *job)
{
	const struct pda_unwind_arch *arch = NULL;
	struct pda_unwind_req *req = &job->req;
	int rc;

	memset(job, 0, sizeof(*job));
	job->sample = sample;
	job->key = key;
	job->maps = maps ? maps : key;
	maps = job->maps;
	job->res.ips = ips;
	job->res.stop = PDA_UNWIND_NO_ARCH;
	if (!u->st.unwinder)
		u->st.unwinder = u->be->name;
	if (!maps)
		return PD_ERR_NOMEM;
	rc = sample_arch(s, u, sample, maps, &arch);
	if (rc < 0)
		return rc;
	req->arch = arch;
	req->regs = &sample->regs_user;
	req->stack = sample->stack_user.data;
	req->stack_size = sample->stack_user.dyn_size < sample->stack_user.size
				  ? sample->stack_user.dyn_size
				  : sample->stack_user.size;
	req->maps = maps;
	req->pid = sample->pid;
	req->tid = sample->tid;
	req->max_frames = pda_unwind_max_frames(s);
	job->prepped = true;
	if (!arch)
		return 0;
	if (!u->st.arch)
		u->st.arch = arch->name;
	if (!req->stack_size || !req->stack) {
		job->res.stop = PDA_UNWIND_NO_STACK;
		return 0;
	}
	if (!pda_unwind_reg(req->regs, arch->perf_pc, &req->pc) ||
	    !pda_unwind_reg(req->regs, arch->perf_sp, &req->sp)) {
		job->res.stop = PDA_UNWIND_NO_REGS;
		return 0;
	}
	if (!arch->is64) {
		req->pc &= 0xffffffffu;
		req->sp &= 0xffffffffu;
	}
	rc = find_proc(s, u, key, arch, &job->proc);
	if (rc < 0) {
		job->prepped = false;
		return rc;
	}
	return 0;
}

int pda_unwind_run(struct pda_session *s, struct pda_unwinder *u,
		   struct pda_unwind_job *job, unsigned slot)
{
	struct pda_unwind_uproc *p = job->proc;

	job->ran = true;
	job->rc = 0;
	/* none: the backend cannot unwind arch, NO_ARCH */
	job->unwound = p && slot < p->nr_bp && p->bp[slot];
	if (!job->unwound)
		return 0;
	/* here, on bp[slot]'s own thread: the maps it last unwound in may
	 * have changed since (a frozen copy of them, pda_pipe.c) */
	if (p->seen[slot] != job->maps->gen + 1) {
		if (p->seen[slot] && u->be->maps_changed)
			u->be->maps_changed(s, p->bp[slot], job->maps);
		p->seen[slot] = job->maps->gen + 1;
	}
	job->rc = u->be->unwind(s, p->bp[slot], &job->req, &job->res);
	return job->rc;
}

int pda_unwind_finish(struct pda_session *s, struct pda_unwinder *u,
		      struct pda_unwind_job *job, const uint64_t **ips,
		      size_t *nr)
{
	struct pda_unwind_res *res = &job->res;
	int rc;

	*ips = NULL;
	*nr = 0;
	if (!job->prepped) {
		rc = pda_unwind_prep(s, u, job->sample, job->key, job->maps,
				     res->ips,
				     job);
		if (rc < 0)
			return rc;
	}
	if (job->proc && (!job->ran || job->rc == PDA_UNWIND_AGAIN))
		pda_unwind_run(s, u, job, 0);
	if (job->rc < 0)
		return job->rc;
	if (job->unwound) {
		*ips = res->ips;
		*nr = res->nr;
	}
	if (job->unwound && res->stop != PDA_UNWIND_END &&
	    res->stop != PDA_UNWIND_MAX_FRAMES)
		pda_logf(s, PD_LOG_DEBUG,
			 "unwind: tid %u at %#llx: %s after %zu frames at %#llx",
			 (unsigned)job->sample->tid,
			 (unsigned long long)job->req.pc,
			 pda_unwind_stop_name(res->stop), res->nr,
			 (unsigned long long)res->stop_pc);
	return account(s, u, job->sample, job->maps, res->stop, res->stop_pc,
		       *nr);
}

int pda_unwind_sample(struct pda_session *s, struct pda_unwinder *u,
		      const struct pd_sample *sample, struct pda_maps *key,
		      const struct pda_maps *maps, const uint64_t **ips,
		      size_t *nr)
{
	const size_t max = pda_unwind_max_frames(s);
	struct pda_unwind_job job;

	*ips = NULL;
	*nr = 0;
	if (PDA_GROW(s, u->ips, u->ips_alloc, max, max) < 0)
		return PD_ERR_NOMEM;
	memset(&job, 0, sizeof(job));
	job.sample = sample;
	job.key = key;
	job.maps = maps ? maps : key;
	job.res.ips = u->ips;
	return pda_unwind_finish(s, u, &job, ips, nr);
}

static int cmp_stopped(const void *a, const void *b)
{
	const struct pda_unwind_stopped *x = a, *y = b;

	if (x->nr_samples != y->nr_samples)
		return x->nr_samples > y->nr_samples ? -1 : 1;
	if (x->why != y->why)
		return x->why < y->why ? -1 : 1;
	if (!x->dso || !y->dso)
		return !x->dso - !y->dso;
	return strcmp(x->dso, y->dso);
}

void pda_unwind_stats(struct pda_session *s, struct pda_unwinder *u,
		      struct pda_unwind_stats *st)
{
	const struct stopped_ent *e;
	size_t pos = 0, nr = 0;

	if (!u) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = u->st;
	while ((e = pdc_hash_next(&u->stopped, &pos))) {
		if (PDA_GROW(s, u->stopped_v, u->stopped_alloc, nr + 1,
			     STOPPED_MAX) < 0)
			break; /* a shorter list beats none */
		u->stopped_v[nr++] = e->st;
	}
	if (nr)
		qsort(u->stopped_v, nr, sizeof(*u->stopped_v), cmp_stopped);
	st->nr_stopped_dsos = nr;
	st->stopped_dsos = u->stopped_v;
}

/* ---- arm64's link-register leaf caller ------------------------------ */

/*
 * perf 6.1 on arm64 (arm64-frame-pointer-unwind-support.c): a -g sample
 * that also samples the user LR (bit 30, as perf record -g asks for on
 * arm64) gets the leaf's caller from a two-frame unwind of the leaf with
 * no stack dump: the registers unsampled are 0 (sp too), the pc is the
 * callchain's first user entry.  Only where the leaf's CFI still keeps
 * the return address in LR does that unwind reach a second frame; where
 * the leaf saved it to the stack, the read fails and nothing is added.
 * Debian's perf 6.1 unwinds with libunwind, whose aarch64 step takes LR
 * as the return address whenever the CFI step itself fails: no FDE for
 * the pc, or a CFA rule on a register the sample lacks (x29 once the
 * frame record is set up, while the return address is already saved).
 * libdw stops there instead, so that case is decided here: a stop that
 * did not come of a failed memory read takes LR.
 */
int pda_unwind_leaf_caller(struct pda_session *s, struct pda_unwinder *u,
			   const struct pd_sample *sample, struct pda_maps *key,
			   const struct pda_maps *maps, uint64_t pc,
			   uint64_t *caller)
{
	enum { LR = 30, SP = 31, PC = 32 };
	const struct pda_unwind_arch *arch;
	unsigned char raw[3 * 8] = {0};
	struct pd_regs regs = {2, 7ull << LR, {3, raw, 0}};
	struct pda_unwind_req req = {0};
	struct pda_unwind_res res = {0};
	uint64_t ips[2], lr;
	struct pda_unwind_job job;
	struct pda_unwind_uproc *p;
	int rc;

	*caller = 0;
	if (!key || !maps || !pda_unwind_reg(&sample->regs_user, LR, &lr))
		return 0;
	rc = sample_arch(s, u, sample, maps, &arch);
	if (rc < 0 || !arch || arch->e_machine != EM_AARCH64)
		return rc;
	memcpy(raw, &lr, 8);
	memcpy(raw + 2 * 8, &pc, 8);
	req.arch = arch;
	req.regs = &regs;
	req.pc = pc;
	req.maps = maps;
	req.pid = sample->pid;
	req.tid = sample->tid;
	req.max_frames = 2;
	res.ips = ips;
	rc = find_proc(s, u, key, arch, &p);
	if (rc == PDA_UNWIND_AGAIN)
		return 0; /* its state is being replaced: no caller */
	if (rc < 0 || p->unsupported)
		return rc;
	/* on this thread's slot, as an unwind of its own */
	memset(&job, 0, sizeof(job));
	job.sample = sample;
	job.key = key;
	job.maps = maps;
	job.req = req;
	job.res = res;
	job.proc = p;
	job.prepped = true;
	rc = pda_unwind_run(s, u, &job, 0);
	if (rc < 0 || !job.unwound)
		return rc == PDA_UNWIND_AGAIN ? 0 : rc;
	res = job.res;
	if (res.nr == 2)
		*caller = ips[1];
	else if (res.stop != PDA_UNWIND_STACK_SHORT &&
		 res.stop != PDA_UNWIND_BAD_ADDR && lr)
		*caller = lr - 1; /* libunwind's fallback: see above */
	return 0;
}
