/*
 * pda_symbols_int.h - the ELF/DWARF module's interface to the rest of
 * libpda: opening binaries, their symbols, inlined frames, source lines,
 * code bytes, and demangling.  It knows nothing of processes or maps.
 */
#ifndef PDA_SYMBOLS_INT_H
#define PDA_SYMBOLS_INT_H

#include "pda_base_int.h"

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
	uint64_t nr_unresolved;	/* samples with an unresolved frame in it */
};

/* ---- ELF and DWARF (pda_elf.c, pda_symtab.c, pda_dwarf.c) ---------- */

/*
 * Open an ELF file of any class, byte order and machine, and read its
 * program headers, build-id and .gnu_debuglink; symbols and DWARF load
 * lazily on first use, once.  The file stays mapped; no descriptor stays
 * open.  Only a regular file is read (a FIFO or a device named by a
 * capture is refused without blocking).  @return 0, PD_ERR_NOTFOUND (no
 * such file), PD_ERR_FORMAT (not an ELF executable, shared object or
 * relocatable object; not a regular file), PD_ERR_IO or PD_ERR_NOMEM.
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
 * A new libelf handle on e's bytes, for a library that takes and ends it
 * (libdwfl's find_elf): over pda_elf_image's, or, where a section is
 * compressed, over the file opened again (libelf would write into the
 * read-only image).  NULL when there is none.
 */
struct Elf *pda_elf_begin_copy(const struct pda_elf *e);

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

/* Whether e (or its debug file) names functions beyond its dynamic
 * symbols: a .symtab, or MiniDebugInfo (.gnu_debugdata). */
bool pda_elf_has_symtab(const struct pda_elf *e);
/* Whether e (or its debug file) has an ELF symbol table, .symtab or
 * .dynsym: perf 6.1 loads none from a file without, and keeps that DSO's
 * addresses as file offsets (dso->adjust_symbols stays false). */
bool pda_elf_has_symbols(const struct pda_elf *e);
/* Whether e has a .debug_frame: read at open, so any thread may ask. */
bool pda_elf_has_debug_frame(const struct pda_elf *e);

/* .gnu_debuglink's file name and CRC, or NULL. */
const char *pda_elf_debuglink(const struct pda_elf *e, uint32_t *crc);

/*
 * .gnu_debugaltlink (dwz): the name of the file holding the strings and
 * units e's DWARF shares with others (interned) and that file's build-id
 * in *id (valid while e is open); NULL when e has none, or a malformed
 * one.
 */
const char *pda_elf_altlink(const struct pda_elf *e, const unsigned char **id,
			    unsigned *size);

/*
 * Use alt, e's .gnu_debugaltlink file, found and checked by the caller
 * (its build-id), or NULL: none.  Either way e's DWARF then reads no
 * other file: libdw would otherwise open the path the section names,
 * wherever it points (issue 11).  Call before the first DWARF lookup in
 * e; alt must stay open as long as e.
 */
void pda_elf_set_alt(struct pda_elf *e, struct pda_elf *alt);

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
/* The same, and whether the symbol is a data object's (STT_OBJECT). */
int pda_elf_symbol_typed(struct pda_session *s, struct pda_elf *e,
			 uint64_t vaddr, const char **name, uint64_t *start,
			 uint64_t *size, bool *object);

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
 * Whether e's lookups (pda_elf_symbol_typed, pda_elf_inlines_a2l,
 * pda_elf_symbol_a2l, pda_elf_srcline, pda_elf_file_a2l) give the same
 * answers in any order and on two threads at once: what they load on
 * first need is loaded (its warnings said), and e has no DWARF, whose
 * function records addr2line names after the first address asked
 * (pda_dwarf.c a2l_name) and whose units are indexed as met.  On the
 * thread that loads e.
 */
bool pda_elf_lookups_pure(const struct pda_elf *e);

/*
 * The source file binutils' addr2line gives vaddr where DWARF has no
 * line for it (bfd's elf_find_function): the STT_FILE symbol before the
 * symbol pda_elf_symbol_a2l() picks, interned in *file, with line 0;
 * *file NULL when that symbol has none (addr2line prints "??:?").
 * @return 0, PD_ERR_NOTFOUND (no symbol: addr2line prints "??:0") or
 * PD_ERR_NOMEM.
 */
int pda_elf_file_a2l(struct pda_session *s, struct pda_elf *e,
		     uint64_t vaddr, const char **file);

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

/* ---- GOT slots (pda_got.c) ----------------------------------------- */

/*
 * What the GOT slot (or ppc64 TOC word) at vaddr slot of e holds once
 * the dynamic linker has filled it: the address of a variable e defines
 * (*addr; *name NULL), or the name of one another binary defines (*name,
 * interned; *addr 0), from the dynamic relocation of the slot, else from
 * the word the static linker left in .got.  Functions' slots are not
 * variables.  @return 0, PD_ERR_NOTFOUND (no such slot), PD_ERR_NOMEM.
 */
int pda_elf_got_slot(struct pda_session *s, struct pda_elf *e, uint64_t slot,
		     uint64_t *addr, const char **name);

/* ---- data types at memory accesses (pda_dwtype.c) ------------------ */

/* Pointers followed through pointers, beyond the first load. */
#define PDA_DT_MAX_PATH 3

/*
 * A memory access as the data-type lookup takes it: the instruction's
 * address and what it addresses, a base register plus a displacement
 * (the index, if any, left out: it selects an element, not the type), or
 * an absolute address (PC-relative, or a register known to hold one).
 */
struct pda_dt_access {
	uint64_t pc;	/* the instruction's vaddr in e */
	int reg;	/* the base's DWARF register number; -1: addr */
	int64_t disp;	/* from the base register */
	uint64_t addr;	/* reg < 0: the vaddr accessed (with gname: the
			 * offset in that variable) */
	const char *gname; /* reg < 0: the access is in the variable of
			    * this name, which another binary defines
			    * (a GOT slot's symbol): its declaration in
			    * pc's unit says its type; or NULL */
	bool elem;	/* disp includes pointer arithmetic: a pointer's
			 * target is an array element, disp taken modulo
			 * its size */
	bool deref;	/* the base holds a pointer loaded at pc from the
			 * variable's memory at reg + slot (reg < 0: at
			 * addr): the access is at disp in the pointer's
			 * target (a spill's reload, an -O0 variable) */
	int64_t slot;
	uint64_t callee;	/* nonzero: the base holds what the function
				 * at this vaddr returned (reg is -1): the
				 * access is at disp in the target of its
				 * return type (a call's result) */
	/* Pointers loaded after that one (or after the callee's result),
	 * each from path[k] in the previous pointer's target (bit k of
	 * path_elems: path[k] includes an index register, taken modulo
	 * the target's size): p->q->r->val.  The access is at disp in
	 * the last one's target. */
	unsigned nr_path;
	int64_t path[PDA_DT_MAX_PATH];
	uint32_t path_elems;
};

/* Why an access has no type: the coverage line's reasons. */
enum pda_dt_why {
	PDA_DT_FOUND = 0,
	PDA_DT_NO_DWARF,	/* the binary has no DWARF for pc */
	PDA_DT_NO_VAR,		/* no variable at pc lives in the base */
	PDA_DT_NO_POINTER,	/* the register's variable is no pointer */
	PDA_DT_BAD_OFFSET,	/* the offset is outside the type */
	PDA_DT_NO_GLOBAL,	/* no global or static holds the address */
};

/* An access's type: names interned, valid for the session. */
struct pda_dt_type {
	const char *type;	/* "struct foo", "int", "char*" */
	const char *member;	/* "bar.baz", "arr[3].x"; NULL: no field */
	const char *var;	/* the variable it was found through */
	int64_t offset;		/* from the start of the type */
	uint64_t size;		/* the type's */
	uint64_t die;		/* the type's DIE offset in e's DWARF, for
				 * pda_elf_type_layout(); 0: not there (a
				 * dwz alt file's) */
	uint64_t gaddr;		/* a global's address: the access is inside
				 * var itself, the global at gaddr (0: a
				 * local, or a pointer's target, or one
				 * known by name) */
	bool global;		/* the access is inside var itself, a
				 * global or static: at gaddr, or one
				 * named (another binary's, or a symbol's
				 * that DWARF places nowhere) */
};

/*
 * One row of a type's layout, as perf's annotated_member tree holds it
 * (annotate-data.c's add_member_types()): the type itself, then its
 * members in order, a struct or union member's own members after it.
 */
struct pda_dt_member {
	int64_t offset;		/* from the start of the outermost type */
	uint64_t size;		/* 0: unknown */
	unsigned depth;		/* 0: the type itself */
	size_t end;		/* the index past its members' rows */
	const char *type;	/* interned: "struct foo", "int" */
	const char *name;	/* interned member name; NULL: none */
};

/*
 * The type and member acc touches, from e's DWARF as perf >= 6.8 finds
 * it: the variables and parameters of the scopes at pc (inlined calls
 * and lexical blocks included) whose location at pc is the base register
 * (DW_OP_regN: a pointer, its target's type; DW_OP_bregN: a variable at
 * that register plus an offset) or a frame-base offset (DW_OP_fbreg,
 * with a frame base of DW_OP_bregN or DW_OP_call_frame_cfa through the
 * CFI at pc) covering the access; for an address, the global or static
 * variable (DW_OP_addr) holding it.  @return 0 with *why PDA_DT_FOUND
 * and *out, or with *why saying why not; PD_ERR_NOMEM.
 */
int pda_elf_data_type(struct pda_session *s, struct pda_elf *e,
		      const struct pda_dt_access *acc, struct pda_dt_type *out,
		      enum pda_dt_why *why);

/*
 * The layout of the type at DIE offset die of e's DWARF (a
 * pda_dt_type's), in pre-order, into *out (pda_malloc()ed: the caller
 * pda_free()s it) and *nr; members of members nested as perf nests them
 * (structs and unions only, not array elements).  @return 0,
 * PD_ERR_NOTFOUND (no such type), PD_ERR_NOMEM.
 */
int pda_elf_type_layout(struct pda_session *s, struct pda_elf *e, uint64_t die,
			struct pda_dt_member **out, size_t *nr);

/* ---- names (pda_demangle.c) ---------------------------------------- */

/*
 * A symbol name demangled as perf 6.1 demangles it by default: C++ and
 * Rust (legacy, without its hash, and v0) by libiberty without parameter
 * lists ("ns::f", not "ns::f(int)"), OCaml ("camlA__b" as "A.b"); plus D
 * ("_D..."), which perf leaves as it is.  A "@plt" suffix is kept.  Other
 * names come back as they are.  Interned; NULL only on NOMEM.
 */
const char *pda_demangle(struct pda_session *s, const char *name);

/* ---- DWARF loaded ahead (pda_dwahead.c) ---------------------------- */

/*
 * A queue of addresses whose DWARF the session's thread will look up
 * later (a two-pass run's replay): another thread loads it meanwhile
 * (inflated sections, aranges, the units' indexes and line tables,
 * addr2line's symbol table, the binary's own symbol table with its
 * demangled names), so that the lookups find it loaded.  The
 * answers are the same either way.  Between the first add and the close,
 * the session's thread must use none of a queued binary's symbols or
 * DWARF (pda_dwahead.c says why that holds).
 */
struct pda_dwahead;

/* An open queue.  0 or NOMEM. */
int pda_dwahead_new(struct pda_session *s, struct pda_dwahead **out);
/* Accepts NULL; no thread may be in pda_dwahead_run(). */
void pda_dwahead_free(struct pda_session *s, struct pda_dwahead *a);
/* Queue vaddr of e (session's thread).  Dropped when closed, full or out
 * of memory: its lookup then loads it. */
void pda_dwahead_add(struct pda_session *s, struct pda_dwahead *a,
		     struct pda_elf *e, uint64_t vaddr);
/* Load what a few queued addresses need (any thread; one at a time):
 * false when there was nothing to do. */
bool pda_dwahead_run(struct pda_session *s, struct pda_dwahead *a);
/* No more loading (session's thread): waits for a pda_dwahead_run()
 * under way and drops the rest; the binaries are the session thread's
 * again. */
void pda_dwahead_close(struct pda_session *s, struct pda_dwahead *a);
/* Open a closed queue again (session's thread, no other running). */
void pda_dwahead_open(struct pda_dwahead *a);

#endif /* PDA_SYMBOLS_INT_H */
