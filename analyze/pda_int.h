/*
 * pda_int.h - libpda's private header: the seams between the machine
 * state and DSO lookup (pda_machine.c, pda_dso.c, pda_kallsyms.c,
 * pda_jit.c, pda_session.c) and the ELF/DWARF side (pda_elf.c,
 * pda_symtab.c, pda_dwarf.c, pda_demangle.c).
 */
#ifndef PDA_INT_H
#define PDA_INT_H

#include "pd_config.h"
#include "pda.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- memory (pda_mem.c) ------------------------------------------- */

/*
 * Allocation through struct pd_alloc hooks (O4), for the parts of libpda
 * that have no session (pda_fold, pda_flame, pda_script) as for the
 * session itself.  a may be NULL, and any of its functions NULL: libc's
 * then.  A size of 0 is taken as 1, so NULL always means out of memory.
 */
void *pda_mem_alloc(const struct pd_alloc *a, size_t size);
void *pda_mem_zalloc(const struct pd_alloc *a, size_t size);
void *pda_mem_realloc(const struct pd_alloc *a, void *p, size_t size);
void pda_mem_free(const struct pd_alloc *a, void *p); /* accepts NULL */

/*
 * Grow (*arr) of element size elem so that it holds at least want
 * elements, doubling from 16, capped at max elements (O5).  *alloc holds
 * the capacity.  @return 0 or PD_ERR_NOMEM (the array unchanged).
 * Inline for the parsers' per-line and per-frame calls, which seldom
 * need to grow; pda_mem_regrow() is the growing.
 */
int pda_mem_regrow(const struct pd_alloc *a, void **arr, size_t elem,
		   size_t *alloc, size_t want, size_t max);

static inline int pda_mem_grow(const struct pd_alloc *a, void **arr,
			       size_t elem, size_t *alloc, size_t want,
			       size_t max)
{
	if (want <= *alloc)
		return 0;
	return pda_mem_regrow(a, arr, elem, alloc, want, max);
}

#define PDA_MEM_GROW(a, arr, alloc, want, max)                               \
	pda_mem_grow((a), (void **)&(arr), sizeof(*(arr)), &(alloc), (want), \
		     (max))

/*
 * R2 for the constructors: copy a caller's options struct (its size_t sz
 * first) into ours, ours_size bytes, zero-filling what an older caller's
 * smaller struct lacks.  @return 0, or PD_ERR_API when sz cannot hold sz
 * itself or a byte past ours is set (an option of a newer version).
 */
int pda_opts_copy(void *ours, size_t ours_size, const void *opts);

/* A hex digit's value, or -1. */
static inline int pda_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* ---- session services (pda_session.c, pda_intern.c) ---------------- */

/* The session's allocation hooks (opts.alloc), for pda_mem_* and the
 * hash table; never NULL, valid as long as the session. */
const struct pd_alloc *pda_session_alloc(const struct pda_session *s);

/* Allocation through the session's hooks: pda_mem_* on them. */
void *pda_malloc(struct pda_session *s, size_t size);
void *pda_zalloc(struct pda_session *s, size_t size);
void *pda_realloc(struct pda_session *s, void *p, size_t size);
void pda_free(struct pda_session *s, void *p);

/* Log through opts.log. */
void pda_logf(struct pda_session *s, enum pd_log_level level,
	      const char *fmt, ...) PD_PRINTF(3, 4);

/* Set the session's error message and return err. */
int pda_set_err(struct pda_session *s, int err, const char *fmt, ...)
	PD_PRINTF(3, 4);

/*
 * The session's string intern table: the same bytes give the same
 * pointer, valid until the session is freed.  NULL only on NOMEM.
 */
const char *pda_intern(struct pda_session *s, const char *str, size_t len);

/* The session's options (never NULL). */
const struct pda_opts *pda_session_opts(const struct pda_session *s);

/* pda_mem_grow() on the session's hooks. */
int pda_grow(struct pda_session *s, void **arr, size_t elem, size_t *alloc,
	     size_t want, size_t max);

#define PDA_GROW(s, arr, alloc, want, max)                                  \
	pda_grow((s), (void **)&(arr), sizeof(*(arr)), &(alloc), (want), (max))

/*
 * The session's arena (pda_intern.c): size bytes, 16-byte aligned, valid
 * until the session is freed, never freed one by one.  For what lives as
 * long as the session (interned strings, cached resolutions, symbol
 * tables).  NULL only on NOMEM.
 */
void *pda_arena_alloc(struct pda_session *s, size_t size);

/* ---- the hash table (pda_hash.c) ----------------------------------- */

/*
 * The hash table, the only one in libpda (P3): open addressing with
 * linear probing over slots of a full 64-bit hash and an item pointer.
 * The caller keeps the items' memory; the table holds pointers to them.
 *
 * Invariants: the slots number 0 or a power of two (mask + 1), at least
 * PDA_HASH_MIN_SLOTS; an empty slot has item NULL; an item sits in the
 * run of full slots that starts at its hash & mask; nr counts the items.
 * The table doubles (rehashing from the stored hashes) before an
 * insertion would fill more than 3/4 of it, so every probe ends at an
 * empty slot; past PDA_HASH_MAX_SLOTS an insertion fails with
 * PD_ERR_NOMEM (O5).  Items are never removed.  Not thread-safe.
 *
 * The lookups are inline so that the compiler inlines eq as well: the
 * per-sample paths of pda_fold and the session look up every frame.
 *
 *	struct ent { uint64_t key; ... };
 *	static bool ent_eq(const void *item, const void *key)
 *	{
 *		return ((const struct ent *)item)->key ==
 *		       *(const uint64_t *)key;
 *	}
 *	e = pda_hash_find(&h, pda_hash_u64(k), ent_eq, &k);
 *	if (!e) {
 *		e = new entry for k;
 *		rc = pda_hash_add(alloc, &h, pda_hash_u64(k), e);
 *	}
 *	pda_hash_release(alloc, &h);
 *
 * Find-or-add with one probe (nothing may change h in between):
 *
 *	if (pda_hash_reserve(alloc, &h) < 0) fail;
 *	slot = pda_hash_probe(&h, hash, ent_eq, &k);
 *	if (!slot->item)
 *		pda_hash_fill(&h, slot, hash, new entry for k);
 */
struct pda_hash_slot {
	uint64_t hash;
	void *item; /* NULL: empty */
};

struct pda_hash {
	struct pda_hash_slot *slots;
	size_t mask; /* nr slots - 1; 0 while slots is NULL */
	size_t nr;
};

#define PDA_HASH_INIT { NULL, 0, 0 }
#define PDA_HASH_MIN_SLOTS ((size_t)64)
#define PDA_HASH_MAX_SLOTS ((size_t)1 << 30)

typedef bool (*pda_hash_eq_fn)(const void *item, const void *key);

/* Double the slots (or make the first ones).
 * @return 0 or PD_ERR_NOMEM (h unchanged). */
int pda_hash_grow(const struct pd_alloc *a, struct pda_hash *h);

/* Room for one more item.  @return 0 or PD_ERR_NOMEM (h unchanged). */
static inline int pda_hash_reserve(const struct pd_alloc *a,
				   struct pda_hash *h)
{
	if (h->slots && (h->nr + 1) * 4 <= (h->mask + 1) * 3)
		return 0;
	return pda_hash_grow(a, h);
}

/*
 * The slot holding the item for which eq(item, key) holds, else the
 * empty slot where it goes (pda_hash_fill() puts it there).  Needs slots:
 * a pda_hash_reserve() since the table was last released.  The slot is
 * valid until h next changes.
 */
static inline struct pda_hash_slot *pda_hash_probe(const struct pda_hash *h,
						   uint64_t hash,
						   pda_hash_eq_fn eq,
						   const void *key)
{
	for (size_t i = hash & h->mask;; i = (i + 1) & h->mask) {
		struct pda_hash_slot *slot = &h->slots[i];

		if (!slot->item || (slot->hash == hash && eq(slot->item, key)))
			return slot;
	}
}

/* Put item (not NULL) into the empty slot pda_hash_probe() gave. */
static inline void pda_hash_fill(struct pda_hash *h, struct pda_hash_slot *slot,
				 uint64_t hash, void *item)
{
	slot->hash = hash;
	slot->item = item;
	h->nr++;
}

/* The item for which eq(item, key) holds, or NULL. */
static inline void *pda_hash_find(const struct pda_hash *h, uint64_t hash,
				  pda_hash_eq_fn eq, const void *key)
{
	if (!h->slots)
		return NULL;
	return pda_hash_probe(h, hash, eq, key)->item;
}

/* Add item (not NULL; duplicates are not checked).
 * @return 0 or PD_ERR_NOMEM (h unchanged, item not added). */
int pda_hash_add(const struct pd_alloc *a, struct pda_hash *h, uint64_t hash,
		 void *item);
/*
 * Iterate: start with *pos = 0; @return the next item, NULL at the end.
 * The order is the slots'; h must not change during the walk.
 */
void *pda_hash_next(const struct pda_hash *h, size_t *pos);
/* Free the slots (not the items); h is then empty and reusable. */
void pda_hash_release(const struct pd_alloc *a, struct pda_hash *h);

/* A hash of len bytes (not cryptographic: a hostile capture can at worst
 * make probes long). */
uint64_t pda_hash_bytes(const void *p, size_t len);

/* splitmix64's finalizer: every input bit reaches every output bit. */
static inline uint64_t pda_hash_u64(uint64_t v)
{
	v ^= v >> 30;
	v *= 0xbf58476d1ce4e5b9ull;
	v ^= v >> 27;
	v *= 0x94d049bb133111ebull;
	v ^= v >> 31;
	return v;
}

/* ---- DSOs (pda_dso.c) ---------------------------------------------- */

struct pda_elf;

enum pda_dso_state {
	PDA_DSO_UNTRIED = 0, /* not looked up yet */
	PDA_DSO_FOUND,	     /* elf is open */
	PDA_DSO_MISSING,     /* looked up, nothing usable; why says */
};

#define PDA_BUILD_ID_MAX 32

/* One binary (or the kernel) as the capture names it. */
struct pda_dso {
	const char *name;	/* interned recorded path */
	unsigned char build_id[PDA_BUILD_ID_MAX];
	unsigned build_id_size;	/* 0: unknown */
	bool kernel;		/* [kernel.kallsyms], kernel modules */
	enum pda_dso_state state;
	struct pda_elf *elf;	/* the binary, for addresses and .symtab */
	struct pda_elf *debug;	/* separate debug info, or NULL */
	const char *why;	/* when MISSING */
	const char **tried;	/* paths looked at, NULL-terminated */
	uint64_t nr_samples;	/* samples with a frame in it */
};

/* ---- ELF and DWARF (pda_elf.c, pda_symtab.c, pda_dwarf.c) ---------- */

/*
 * Open an ELF file of any class, byte order and machine, and read its
 * program headers, build-id and .gnu_debuglink; symbols and DWARF load
 * lazily on first use, once.  The file stays mapped; no descriptor stays
 * open.  @return 0, PD_ERR_NOTFOUND (no such file), PD_ERR_FORMAT (not an
 * ELF executable, shared object or relocatable object), PD_ERR_IO or
 * PD_ERR_NOMEM.
 */
int pda_elf_open(struct pda_session *s, const char *path,
		 struct pda_elf **out);
/* pda_elf_open for an ELF image in memory that outlives the handle (this
 * process's vdso); name is what messages call it. */
int pda_elf_open_image(struct pda_session *s, const char *name,
		       const void *image, size_t size, struct pda_elf **out);
/* Accepts NULL.  Leaves the debug file of pda_elf_set_debug open. */
void pda_elf_close(struct pda_session *s, struct pda_elf *e);

/*
 * Use debug, a separate debug file of e (found by build-id or
 * .gnu_debuglink), as perf does: its .symtab, when it has one, replaces
 * e's symbol tables, and its DWARF serves when e has none; PLT entries
 * still come from e.  Call before the first lookup in e; debug must stay
 * open as long as e.
 */
void pda_elf_set_debug(struct pda_elf *e, struct pda_elf *debug);

/* The file's bytes as mapped: valid while e is open.  NULL if libelf
 * holds none (then *size = 0). */
const unsigned char *pda_elf_image(const struct pda_elf *e, size_t *size);

/*
 * Where the section called name is: its address (sh_addr) and its bytes,
 * [off, off + size) of pda_elf_image's.  @return 0, or PD_ERR_NOTFOUND
 * (no such section, SHT_NOBITS, or its bytes are not all in the file).
 */
int pda_elf_section_at(const struct pda_elf *e, const char *name,
		       uint64_t *vaddr, uint64_t *off, uint64_t *size);

/*
 * The span of the file's loaded segments as libdwfl reckons a module:
 * from the first PT_LOAD's p_vaddr rounded down to its p_align, to the
 * highest p_vaddr + p_memsz.  @return 0, or PD_ERR_NOTFOUND (no PT_LOAD,
 * or a relocatable object).
 */
int pda_elf_load_span(const struct pda_elf *e, uint64_t *lo, uint64_t *hi);

/*
 * The load bias (address - ELF vaddr) of a map of e at start with file
 * offset pgoff: 0 for an executable; else that of the PT_LOAD segment the
 * map begins (the loader maps a segment from its offset rounded down to a
 * page, so pgoff is at most 64 KiB below the segment's offset).  @return 0
 * or PD_ERR_NOTFOUND.
 */
int pda_elf_map_bias(const struct pda_elf *e, uint64_t start, uint64_t pgoff,
		     uint64_t *bias);

/* The file's GNU build-id, or size 0. */
void pda_elf_build_id(const struct pda_elf *e, const unsigned char **id,
		      unsigned *size);

/* .gnu_debuglink's file name and CRC, or NULL. */
const char *pda_elf_debuglink(const struct pda_elf *e, uint32_t *crc);

/*
 * A file offset (a map's pgoff + (ip - start)) to the ELF's virtual
 * address, through the PT_LOAD segment whose file bytes hold it.  A
 * relocatable object (a kernel module) has no segments: its addresses
 * are file offsets, vaddr = off.  @return 0 or PD_ERR_NOTFOUND.
 */
int pda_elf_offset_to_vaddr(const struct pda_elf *e, uint64_t off,
			    uint64_t *vaddr);

/*
 * The symbol covering vaddr, chosen as perf 6.1 chooses it so that names
 * match `perf script` (the rules are in pda_symtab.c): the functions,
 * objects and labels of .symtab (a debug file's first) and .dynsym, or
 * of MiniDebugInfo (.gnu_debugdata) and .dynsym when there is no .symtab;
 * a zero-size symbol reaches to the next one; of symbols at one address,
 * one is kept; a relocatable object's .text symbols.  PLT entries are
 * "func@plt" by perf's current rules (.plt, .plt.sec, .plt.got; ".plt"
 * for the lazy-binding header).  name is interned and mangled (the caller
 * demangles; perf leaves kernel modules' names as they are); start is the
 * symbol's vaddr, size its extent after those rules.  @return 0,
 * PD_ERR_NOTFOUND or PD_ERR_NOMEM.
 */
int pda_elf_symbol(struct pda_session *s, struct pda_elf *e, uint64_t vaddr,
		   const char **name, uint64_t *start, uint64_t *size);

/* One function of the inline chain at an address. */
struct pda_inline {
	const char *func;	/* interned: DWARF's linkage name (mangled),
				 * else its name; never NULL */
	const char *file;	/* interned, as DWARF names it; NULL unknown */
	unsigned line;		/* 0 unknown */
};

/*
 * The inline chain at vaddr from DWARF, as `addr2line -f -i` reports it
 * and perf 6.1 shows it in DWARF-unwound callchains: out[0] is the
 * innermost function (an inlined one when vaddr is in inlined code), each
 * next entry the function the one before was inlined into, and the last
 * the out-of-line function (DW_TAG_subprogram) holding them.  Each
 * entry's file:line is where the code at vaddr is in that function: the
 * line table's row for out[0], the call site of the entry before for the
 * others.  *nr = 1 when vaddr is in no inlined code, 0 when DWARF does not
 * describe vaddr; at most max entries, the innermost.  @return 0 or
 * PD_ERR_NOMEM.
 */
int pda_elf_inlines(struct pda_session *s, struct pda_elf *e, uint64_t vaddr,
		    struct pda_inline *out, size_t max, size_t *nr);

/*
 * The ELF symbol binutils' addr2line names vaddr after where DWARF does
 * not (pda_a2lsym.c): interned in *name, its start in *start.  @return 0,
 * PD_ERR_NOTFOUND or PD_ERR_NOMEM.
 */
int pda_elf_symbol_a2l(struct pda_session *s, struct pda_elf *e,
		       uint64_t vaddr, const char **name, uint64_t *start);

/*
 * The same, named as perf 6.1's addr2line (binutils, one long-lived
 * process per binary) names them: a function without a linkage name is
 * named after the ELF symbol at vaddr the first time it is the innermost,
 * and keeps the symbol's name from then on when the symbol starts where
 * it does.  So the names depend on the order of the lookups, as perf's
 * do: the session asks in perf's order (samples in time order, frames
 * leaf first, each address once).  @return 0 or PD_ERR_NOMEM.
 */
int pda_elf_inlines_a2l(struct pda_session *s, struct pda_elf *e,
			uint64_t vaddr, struct pda_inline *out, size_t max,
			size_t *nr);

/*
 * The source file (as DWARF names it, usually absolute) and line of vaddr
 * from the line table.  @return 0, PD_ERR_NOTFOUND or PD_ERR_NOMEM.
 */
int pda_elf_srcline(struct pda_session *s, struct pda_elf *e, uint64_t vaddr,
		    const char **file, unsigned *line);

/* The file's e_machine, class and byte order. */
struct pda_elf_arch {
	uint16_t machine;	/* EM_X86_64, EM_AARCH64, ... */
	bool is64;		/* ELFCLASS64 */
	bool big_endian;	/* ELFDATA2MSB */
};

void pda_elf_arch(const struct pda_elf *e, struct pda_elf_arch *out);
/* The path e was opened from (interned). */
const char *pda_elf_path(const struct pda_elf *e);

/*
 * The code bytes at [vaddr, vaddr + size) from the section that holds
 * them (SHT_PROGBITS and SHF_EXECINSTR or SHF_ALLOC): *bytes points into
 * the mapped file, valid while e is open; *len may be less than size
 * when the section ends first.  @return 0, or PD_ERR_NOTFOUND when no
 * section of e has file bytes there (a separate debug file keeps the
 * headers but not the code: SHT_NOBITS).
 */
int pda_elf_code(struct pda_elf *e, uint64_t vaddr, uint64_t size,
		 const unsigned char **bytes, size_t *len);

/*
 * Whether the ARM code at vaddr is Thumb: by the mapping symbols ($t,
 * $a) of .symtab (e's or its debug file's), else by bit 0 of the
 * function symbol covering it.  false for other machines.
 */
bool pda_elf_arm_thumb(const struct pda_elf *e, uint64_t vaddr);

/*
 * pda_sample_stack() for the sample's own address only (its ip, in the
 * space perf's thread__find_map_fb picks): the frames of that address,
 * inlined ones first, the out-of-line function last, and *dso the DSO of
 * its map (NULL: none, anonymous memory or a KSYMBOL).  @return 0 or a
 * negative pd_err.
 */
int pda_sample_leaf(struct pda_session *s, const struct pd_sample *sample,
		    struct pda_stack *st, struct pda_dso **dso);

/* ---- names (pda_demangle.c) ---------------------------------------- */

/*
 * A symbol name demangled as perf 6.1 demangles it by default: C++ and
 * Rust (legacy, without its hash, and v0) by libiberty without parameter
 * lists ("ns::f", not "ns::f(int)"), OCaml ("camlA__b" as "A.b"); plus D
 * ("_D..."), which perf leaves as it is.  A "@plt" suffix is kept.  Other
 * names come back as they are.  Interned; NULL only on NOMEM.
 */
const char *pda_demangle(struct pda_session *s, const char *name);

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

#endif /* PDA_INT_H */
