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

/* ---- session services (pda_session.c, pda_intern.c) ---------------- */

/* Allocation through the session's hooks (opts.alloc). */
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

/*
 * Grow (*arr) of element size elem so that it holds at least want
 * elements, doubling, capped at max elements (O5).  *alloc holds the
 * capacity.  @return 0 or PD_ERR_NOMEM (the array unchanged).
 */
int pda_grow(struct pda_session *s, void **arr, size_t elem, size_t *alloc,
	     size_t want, size_t max);

/* The same without a session: through a's hooks (NULL: libc). */
int pda_grow_mem(const struct pd_alloc *a, void **arr, size_t elem,
		 size_t *alloc, size_t want, size_t max);

#define PDA_GROW(s, arr, alloc, want, max)                                  \
	pda_grow((s), (void **)&(arr), sizeof(*(arr)), &(alloc), (want), (max))

/*
 * The session's arena (pda_intern.c): size bytes, 16-byte aligned, valid
 * until the session is freed, never freed one by one.  For what lives as
 * long as the session (interned strings, cached resolutions, symbol
 * tables).  NULL only on NOMEM.
 */
void *pda_arena_alloc(struct pda_session *s, size_t size);

/*
 * The hash table (pda_hash.c), the only one in libpda (P3): intrusive
 * chaining, the caller embeds a pda_hash_node in its entry and keeps the
 * entry's memory.
 *
 * Invariants: nr_buckets is 0 or a power of two; every node sits in the
 * chain of bucket (hash & (nr_buckets - 1)); nr counts the nodes.  The
 * table grows (doubling, rehashing from the stored hashes) when nr would
 * exceed nr_buckets, up to PDA_HASH_MAX_BUCKETS; past that, chains just
 * get longer.  Not thread-safe.
 *
 *	struct ent { struct pda_hash_node node; uint64_t key; };
 *	static bool ent_eq(const struct pda_hash_node *n, const void *key)
 *	{
 *		return ((const struct ent *)n)->key == *(const uint64_t *)key;
 *	}
 *	n = pda_hash_find(&h, pda_hash_u64(k), ent_eq, &k);
 *	if (!n) {
 *		e->node.hash = pda_hash_u64(k);
 *		rc = pda_hash_add(s, &h, &e->node);
 *	}
 *	pda_hash_release(s, &h);
 */
struct pda_hash_node {
	struct pda_hash_node *next;
	uint64_t hash;
};

struct pda_hash {
	struct pda_hash_node **buckets;
	size_t nr_buckets;
	size_t nr;
};

#define PDA_HASH_INIT { NULL, 0, 0 }
#define PDA_HASH_MAX_BUCKETS ((size_t)1 << 28)

typedef bool (*pda_hash_eq_fn)(const struct pda_hash_node *node,
			       const void *key);

/* The node with this hash for which eq(node, key) holds, or NULL. */
struct pda_hash_node *pda_hash_find(const struct pda_hash *h, uint64_t hash,
				    pda_hash_eq_fn eq, const void *key);
/* Add node (node->hash set by the caller; duplicates are not checked).
 * @return 0 or PD_ERR_NOMEM (the table unchanged, node not added). */
int pda_hash_add(struct pda_session *s, struct pda_hash *h,
		 struct pda_hash_node *node);
/* Unlink node, which must be in h. */
void pda_hash_remove(struct pda_hash *h, struct pda_hash_node *node);
/*
 * Iterate: start with *pos = 0 and node = NULL; @return the next node or
 * NULL at the end.  The table must not change during the walk.
 */
struct pda_hash_node *pda_hash_next(const struct pda_hash *h, size_t *pos,
				    struct pda_hash_node *node);
/* Free the buckets (not the nodes); h is then empty and reusable. */
void pda_hash_release(struct pda_session *s, struct pda_hash *h);
/* The same without a session: buckets come from a's hooks (NULL: libc). */
int pda_hash_add_mem(const struct pd_alloc *a, struct pda_hash *h,
		     struct pda_hash_node *node);
void pda_hash_release_mem(const struct pd_alloc *a, struct pda_hash *h);

uint64_t pda_hash_bytes(const void *p, size_t len);
uint64_t pda_hash_u64(uint64_t v);

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
