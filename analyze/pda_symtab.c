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
 *    holds the functions .dynsym lacks): read as the .symtab pass when the
 *    file has no .symtab.  perf 6.1 ignores it.
 *
 * A relocatable object (a kernel module) contributes its .text symbols,
 * keyed by file offset (st_value + the section's sh_offset), as perf's
 * main map of a module holds them.
 */
#include "pda_elf_int.h"

#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX
/* Caps on what one file may make us hold (O5). */
#define MAX_SYMS ((size_t)1 << 26)
#define MAX_MINIDEBUG ((size_t)512 << 20)

#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif
#ifndef R_X86_64_IRELATIVE
#define R_X86_64_IRELATIVE 37
#endif

enum psym_flags {
	PSYM_IFUNC_ALIAS = 1u << 0, /* shares a start with a dropped IFUNC */
	PSYM_INTERNED = 1u << 1,    /* name is interned */
};

/* A node of the replayed tree. */
struct psym {
	uint64_t start, end; /* file offsets, end exclusive */
	uint64_t vaddr;	     /* start as a virtual address */
	const char *name;    /* into the ELF's string table, or interned */
	uint32_t left, right, parent;
	uint8_t red;
	uint8_t binding; /* STB_* */
	uint8_t type;	 /* STT_* */
	uint8_t flags;	 /* psym_flags */
};

/* A PLT entry by perf's current rules: [start, end) in file offsets. */
struct pltent {
	uint64_t start, end;
	uint64_t vaddr;
	const char *name; /* interned */
};

struct pda_symtab {
	struct psym *v; /* v[0..nr): every node ever inserted */
	size_t nr, alloc;
	uint32_t root;
	bool demangle;	    /* names compare demangled, as perf's do */
	struct pltent *plt; /* sorted by start, not overlapping */
	size_t nr_plt, plt_alloc;
	struct {
		uint64_t start, end;
	} plt_scn[3]; /* .plt, .plt.got, .plt.sec */
	size_t nr_plt_scn;
	void *minidebug; /* the decompressed .gnu_debugdata */
	Elf *minidebug_elf;
};

/* ---- the red-black tree, as lib/rbtree.c balances it ----------------- */

#define N(i) (t->v[(i)])

static void change_child(struct pda_symtab *t, uint32_t old, uint32_t new,
			 uint32_t parent)
{
	if (parent == NIL)
		t->root = new;
	else if (N(parent).left == old)
		N(parent).left = new;
	else
		N(parent).right = new;
}

/* new takes old's place and colour; old goes under new with colour red. */
static void rotate_set_parents(struct pda_symtab *t, uint32_t old, uint32_t new,
			       uint8_t red)
{
	uint32_t parent = N(old).parent;

	N(new).parent = parent;
	N(new).red = N(old).red;
	N(old).parent = new;
	N(old).red = red;
	change_child(t, old, new, parent);
}

static void set_parent_black(struct pda_symtab *t, uint32_t n, uint32_t parent)
{
	N(n).parent = parent;
	N(n).red = 0;
}

static void insert_fixup(struct pda_symtab *t, uint32_t node)
{
	uint32_t parent = N(node).parent, gparent, tmp;

	for (;;) {
		if (parent == NIL) {
			N(node).red = 0;
			break;
		}
		if (!N(parent).red)
			break;
		gparent = N(parent).parent;
		tmp = N(gparent).right;
		if (parent != tmp) { /* parent is gparent's left child */
			if (tmp != NIL && N(tmp).red) {
				set_parent_black(t, tmp, gparent);
				set_parent_black(t, parent, gparent);
				node = gparent;
				parent = N(node).parent;
				N(node).red = 1;
				continue;
			}
			tmp = N(parent).right;
			if (node == tmp) { /* left rotate at parent */
				tmp = N(node).left;
				N(parent).right = tmp;
				N(node).left = parent;
				if (tmp != NIL)
					set_parent_black(t, tmp, parent);
				N(parent).parent = node;
				N(parent).red = 1;
				parent = node;
				tmp = N(node).right;
			}
			/* right rotate at gparent */
			N(gparent).left = tmp;
			N(parent).right = gparent;
			if (tmp != NIL)
				set_parent_black(t, tmp, gparent);
			rotate_set_parents(t, gparent, parent, 1);
			break;
		}
		tmp = N(gparent).left;
		if (tmp != NIL && N(tmp).red) {
			set_parent_black(t, tmp, gparent);
			set_parent_black(t, parent, gparent);
			node = gparent;
			parent = N(node).parent;
			N(node).red = 1;
			continue;
		}
		tmp = N(parent).left;
		if (node == tmp) { /* right rotate at parent */
			tmp = N(node).right;
			N(parent).left = tmp;
			N(node).right = parent;
			if (tmp != NIL)
				set_parent_black(t, tmp, parent);
			N(parent).parent = node;
			N(parent).red = 1;
			parent = node;
			tmp = N(node).left;
		}
		/* left rotate at gparent */
		N(gparent).right = tmp;
		N(parent).left = gparent;
		if (tmp != NIL)
			set_parent_black(t, tmp, gparent);
		rotate_set_parents(t, gparent, parent, 1);
		break;
	}
}

/* Link node n in as perf's symbols__insert does: equal starts go right. */
static void tree_insert(struct pda_symtab *t, uint32_t n)
{
	uint32_t parent = NIL, cur = t->root;
	bool left = false;

	while (cur != NIL) {
		parent = cur;
		left = N(n).start < N(cur).start;
		cur = left ? N(cur).left : N(cur).right;
	}
	N(n).parent = parent;
	N(n).left = N(n).right = NIL;
	N(n).red = 1;
	if (parent == NIL)
		t->root = n;
	else if (left)
		N(parent).left = n;
	else
		N(parent).right = n;
	insert_fixup(t, n);
}

static void erase_color(struct pda_symtab *t, uint32_t parent)
{
	uint32_t node = NIL, sibling, tmp1, tmp2;

	for (;;) {
		sibling = N(parent).right;
		if (node != sibling) {	      /* node is parent's left child */
			if (N(sibling).red) { /* left rotate at parent */
				tmp1 = N(sibling).left;
				N(parent).right = tmp1;
				N(sibling).left = parent;
				set_parent_black(t, tmp1, parent);
				rotate_set_parents(t, parent, sibling, 1);
				sibling = tmp1;
			}
			tmp1 = N(sibling).right;
			if (tmp1 == NIL || !N(tmp1).red) {
				tmp2 = N(sibling).left;
				if (tmp2 == NIL || !N(tmp2).red) {
					/* sibling colour flip */
					N(sibling).parent = parent;
					N(sibling).red = 1;
					if (N(parent).red) {
						N(parent).red = 0;
					} else {
						node = parent;
						parent = N(node).parent;
						if (parent != NIL)
							continue;
					}
					break;
				}
				/* right rotate at sibling */
				tmp1 = N(tmp2).right;
				N(sibling).left = tmp1;
				N(tmp2).right = sibling;
				N(parent).right = tmp2;
				if (tmp1 != NIL)
					set_parent_black(t, tmp1, sibling);
				tmp1 = sibling;
				sibling = tmp2;
			}
			/* left rotate at parent, colour flips */
			tmp2 = N(sibling).left;
			N(parent).right = tmp2;
			N(sibling).left = parent;
			set_parent_black(t, tmp1, sibling);
			if (tmp2 != NIL)
				N(tmp2).parent = parent;
			rotate_set_parents(t, parent, sibling, 0);
			break;
		}
		sibling = N(parent).left;
		if (N(sibling).red) { /* right rotate at parent */
			tmp1 = N(sibling).right;
			N(parent).left = tmp1;
			N(sibling).right = parent;
			set_parent_black(t, tmp1, parent);
			rotate_set_parents(t, parent, sibling, 1);
			sibling = tmp1;
		}
		tmp1 = N(sibling).left;
		if (tmp1 == NIL || !N(tmp1).red) {
			tmp2 = N(sibling).right;
			if (tmp2 == NIL || !N(tmp2).red) {
				N(sibling).parent = parent;
				N(sibling).red = 1;
				if (N(parent).red) {
					N(parent).red = 0;
				} else {
					node = parent;
					parent = N(node).parent;
					if (parent != NIL)
						continue;
				}
				break;
			}
			/* left rotate at sibling */
			tmp1 = N(tmp2).left;
			N(sibling).right = tmp1;
			N(tmp2).left = sibling;
			N(parent).left = tmp2;
			if (tmp1 != NIL)
				set_parent_black(t, tmp1, sibling);
			tmp1 = sibling;
			sibling = tmp2;
		}
		/* right rotate at parent, colour flips */
		tmp2 = N(sibling).right;
		N(parent).left = tmp2;
		N(sibling).right = parent;
		set_parent_black(t, tmp1, sibling);
		if (tmp2 != NIL)
			N(tmp2).parent = parent;
		rotate_set_parents(t, parent, sibling, 0);
		break;
	}
}

/* Unlink node n (lib/rbtree.c's __rb_erase_augmented, then its fixup). */
static void tree_erase(struct pda_symtab *t, uint32_t n)
{
	uint32_t child = N(n).right, tmp = N(n).left;
	uint32_t parent, rebalance, pparent;
	uint8_t red;

	if (tmp == NIL) {
		parent = N(n).parent;
		red = N(n).red;
		change_child(t, n, child, parent);
		if (child != NIL) {
			N(child).parent = parent;
			N(child).red = red;
			rebalance = NIL;
		} else {
			rebalance = red ? NIL : parent;
		}
	} else if (child == NIL) {
		parent = N(n).parent;
		N(tmp).parent = parent;
		N(tmp).red = N(n).red;
		change_child(t, n, tmp, parent);
		rebalance = NIL;
	} else {
		uint32_t successor = child, child2;

		tmp = N(child).left;
		if (tmp == NIL) {
			parent = successor;
			child2 = N(successor).right;
		} else {
			do {
				parent = successor;
				successor = tmp;
				tmp = N(tmp).left;
			} while (tmp != NIL);
			child2 = N(successor).right;
			N(parent).left = child2;
			N(successor).right = child;
			N(child).parent = successor;
		}
		tmp = N(n).left;
		N(successor).left = tmp;
		N(tmp).parent = successor;
		pparent = N(n).parent;
		red = N(n).red;
		change_child(t, n, successor, pparent);
		if (child2 != NIL) {
			set_parent_black(t, child2, parent);
			rebalance = NIL;
		} else {
			rebalance = N(successor).red ? NIL : parent;
		}
		N(successor).parent = pparent;
		N(successor).red = red;
	}
	if (rebalance != NIL)
		erase_color(t, rebalance);
}

static uint32_t tree_first(const struct pda_symtab *t)
{
	uint32_t n = t->root;

	if (n == NIL)
		return NIL;
	while (N(n).left != NIL)
		n = N(n).left;
	return n;
}

static uint32_t tree_next(const struct pda_symtab *t, uint32_t n)
{
	uint32_t parent;

	if (N(n).right != NIL) {
		n = N(n).right;
		while (N(n).left != NIL)
			n = N(n).left;
		return n;
	}
	while ((parent = N(n).parent) != NIL && n == N(parent).right)
		n = parent;
	return parent;
}

/* perf's symbols__find. */
static uint32_t tree_find(const struct pda_symtab *t, uint64_t key)
{
	uint32_t n = t->root;

	while (n != NIL) {
		const struct psym *p = &N(n);

		if (key < p->start)
			n = p->left;
		else if (key > p->end || (key == p->end && key != p->start))
			n = p->right;
		else
			return n;
	}
	return NIL;
}

#undef N

/* ---- building ---------------------------------------------------------- */

static int add_node(struct pda_session *s, struct pda_symtab *t,
		    const struct psym *sym, uint32_t *idx)
{
	if (t->nr == t->alloc) {
		size_t want = t->alloc ? t->alloc * 2 : 256;
		struct psym *v;

		if (t->nr >= MAX_SYMS)
			return PD_ERR_UNSUPPORTED;
		if (want > MAX_SYMS)
			want = MAX_SYMS;
		v = pda_realloc(s, t->v, want * sizeof(*v));
		if (!v)
			return PD_ERR_NOMEM;
		t->v = v;
		t->alloc = want;
	}
	t->v[t->nr] = *sym;
	*idx = (uint32_t)t->nr++;
	tree_insert(t, *idx);
	return 0;
}

/* The name perf holds for comparisons: demangled, unless it does not
 * demangle this file.  NULL on NOMEM. */
static const char *cmp_name(struct pda_session *s, const struct pda_symtab *t,
			    const struct psym *p)
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
		      const struct psym *a, const struct psym *b, bool *first)
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
	uint32_t prev, cur = tree_first(t);

	if (cur == NIL)
		return;
	for (uint32_t n = tree_next(t, cur); n != NIL; n = tree_next(t, n)) {
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
	uint32_t cur = tree_first(t), next;
	bool first;
	int err;

	while (cur != NIL) {
		next = tree_next(t, cur);
		if (next == NIL)
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
				t->v[cur].flags |= PSYM_IFUNC_ALIAS;
			tree_erase(t, next);
		} else {
			if (t->v[cur].type == STT_GNU_IFUNC)
				t->v[next].flags |= PSYM_IFUNC_ALIAS;
			tree_erase(t, cur);
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
 * One pass of dso__load_sym: the symbols of table scn in elf (the file
 * holding the table: e, its debug file or MiniDebugInfo), section
 * headers of NOBITS sections taken from rt, the runtime file.
 */
static int load_pass(struct pda_session *s, struct pda_symtab *t,
		     const struct pda_elf *rt, Elf *elf, Elf_Scn *scn,
		     const GElf_Shdr *symsh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t nr_syms, shstrndx, nr_added = 0;
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
		struct psym p;
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
		err = add_node(s, t, &p, &idx);
		if (err == PD_ERR_UNSUPPORTED) {
			pda_logf(s, PD_LOG_WARN,
				 "%s: over %zu symbols, the rest "
				 "ignored",
				 rt->path, MAX_SYMS);
			break;
		}
		if (err)
			return err;
		nr_added++;
	}
	if (!nr_added)
		return 0;
	fixup_end(t);
	return fixup_duplicate(s, t);
}

/* A symbol table section of elf by type: SHT_SYMTAB or SHT_DYNSYM. */
static Elf_Scn *find_table(Elf *elf, Elf64_Word type, GElf_Shdr *sh,
			   size_t *idx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, sh) && sh->sh_type == type) {
			if (idx)
				*idx = elf_ndxscn(scn);
			return scn;
		}
	return NULL;
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
	if (err)
		pda_logf(s, PD_LOG_WARN,
			 "%s: .gnu_debugdata is not an "
			 "xz-compressed ELF (%s), ignored",
			 e->path, pd_strerror(err));
	return 0;
}

/* ---- PLT ---------------------------------------------------------------- */

struct relinfo {
	Elf_Data *data;
	bool rela;
	size_t nr;
	uint32_t *order; /* sorted index, or NULL: file order */
};

static bool rel_get(const struct relinfo *ri, size_t i, uint32_t *symidx,
		    uint64_t *offset, unsigned *type, int64_t *addend)
{
	if (ri->order)
		i = ri->order[i];
	if (ri->rela) {
		GElf_Rela r;

		if (!gelf_getrela(ri->data, (int)i, &r))
			return false;
		*symidx = (uint32_t)GELF_R_SYM(r.r_info);
		*type = (unsigned)GELF_R_TYPE(r.r_info);
		*offset = r.r_offset;
		*addend = r.r_addend;
	} else {
		GElf_Rel r;

		if (!gelf_getrel(ri->data, (int)i, &r))
			return false;
		*symidx = (uint32_t)GELF_R_SYM(r.r_info);
		*type = (unsigned)GELF_R_TYPE(r.r_info);
		*offset = r.r_offset;
		*addend = 0;
	}
	return true;
}

struct relpos {
	uint64_t offset;
	uint32_t idx;
};

static int cmp_relpos(const void *a, const void *b)
{
	const struct relpos *pa = a, *pb = b;

	if (pa->offset != pb->offset)
		return pa->offset < pb->offset ? -1 : 1;
	return pa->idx < pb->idx ? -1 : pa->idx > pb->idx;
}

/* ri->order: the relocations by the GOT slot they fill. */
static int sort_by_slot(struct pda_session *s, struct relinfo *ri)
{
	struct relpos *pos = pda_malloc(s, ri->nr * sizeof(*pos));

	if (!pos)
		return PD_ERR_NOMEM;
	ri->order = pda_malloc(s, ri->nr * sizeof(*ri->order));
	if (!ri->order) {
		pda_free(s, pos);
		return PD_ERR_NOMEM;
	}
	for (size_t i = 0; i < ri->nr; i++) {
		uint32_t symidx;
		unsigned type;
		int64_t addend;

		pos[i].idx = (uint32_t)i;
		pos[i].offset = 0;
		ri->order[i] = (uint32_t)i;
		rel_get(ri, i, &symidx, &pos[i].offset, &type, &addend);
	}
	qsort(pos, ri->nr, sizeof(*pos), cmp_relpos);
	for (size_t i = 0; i < ri->nr; i++)
		ri->order[i] = pos[i].idx;
	pda_free(s, pos);
	return 0;
}

/* The dynamic symbol's name, "" when there is none. */
static const char *dynsym_name(Elf *elf, Elf_Data *syms, size_t strndx,
			       uint32_t symidx)
{
	GElf_Sym sym;
	const char *name;

	if (!gelf_getsym(syms, (int)symidx, &sym))
		return "";
	name = elf_strptr(elf, strndx, sym.st_name);
	return name ? name : "";
}

static int intern_plt_name(struct pda_session *s, const char *base,
			   uint64_t offset, const char **out)
{
	char buf[1024];
	int len;

	if (*base)
		len = snprintf(buf, sizeof(buf), "%s@plt", base);
	else
		len = snprintf(buf, sizeof(buf), "offset_%#llx@plt",
			       (unsigned long long)offset);
	if (len < 0)
		return PD_ERR_FORMAT;
	if ((size_t)len >= sizeof(buf))
		len = sizeof(buf) - 1;
	*out = pda_intern(s, buf, (size_t)len);
	return *out ? 0 : PD_ERR_NOMEM;
}

/*
 * perf 6.1's dso__synthesize_plt_symbols: .rela.plt (or .rel.plt) of the
 * .dynsym in file order, entries after a header, sizes by machine.  The
 * nodes go into the tree for its shape; their names are 6.1's too.
 */
static int plt_perf61(struct pda_session *s, struct pda_symtab *t,
		      const struct pda_elf *e)
{
	GElf_Shdr dynsh, relsh, pltsh;
	size_t dynidx = 0;
	Elf_Scn *dynscn = find_table(e->elf, SHT_DYNSYM, &dynsh, &dynidx);
	Elf_Scn *relscn;
	struct relinfo ri;
	Elf_Data *syms;
	uint64_t hdr, entsize, off;
	int err;

	if (!dynscn)
		return 0;
	relscn = pda_elf_section(e, ".rela.plt", &relsh);
	if (!relscn)
		relscn = pda_elf_section(e, ".rel.plt", &relsh);
	if (!relscn || relsh.sh_link != dynidx || !relsh.sh_entsize ||
	    (relsh.sh_type != SHT_RELA && relsh.sh_type != SHT_REL))
		return 0;
	if (!pda_elf_section(e, ".plt", &pltsh) || pltsh.sh_type == SHT_NOBITS)
		return 0;
	ri.data = elf_getdata(relscn, NULL);
	syms = elf_getdata(dynscn, NULL);
	if (!ri.data || !syms)
		return 0;
	ri.rela = relsh.sh_type == SHT_RELA;
	ri.nr = relsh.sh_size / relsh.sh_entsize;
	ri.order = NULL;
	switch (e->machine) {
	case EM_ARM:
		hdr = 20, entsize = 12;
		break;
	case EM_AARCH64:
		hdr = 32, entsize = 16;
		break;
	case EM_SPARCV9:
		hdr = 128, entsize = 32;
		break;
	default:
		hdr = entsize = pltsh.sh_entsize;
		break;
	}
	off = pltsh.sh_offset + hdr;
	for (size_t i = 0; i < ri.nr; i++) {
		uint32_t symidx, idx;
		uint64_t roff;
		unsigned type;
		int64_t addend;
		struct psym p;
		const char *base;

		if (!rel_get(&ri, i, &symidx, &roff, &type, &addend))
			break;
		base = dynsym_name(e->elf, syms, dynsh.sh_link, symidx);
		memset(&p, 0, sizeof(p));
		/* perf 6.1 writes "%s@plt" even for an empty name */
		if (*base) {
			err = intern_plt_name(s, base, 0, &p.name);
		} else {
			p.name = pda_intern(s, "@plt", 4);
			err = p.name ? 0 : PD_ERR_NOMEM;
		}
		if (err)
			return err;
		p.flags = PSYM_INTERNED;
		p.start = off;
		p.end = off + entsize;
		p.vaddr = pltsh.sh_addr + (off - pltsh.sh_offset);
		p.binding = STB_GLOBAL;
		p.type = STT_FUNC;
		err = add_node(s, t, &p, &idx);
		if (err == PD_ERR_UNSUPPORTED)
			break;
		if (err)
			return err;
		off += entsize;
	}
	return 0;
}

static int plt_add(struct pda_session *s, struct pda_symtab *t, uint64_t start,
		   uint64_t size, uint64_t vaddr, const char *name)
{
	if (!size)
		return 0;
	if (t->nr_plt == t->plt_alloc) {
		size_t want = t->plt_alloc ? t->plt_alloc * 2 : 64;
		struct pltent *v;

		if (t->nr_plt >= MAX_SYMS)
			return 0;
		v = pda_realloc(s, t->plt, want * sizeof(*v));
		if (!v)
			return PD_ERR_NOMEM;
		t->plt = v;
		t->plt_alloc = want;
	}
	t->plt[t->nr_plt].start = start;
	t->plt[t->nr_plt].end = start + size;
	t->plt[t->nr_plt].vaddr = vaddr;
	t->plt[t->nr_plt].name = name;
	t->nr_plt++;
	return 0;
}

static void plt_scn(struct pda_symtab *t, const GElf_Shdr *sh)
{
	if (t->nr_plt_scn < 3 && sh->sh_size) {
		t->plt_scn[t->nr_plt_scn].start = sh->sh_offset;
		t->plt_scn[t->nr_plt_scn].end = sh->sh_offset + sh->sh_size;
		t->nr_plt_scn++;
	}
}

static bool plt_sizes(const struct pda_elf *e, const GElf_Shdr *sh,
		      uint64_t *hdr, uint64_t *entsize)
{
	switch (e->machine) {
	case EM_ARM:
		*hdr = 20, *entsize = 12;
		return true;
	case EM_AARCH64:
	case 258: /* EM_LOONGARCH */
		*hdr = 32, *entsize = 16;
		return true;
	case EM_SPARC:
		*hdr = 48, *entsize = 12;
		return true;
	case EM_SPARCV9:
		*hdr = 128, *entsize = 32;
		return true;
	case EM_386:
	case EM_X86_64:
		*entsize = sh->sh_entsize;
		if (*entsize != 8 && *entsize != 16)
			*entsize = sh->sh_addralign == 8 ? 8 : 16;
		*hdr = *entsize;
		return true;
	default:
		*hdr = *entsize = sh->sh_entsize;
		return *entsize != 0;
	}
}

/*
 * The target of an x86-64 .plt.got or .plt.sec entry's "jmp *disp(%rip)"
 * (after an optional endbr64 and bnd prefix), as an offset from the
 * entry, or 0.
 */
static uint64_t x86_64_plt_disp(const unsigned char *p, size_t avail)
{
	static const unsigned char endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
	size_t n = 0;
	uint32_t disp;

	if (avail >= 4 && !memcmp(p, endbr64, 4))
		n += 4;
	if (n < avail && p[n] == 0xf2)
		n++;
	if (n + 6 > avail || p[n] != 0xff || p[n + 1] != 0x25)
		return 0;
	disp = (uint32_t)p[n + 2] | (uint32_t)p[n + 3] << 8 |
	       (uint32_t)p[n + 4] << 16 | (uint32_t)p[n + 5] << 24;
	return n + 6 + (uint64_t)disp;
}

/* .plt.got entries, named by the .rela.dyn relocation of their GOT slot. */
static int plt_got(struct pda_session *s, struct pda_symtab *t,
		   const struct pda_elf *e)
{
	GElf_Shdr sh, relsh, dynsh;
	Elf_Scn *scn = pda_elf_section(e, ".plt.got", &sh), *relscn, *dynscn;
	Elf_Data *code, *rel = NULL, *syms = NULL;
	size_t nr_rel = 0;
	int err;

	if (!scn || !sh.sh_entsize || sh.sh_type == SHT_NOBITS)
		return 0;
	plt_scn(t, &sh);
	code = elf_getdata(scn, NULL);
	if (e->machine == EM_X86_64) {
		relscn = pda_elf_section(e, ".rela.dyn", &relsh);
		if (relscn && relsh.sh_link && relsh.sh_entsize &&
		    relsh.sh_type == SHT_RELA) {
			dynscn = elf_getscn(e->elf, relsh.sh_link);
			if (dynscn && gelf_getshdr(dynscn, &dynsh) &&
			    dynsh.sh_link) {
				rel = elf_getdata(relscn, NULL);
				syms = elf_getdata(dynscn, NULL);
				nr_rel = relsh.sh_size / relsh.sh_entsize;
			}
		}
	}
	for (uint64_t i = 0; i < sh.sh_size; i += sh.sh_entsize) {
		const char *base = "", *name;
		uint64_t disp = 0;

		if (rel && syms && code && code->d_buf && i < code->d_size)
			disp = x86_64_plt_disp(
				(const unsigned char *)code->d_buf + i,
				code->d_size - i);
		if (disp) {
			/* the GOT slot, as perf compares it: an offset */
			uint64_t slot = sh.sh_offset + i + disp;

			for (size_t r = 0; r < nr_rel; r++) {
				GElf_Rela ra;

				if (!gelf_getrela(rel, (int)r, &ra))
					break;
				if (GELF_R_SYM(ra.r_info) &&
				    ra.r_offset == slot) {
					base = dynsym_name(e->elf, syms,
							   dynsh.sh_link,
							   (uint32_t)GELF_R_SYM(
								   ra.r_info));
					break;
				}
			}
		}
		err = intern_plt_name(s, base, sh.sh_offset + i, &name);
		if (!err)
			err = plt_add(s, t, sh.sh_offset + i, sh.sh_entsize,
				      sh.sh_addr + i, name);
		if (err)
			return err;
	}
	return 0;
}

/* An IRELATIVE entry's name: the IFUNC its addend (resolver) names. */
static const char *ifunc_name(const struct pda_symtab *t,
			      const struct pda_elf *e, unsigned type, bool rela,
			      int64_t addend)
{
	const struct pda_elf_seg *g;
	uint64_t key;
	uint32_t n;

	if (e->machine != EM_X86_64 || !rela || type != R_X86_64_IRELATIVE)
		return NULL;
	g = pda_elf_seg_of_vaddr(e, (uint64_t)addend);
	if (!g)
		return NULL;
	key = (uint64_t)addend - (g->vaddr - g->offset);
	n = tree_find(t, key);
	if (n == NIL || t->v[n].start != key ||
	    (t->v[n].type != STT_GNU_IFUNC &&
	     !(t->v[n].flags & PSYM_IFUNC_ALIAS)))
		return NULL;
	return t->v[n].name;
}

/* The PLT as perf 6.3 and later name it (dso__synthesize_plt_symbols). */
static int plt_current(struct pda_session *s, struct pda_symtab *t,
		       const struct pda_elf *e)
{
	GElf_Shdr pltsh, secsh, relsh, symsh;
	Elf_Scn *relscn, *symscn;
	uint64_t hdr, entsize, off, hdr_start, hdr_size;
	bool x86 = e->machine == EM_386 || e->machine == EM_X86_64;
	bool lazy;
	struct relinfo ri = {0};
	Elf_Data *syms;
	size_t dynidx = 0, symidx = 0, hdr_at;
	const char *plt_name;
	int err;

	if (!pda_elf_section(e, ".plt", &pltsh) || pltsh.sh_type == SHT_NOBITS)
		return 0;
	if (!plt_sizes(e, &pltsh, &hdr, &entsize))
		return 0;
	plt_scn(t, &pltsh);
	hdr_start = pltsh.sh_offset;
	hdr_size = hdr;
	if (x86) {
		err = plt_got(s, t, e);
		if (err)
			return err;
	}
	if (x86 && pda_elf_section(e, ".plt.sec", &secsh) &&
	    secsh.sh_type != SHT_NOBITS) {
		if (!plt_sizes(e, &secsh, &hdr, &entsize))
			return 0;
		plt_scn(t, &secsh);
		hdr_size = pltsh.sh_size;
		off = secsh.sh_offset;
		lazy = false;
	} else {
		off = pltsh.sh_offset;
		lazy = true;
	}
	plt_name = pda_intern(s, ".plt", 4);
	if (!plt_name)
		return PD_ERR_NOMEM;
	hdr_at = t->nr_plt;
	err = plt_add(s, t, hdr_start, hdr_size, pltsh.sh_addr, plt_name);
	if (err)
		return err;
	relscn = pda_elf_section(e, ".rela.plt", &relsh);
	if (!relscn)
		relscn = pda_elf_section(e, ".rel.plt", &relsh);
	if (!relscn || !relsh.sh_link || !relsh.sh_entsize ||
	    (relsh.sh_type != SHT_RELA && relsh.sh_type != SHT_REL))
		return 0;
	find_table(e->elf, SHT_DYNSYM, &symsh, &dynidx);
	find_table(e->elf, SHT_SYMTAB, &symsh, &symidx);
	/* a static executable's IFUNC .plt goes with .symtab */
	if (relsh.sh_link != dynidx && relsh.sh_link != symidx)
		return 0;
	symscn = elf_getscn(e->elf, relsh.sh_link);
	if (!symscn || !gelf_getshdr(symscn, &symsh))
		return 0;
	syms = elf_getdata(symscn, NULL);
	ri.data = elf_getdata(relscn, NULL);
	if (!syms || !ri.data)
		return 0;
	ri.rela = relsh.sh_type == SHT_RELA;
	ri.nr = relsh.sh_size / relsh.sh_entsize;
	if (lazy) {
		/* as many entries as relocations: not lazy, no header */
		if (ri.nr * entsize == pltsh.sh_size) {
			t->nr_plt = hdr_at;
		} else {
			off += hdr;
		}
	}
	/* x86 puts IRELATIVE relocations last, not in PLT order */
	if (x86 && ri.nr) {
		err = sort_by_slot(s, &ri);
		if (err)
			return err;
	}
	err = 0;
	for (size_t i = 0; i < ri.nr && !err; i++) {
		uint32_t sidx;
		uint64_t roff, secoff, secaddr;
		unsigned type;
		int64_t addend;
		const char *base, *name;

		if (!rel_get(&ri, i, &sidx, &roff, &type, &addend))
			break;
		base = dynsym_name(e->elf, syms, symsh.sh_link, sidx);
		if (!*base) {
			base = ifunc_name(t, e, type, ri.rela, addend);
			if (!base)
				base = "";
		}
		err = intern_plt_name(s, base, off, &name);
		if (err)
			break;
		secoff = lazy ? pltsh.sh_offset : secsh.sh_offset;
		secaddr = lazy ? pltsh.sh_addr : secsh.sh_addr;
		err = plt_add(s, t, off, entsize, secaddr + (off - secoff),
			      name);
		off += entsize;
	}
	pda_free(s, ri.order);
	return err;
}

static int cmp_plt(const void *a, const void *b)
{
	const struct pltent *pa = a, *pb = b;

	return pa->start < pb->start ? -1 : pa->start > pb->start;
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
	GElf_Shdr sh;
	Elf_Scn *scn;
	int err;

	t->root = NIL;
	/* perf does not demangle kernel modules' names */
	t->demangle = !pda_session_opts(s)->no_demangle && e->type != ET_REL;
	if (e->debug && find_table(e->debug->elf, SHT_SYMTAB, &sh, NULL))
		src = e->debug;
	scn = find_table(src->elf, SHT_SYMTAB, &sh, NULL);
	if (scn) {
		err = load_pass(s, t, e, src->elf, scn, &sh);
	} else {
		err = open_minidebug(s, t, e);
		if (!err && t->minidebug_elf) {
			scn = find_table(t->minidebug_elf, SHT_SYMTAB, &sh,
					 NULL);
			if (scn)
				err = load_pass(s, t, e, t->minidebug_elf, scn,
						&sh);
		}
	}
	if (err)
		return err;
	scn = find_table(src->elf, SHT_DYNSYM, &sh, NULL);
	if (scn) {
		err = load_pass(s, t, e, src->elf, scn, &sh);
		if (err)
			return err;
	}
	if (e->type == ET_REL)
		return 0;
	if (t->nr) {
		/* perf 6.1 adds its PLT symbols only to a loaded table */
		err = plt_perf61(s, t, e);
		if (err)
			return err;
	}
	err = plt_current(s, t, e);
	if (err)
		return err;
	qsort(t->plt, t->nr_plt, sizeof(*t->plt), cmp_plt);
	return 0;
}

static int load(struct pda_session *s, struct pda_elf *e)
{
	struct pda_symtab *t;
	int err;

	t = pda_zalloc(s, sizeof(*t));
	if (!t)
		return PD_ERR_NOMEM;
	err = build(s, e, t);
	if (err) {
		pda_symtab_free(s, t);
		if (err == PD_ERR_NOMEM)
			return err; /* may work next time */
		pda_logf(s, PD_LOG_WARN, "%s: symbols not read: %s", e->path,
			 pd_strerror(err));
		e->syms_state = err;
		return 0;
	}
	e->syms = t;
	e->syms_state = 1;
	return 0;
}

static const struct pltent *plt_find(const struct pda_symtab *t, uint64_t key,
				     bool *in_plt)
{
	size_t lo = 0, hi = t->nr_plt;

	*in_plt = false;
	for (size_t i = 0; i < t->nr_plt_scn; i++)
		if (key >= t->plt_scn[i].start && key < t->plt_scn[i].end)
			*in_plt = true;
	if (!*in_plt)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->plt[mid].start <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && key < t->plt[lo - 1].end)
		return &t->plt[lo - 1];
	return NULL;
}

static int lookup(struct pda_session *s, struct pda_elf *e, uint64_t vaddr,
		  bool perf61, const char **name, uint64_t *start,
		  uint64_t *size)
{
	const struct pda_symtab *t;
	const struct pltent *pe;
	struct psym *p;
	uint64_t key;
	uint32_t n;
	bool in_plt;

	if (!e->syms_state) {
		int err = load(s, e);

		if (err)
			return err;
	}
	t = e->syms;
	if (!t || pda_elf_vaddr_to_offset(e, vaddr, &key))
		return PD_ERR_NOTFOUND;
	pe = perf61 ? NULL : plt_find(t, key, &in_plt);
	if (pe) {
		*name = pe->name;
		*start = pe->vaddr;
		*size = pe->end - pe->start;
		return 0;
	}
	if (!perf61 && in_plt)
		return PD_ERR_NOTFOUND;
	n = tree_find(t, key);
	if (n == NIL)
		return PD_ERR_NOTFOUND;
	p = &e->syms->v[n];
	if (!(p->flags & PSYM_INTERNED)) {
		const char *in = pda_intern(s, p->name, strlen(p->name));

		if (!in)
			return PD_ERR_NOMEM;
		p->name = in;
		p->flags |= PSYM_INTERNED;
	}
	*name = p->name;
	*start = p->vaddr;
	*size = p->end - p->start;
	return 0;
}

int pda_elf_symbol(struct pda_session *s, struct pda_elf *e, uint64_t vaddr,
		   const char **name, uint64_t *start, uint64_t *size)
{
	return lookup(s, e, vaddr, false, name, start, size);
}

int pda_elf_symbol_perf61(struct pda_session *s, struct pda_elf *e,
			  uint64_t vaddr, const char **name, uint64_t *start,
			  uint64_t *size)
{
	return lookup(s, e, vaddr, true, name, start, size);
}
