/*
 * pda_symtab.c - an ELF file's symbols, resolved the way perf 6.1 resolves
 * them, so that pdtool's frame names are `perf script`'s.
 *
 * perf keeps a DSO's symbols in a red-black tree keyed by start address
 * (util/symbol.c, util/symbol-elf.c) and these rules decide what a sample
 * address is named:
 *
 *  - Candidates: STT_FUNC and STT_GNU_IFUNC symbols, STT_OBJECT symbols,
 *    and STT_NOTYPE "labels" (not hidden or internal) in sections whose
 *    name contains "text" or "data"; named, defined, not SHN_ABS, in an
 *    SHF_ALLOC section.  ARM mapping symbols ($a, $d, $t, $x) are skipped
 *    and a Thumb function's low address bit cleared.
 *  - Sources, in passes: the .symtab of the symbol file (a separate debug
 *    file's when it has one), then the .dynsym of that same file.  After
 *    each pass, symbols__fixup_end gives every zero-size symbol the start
 *    of the next one as its end (the last: its page's end plus 4 KiB),
 *    then symbols__fixup_duplicate keeps one of the symbols sharing a
 *    start: the sized one, else the non-weak, else the global, else the
 *    one with fewer leading underscores, else the longer name (names as
 *    perf holds them: demangled), else the first inserted.
 *  - Then the PLT entries are added (dso__synthesize_plt_symbols).
 *  - Lookup walks the tree from the root: left while the address is below
 *    a node's start, right while it is at or past its end (a zero-size
 *    node matches its start only), else that node.  Where extents
 *    overlap, the answer is the first node on that path that covers the
 *    address, so it depends on the tree's shape.  Overlaps are rare, but
 *    one is in nearly every x86-64 binary: the zero-size _init reaches
 *    over .plt to the first .text symbol.
 *
 * To give the same answers everywhere this file replays perf's insertions
 * and deletions on a red-black tree that rebalances exactly as the
 * kernel's lib/rbtree.c does (the same cases, colours and rotations), and
 * searches it as perf does.  Keys are file offsets, as perf's are (it
 * moves every symbol by its PT_LOAD's p_vaddr - p_offset), and lookups
 * convert a vaddr the same way.
 *
 * Where perf 6.1 is wrong and later perf fixed it, pdtool follows the fix:
 *
 *  - PLT: perf 6.1 names entries from .rela.plt in file order with
 *    guessed sizes, so on x86-64 IFUNC relocations shift the names, i686
 *    and .plt.sec (IBT) binaries get wrong ones, .plt.got gets none, and
 *    _init usually wins the overlap above.  pdtool names the PLT as perf
 *    6.3 and later do (relocations sorted by GOT slot, .plt.sec and
 *    .plt.got entries, ".plt" for the lazy-binding header, an IRELATIVE
 *    entry by its resolver, "offset_0x...@plt" when nameless) in a table
 *    consulted before the tree for addresses in those sections.  perf
 *    6.1's own PLT symbols still go into the tree, so its shape, and every
 *    other answer, stays perf 6.1's.
 *  - MiniDebugInfo (.gnu_debugdata, an xz-compressed ELF whose .symtab
 *    holds the functions .dynsym lacks): when the file has no .symtab,
 *    its symbols and .dynsym's, together, make the .symtab pass, as the
 *    unstripped file's .symtab would.  perf 6.1 ignores it.
 *
 * A relocatable object (a kernel module) contributes its .text symbols,
 * keyed by file offset (st_value + the section's sh_offset), as perf's
 * main map of a module holds them.
 */
#include "pda_symtab_int.h"

#include <lzma.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The largest decompressed .gnu_debugdata we take (O5). */
#define MAX_MINIDEBUG ((size_t)512 << 20)

/* ---- building ---------------------------------------------------------- */

int pda_symtab_add(struct pda_session *s, struct pda_symtab *t,
		   const struct pda_sym *sym, uint32_t *idx)
{
	if (t->nr == t->alloc) {
		size_t want = t->alloc ? t->alloc * 2 : 256;
		struct pda_sym *v;

		if (t->nr >= PDA_SYMS_MAX)
			return PD_ERR_UNSUPPORTED;
		if (want > PDA_SYMS_MAX)
			want = PDA_SYMS_MAX;
		v = pda_realloc(s, t->v, want * sizeof(*v));
		if (!v)
			return PD_ERR_NOMEM;
		t->v = v;
		t->alloc = want;
	}
	t->v[t->nr] = *sym;
	*idx = (uint32_t)t->nr++;
	pda_symtree_insert(t, *idx);
	return 0;
}

/* The name perf holds for comparisons: demangled, unless it does not
 * demangle this file.  NULL on NOMEM. */
static const char *cmp_name(struct pda_session *s, const struct pda_symtab *t,
			    const struct pda_sym *p)
{
	return t->demangle ? pda_demangle(s, p->name) : p->name;
}

static size_t leading_underscores(const char *name)
{
	size_t n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol: true keeps a, false keeps b. */
static int keep_first(struct pda_session *s, const struct pda_symtab *t,
		      const struct pda_sym *a, const struct pda_sym *b,
		      bool *first)
{
	const char *na, *nb;
	size_t ua, ub, la, lb;
	bool sa = a->end != a->start, sb = b->end != b->start;

	*first = true;
	if (sa != sb) {
		*first = sa;
		return 0;
	}
	if ((a->binding == STB_WEAK) != (b->binding == STB_WEAK)) {
		*first = b->binding == STB_WEAK;
		return 0;
	}
	if ((a->binding == STB_GLOBAL) != (b->binding == STB_GLOBAL)) {
		*first = a->binding == STB_GLOBAL;
		return 0;
	}
	na = cmp_name(s, t, a);
	nb = cmp_name(s, t, b);
	if (!na || !nb)
		return PD_ERR_NOMEM;
	ua = leading_underscores(na);
	ub = leading_underscores(nb);
	if (ua != ub) {
		*first = ua < ub;
		return 0;
	}
	la = strlen(na);
	lb = strlen(nb);
	if (la != lb)
		*first = la > lb;
	return 0;
}

/* perf's symbols__fixup_end (not kallsyms). */
static void fixup_end(struct pda_symtab *t)
{
	uint32_t prev, cur = pda_symtree_first(t);

	if (cur == PDA_SYM_NIL)
		return;
	for (uint32_t n = pda_symtree_next(t, cur); n != PDA_SYM_NIL;
	     n = pda_symtree_next(t, n)) {
		prev = cur;
		cur = n;
		if (t->v[prev].end == t->v[prev].start)
			t->v[prev].end = t->v[cur].start;
	}
	if (t->v[cur].end == t->v[cur].start)
		t->v[cur].end =
			((t->v[cur].start + 4095) & ~(uint64_t)4095) + 4096;
}

/* perf's symbols__fixup_duplicate. */
static int fixup_duplicate(struct pda_session *s, struct pda_symtab *t)
{
	uint32_t cur = pda_symtree_first(t), next;
	bool first;
	int err;

	while (cur != PDA_SYM_NIL) {
		next = pda_symtree_next(t, cur);
		if (next == PDA_SYM_NIL)
			break;
		if (t->v[cur].start != t->v[next].start) {
			cur = next;
			continue;
		}
		err = keep_first(s, t, &t->v[cur], &t->v[next], &first);
		if (err)
			return err;
		if (first) {
			if (t->v[next].type == STT_GNU_IFUNC)
				t->v[cur].flags |= PDA_SYM_IFUNC_ALIAS;
			pda_symtree_erase(t, next);
		} else {
			if (t->v[cur].type == STT_GNU_IFUNC)
				t->v[next].flags |= PDA_SYM_IFUNC_ALIAS;
			pda_symtree_erase(t, cur);
			cur = next;
		}
	}
	return 0;
}

/* Where perf puts a symbol of the runtime file: its file offset. */
static uint64_t vaddr_key(const struct pda_elf *rt, uint64_t vaddr,
			  const GElf_Shdr *sh)
{
	const struct pda_elf_seg *g = pda_elf_seg_of_vaddr(rt, vaddr);

	if (g)
		return vaddr - (g->vaddr - g->offset);
	return vaddr - (sh->sh_addr - sh->sh_offset);
}

static bool is_mapping_symbol(const char *name)
{
	return name[0] == '$' && name[1] && strchr("adtx", name[1]) &&
	       (name[2] == '\0' || name[2] == '.');
}

/*
 * ppc64 ELFv1: a function's symbol is its descriptor in .opd, whose
 * first doubleword is the code's address; as perf's dso__load_sym,
 * *sym's value becomes that and *sh the section holding it (both from
 * the runtime file rt, whose .opd has the bytes).  False when the
 * descriptor or the section is not there.
 */
static bool opd_entry(const struct pda_elf *rt, GElf_Sym *sym, GElf_Shdr *sh)
{
	Elf_Scn *opd = elf_getscn(rt->elf, sym->st_shndx), *scn = NULL;
	GElf_Shdr osh;
	Elf_Data *d;
	const unsigned char *c;
	uint64_t off, v = 0;
	GElf_Ehdr eh;

	if (!opd || !gelf_getshdr(opd, &osh) || !gelf_getehdr(rt->elf, &eh) ||
	    !(d = elf_getdata(opd, NULL)) || !d->d_buf ||
	    sym->st_value < osh.sh_addr ||
	    (off = sym->st_value - osh.sh_addr) + 8 > d->d_size)
		return false;
	c = (const unsigned char *)d->d_buf + off;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)c[eh.e_ident[EI_DATA] == ELFDATA2MSB ? i : 7 - i]
		     << (56 - 8 * i);
	while ((scn = elf_nextscn(rt->elf, scn)))
		if (gelf_getshdr(scn, sh) && (sh->sh_flags & SHF_EXECINSTR) &&
		    v >= sh->sh_addr && v < sh->sh_addr + sh->sh_size) {
			sym->st_value = v;
			sym->st_shndx = (uint16_t)elf_ndxscn(scn);
			return true;
		}
	return false;
}

/*
 * One pass of dso__load_sym: the symbols of table scn in elf (the file
 * holding the table: e, its debug file or MiniDebugInfo), section
 * headers of NOBITS sections taken from rt, the runtime file.
 */
static int insert_table(struct pda_session *s, struct pda_symtab *t,
			const struct pda_elf *rt, Elf *elf, Elf_Scn *scn,
			const GElf_Shdr *symsh, size_t *nr_added)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t nr_syms, shstrndx;
	uint16_t machine = rt->machine;
	bool rel = rt->type == ET_REL;
	int err;

	if (!data || !symsh->sh_entsize)
		return 0;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	nr_syms = data->d_size / symsh->sh_entsize;
	for (size_t i = 0; i < nr_syms; i++) {
		GElf_Sym sym;
		GElf_Shdr sh;
		Elf_Scn *sec;
		const char *name, *scn_name;
		unsigned type, vis;
		bool label, func, obj;
		struct pda_sym p;
		uint32_t idx;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		vis = GELF_ST_VISIBILITY(sym.st_other);
		if (!sym.st_name || sym.st_shndx == SHN_UNDEF)
			continue;
		func = type == STT_FUNC || type == STT_GNU_IFUNC;
		obj = type == STT_OBJECT;
		label = type == STT_NOTYPE && sym.st_shndx != SHN_ABS &&
			vis != STV_HIDDEN && vis != STV_INTERNAL;
		if (!func && !obj && !label)
			continue;
		name = elf_strptr(elf, symsh->sh_link, sym.st_name);
		if (!name)
			continue;
		if ((machine == EM_ARM || machine == EM_AARCH64) &&
		    is_mapping_symbol(name))
			continue;
		if (sym.st_shndx == SHN_ABS || sym.st_shndx >= SHN_LORESERVE)
			continue;
		sec = elf_getscn(elf, sym.st_shndx);
		if (!sec || !gelf_getshdr(sec, &sh) ||
		    !(sh.sh_flags & SHF_ALLOC))
			continue;
		scn_name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_NOBITS && elf != rt->elf) {
			/* a debug file: the runtime file has the real header */
			sec = elf_getscn(rt->elf, sym.st_shndx);
			if (!sec || !gelf_getshdr(sec, &sh))
				continue;
			scn_name = pda_elf_scn_name(rt, &sh);
		}
		if (!scn_name)
			scn_name = "";
		if (machine == EM_PPC64 && func && !strcmp(scn_name, ".opd")) {
			if (!opd_entry(rt, &sym, &sh))
				continue;
			scn_name = pda_elf_scn_name(rt, &sh);
			if (!scn_name)
				scn_name = "";
		}
		if (label && !strstr(scn_name, "text") &&
		    !strstr(scn_name, "data"))
			continue;
		if (machine == EM_ARM && type == STT_FUNC && (sym.st_value & 1))
			sym.st_value--;
		memset(&p, 0, sizeof(p));
		if (rel) {
			if (strcmp(scn_name, ".text"))
				continue;
			p.start = sym.st_value + sh.sh_offset - sh.sh_addr;
			p.vaddr = p.start;
		} else {
			p.start = vaddr_key(rt, sym.st_value, &sh);
			p.vaddr = sym.st_value;
		}
		p.end = p.start + sym.st_size;
		p.name = name;
		p.binding = GELF_ST_BIND(sym.st_info);
		p.type = type;
		err = pda_symtab_add(s, t, &p, &idx);
		if (err == PD_ERR_UNSUPPORTED && t->ahead)
			return err;
		if (err == PD_ERR_UNSUPPORTED) {
			pda_logf(s, PD_LOG_WARN,
				 "%s: over %zu symbols, the rest "
				 "ignored",
				 rt->path, PDA_SYMS_MAX);
			break;
		}
		if (err)
			return err;
		(*nr_added)++;
	}
	return 0;
}

/*
 * One pass of perf's dso__load_sym_internal: the tables' symbols, then
 * the fixups over the whole tree (only when the pass added any).
 */
static int load_pass(struct pda_session *s, struct pda_symtab *t,
		     const struct pda_elf *rt, Elf *elf, Elf_Scn *scn,
		     const GElf_Shdr *symsh, Elf *elf2, Elf_Scn *scn2,
		     const GElf_Shdr *symsh2)
{
	size_t nr_added = 0;
	int err = insert_table(s, t, rt, elf, scn, symsh, &nr_added);

	if (!err && scn2)
		err = insert_table(s, t, rt, elf2, scn2, symsh2, &nr_added);
	if (err || !nr_added)
		return err;
	fixup_end(t);
	return fixup_duplicate(s, t);
}

/* ---- MiniDebugInfo ----------------------------------------------------- */

/* Decompress .gnu_debugdata (an xz stream) and open the ELF inside. */
static int open_minidebug(struct pda_session *s, struct pda_symtab *t,
			  const struct pda_elf *e)
{
	GElf_Shdr sh;
	Elf_Scn *scn = pda_elf_section(e, ".gnu_debugdata", &sh);
	Elf_Data *data;
	lzma_stream strm = LZMA_STREAM_INIT;
	unsigned char *out = NULL;
	size_t alloc = 0;
	lzma_ret ret;
	int err = 0;

	if (!scn || sh.sh_type == SHT_NOBITS)
		return 0;
	data = elf_rawdata(scn, NULL);
	if (!data || !data->d_buf || !data->d_size)
		return 0;
	if (lzma_stream_decoder(&strm, UINT64_MAX, 0) != LZMA_OK)
		return PD_ERR_NOMEM;
	strm.next_in = data->d_buf;
	strm.avail_in = data->d_size;
	do {
		if (!strm.avail_out) {
			size_t want =
				alloc ? alloc * 2 : data->d_size * 4 + 4096;
			unsigned char *p;

			if (alloc >= MAX_MINIDEBUG) {
				err = PD_ERR_UNSUPPORTED;
				break;
			}
			if (want > MAX_MINIDEBUG)
				want = MAX_MINIDEBUG;
			p = pda_realloc(s, out, want);
			if (!p) {
				err = PD_ERR_NOMEM;
				break;
			}
			out = p;
			strm.next_out = out + alloc;
			strm.avail_out = want - alloc;
			alloc = want;
		}
		ret = lzma_code(&strm, LZMA_FINISH);
	} while (ret == LZMA_OK);
	if (!err && ret != LZMA_STREAM_END)
		err = ret == LZMA_MEM_ERROR ? PD_ERR_NOMEM : PD_ERR_FORMAT;
	if (!err) {
		t->minidebug = out;
		t->minidebug_elf = elf_memory((char *)out, strm.total_out);
		if (!t->minidebug_elf ||
		    elf_kind(t->minidebug_elf) != ELF_K_ELF)
			err = PD_ERR_FORMAT;
	}
	lzma_end(&strm);
	if (err == PD_ERR_NOMEM) {
		pda_free(s, out);
		t->minidebug = NULL;
		return err;
	}
	if (t->minidebug != out)
		pda_free(s, out); /* lzma's error: not kept */
	if (err && t->ahead)
		return err;
	if (err)
		pda_logf(s, PD_LOG_WARN,
			 "%s: .gnu_debugdata is not an "
			 "xz-compressed ELF (%s), ignored",
			 e->path, pd_strerror(err));
	return 0;
}

/* ---- the table ---------------------------------------------------------- */

void pda_symtab_free(struct pda_session *s, struct pda_symtab *t)
{
	if (!t)
		return;
	if (t->minidebug_elf)
		elf_end(t->minidebug_elf);
	pda_free(s, t->minidebug);
	pda_free(s, t->plt);
	pda_free(s, t->v);
	pda_free(s, t);
}

static int build(struct pda_session *s, struct pda_elf *e, struct pda_symtab *t)
{
	const struct pda_elf *src = e;
	GElf_Shdr sh, dynsh;
	Elf_Scn *scn, *dynscn;
	int err;

	t->root = PDA_SYM_NIL;
	/* perf does not demangle kernel modules' names */
	t->demangle = !pda_session_opts(s)->no_demangle && e->type != ET_REL;
	if (e->debug &&
	    pda_elf_find_table(e->debug->elf, SHT_SYMTAB, &sh, NULL))
		src = e->debug;
	dynscn = pda_elf_find_table(src->elf, SHT_DYNSYM, &dynsh, NULL);
	scn = pda_elf_find_table(src->elf, SHT_SYMTAB, &sh, NULL);
	if (scn) {
		err = load_pass(s, t, e, src->elf, scn, &sh, NULL, NULL, NULL);
	} else {
		/*
		 * MiniDebugInfo holds what stripping took from .symtab and
		 * .dynsym lacks: the two together stand for the .symtab, so
		 * that a zero-size symbol reaches the next one of either.
		 */
		err = open_minidebug(s, t, e);
		scn = NULL;
		if (!err && t->minidebug_elf)
			scn = pda_elf_find_table(t->minidebug_elf, SHT_SYMTAB,
						 &sh, NULL);
		if (!err && scn)
			err = load_pass(s, t, e, t->minidebug_elf, scn, &sh,
					dynscn ? src->elf : NULL, dynscn,
					&dynsh);
	}
	if (err)
		return err;
	if (dynscn) {
		err = load_pass(s, t, e, src->elf, dynscn, &dynsh, NULL, NULL,
				NULL);
		if (err)
			return err;
	}
	if (e->type == ET_REL)
		return 0;
	if (t->nr) {
		/* perf 6.1 adds its PLT symbols only to a loaded table */
		err = pda_plt_perf61(s, t, e);
		if (err)
			return err;
	}
	return pda_plt_current(s, t, e);
}

/* e's table built (ahead: quietly, see struct pda_symtab). */
static int load(struct pda_session *s, struct pda_elf *e, bool ahead)
{
	struct pda_symtab *t;
	int err;

	t = pda_zalloc(s, sizeof(*t));
	if (!t)
		return PD_ERR_NOMEM;
	t->ahead = ahead;
	err = build(s, e, t);
	if (err) {
		pda_symtab_free(s, t);
		if (err == PD_ERR_NOMEM || ahead)
			return err; /* may work next time; warns then */
		pda_logf(s, PD_LOG_WARN, "%s: symbols not read: %s", e->path,
			 pd_strerror(err));
		e->syms_state = err;
		return 0;
	}
	t->ahead = false;
	e->syms = t;
	e->syms_state = 1;
	return 0;
}

int pda_elf_symtab_ahead(struct pda_session *s, struct pda_elf *e)
{
	int err;

	if (e->syms_state || e->syms_ahead_failed)
		return 0;
	err = load(s, e, true);
	if (err == PD_ERR_NOMEM)
		return err;
	/* each of its queued addresses would build it again */
	e->syms_ahead_failed = err != 0;
	return 0;
}

static int lookup(struct pda_session *s, struct pda_elf *e, uint64_t vaddr,
		  bool perf61, const char **name, uint64_t *start,
		  uint64_t *size, bool *object)
{
	const struct pda_symtab *t;
	const struct pda_pltent *pe;
	_Atomic(const char *) *namep;
	_Atomic uint8_t *flags;
	struct pda_sym *p;
	uint64_t key;
	uint32_t n;
	bool in_plt;

	if (!e->syms_state) {
		int err = load(s, e, false);

		if (err)
			return err;
	}
	t = e->syms;
	if (!t || pda_elf_vaddr_to_offset(e, vaddr, &key))
		return PD_ERR_NOTFOUND;
	pe = perf61 ? NULL : pda_plt_find(t, key, &in_plt);
	if (pe) {
		*name = pe->name;
		*start = pe->vaddr;
		*size = pe->end - pe->start;
		if (object)
			*object = false;
		return 0;
	}
	if (!perf61 && in_plt)
		return PD_ERR_NOTFOUND;
	n = pda_symtree_find(t, key);
	if (n == PDA_SYM_NIL)
		return PD_ERR_NOTFOUND;
	p = &e->syms->v[n];
	/* two threads may look one binary's symbols up at once (a split
	 * replay, pda_session.c): both intern the same name, stored
	 * atomically; the flag is set after it */
	flags = (void *)&p->flags;
	namep = (void *)&p->name;
	if (!(atomic_load_explicit(flags, memory_order_acquire) &
	      PDA_SYM_INTERNED)) {
		const char *was =
			atomic_load_explicit(namep, memory_order_relaxed);
		const char *in = pda_intern(s, was, strlen(was));

		if (!in)
			return PD_ERR_NOMEM;
		atomic_store_explicit(namep, in, memory_order_relaxed);
		atomic_fetch_or_explicit(flags, PDA_SYM_INTERNED,
					 memory_order_release);
	}
	*name = atomic_load_explicit(namep, memory_order_relaxed);
	*start = p->vaddr;
	*size = p->end - p->start;
	if (object)
		*object = p->type == STT_OBJECT;
	return 0;
}

int pda_elf_symbol(struct pda_session *s, struct pda_elf *e, uint64_t vaddr,
		   const char **name, uint64_t *start, uint64_t *size)
{
	return lookup(s, e, vaddr, false, name, start, size, NULL);
}

int pda_elf_symbol_typed(struct pda_session *s, struct pda_elf *e,
			 uint64_t vaddr, const char **name, uint64_t *start,
			 uint64_t *size, bool *object)
{
	return lookup(s, e, vaddr, false, name, start, size, object);
}

int pda_elf_symbol_perf61(struct pda_session *s, struct pda_elf *e,
			  uint64_t vaddr, const char **name, uint64_t *start,
			  uint64_t *size)
{
	return lookup(s, e, vaddr, true, name, start, size, NULL);
}
