/*
 * pda_unwind_libunwind.c - the libunwind unwinder backend (--unwinder
 * libunwind), beside libdw's: libunwind's remote API over the sample's
 * registers and stack dump, as perf's util/unwind-libunwind-local.c
 * drives it, with its address space and caches kept per process instead
 * of per thread and rebuilt on nothing but a change of maps.
 *
 * Native only: Debian's libunwind-dev ships the library of the host's own
 * target (libunwind-x86_64 on x86_64) and no cross-target one, so this
 * backend unwinds x86_64 captures on an x86_64 build and nothing else;
 * other targets keep their leaf, stopped "architecture not supported"
 * (counted in fold --stats), where libdw unwinds them all.  libunwind's
 * x86_64 register numbers are the DWARF ones, so pda_unwind_arch's
 * perf_of_dwarf maps them.
 *
 * libunwind reads everything through the accessors below: registers from
 * the sample, memory from the stack dump, else from the bytes pda_elf
 * mapped (pda_unwind_read), and the unwind tables from find_proc_info.
 * That finds, per binary a process maps (struct lu_dso, kept until its
 * map changes), the binary search table of .eh_frame_hdr, and hands it
 * to libunwind's dwarf_search_unwind_table.  A binary without one (static
 * executables linked without --eh-frame-hdr, which perf's libunwind
 * cannot unwind) gets the same table built here from its .eh_frame, and
 * libunwind reads it at an address no user map can have (SYNTH_BASE,
 * non-canonical on x86_64).  .eh_frame_hdr, .eh_frame and that table are
 * read from the binary's sections whether or not a map covers them: perf
 * records only executable maps, and .eh_frame often sits in a read-only
 * segment of its own.  .debug_frame is not read: Debian builds libunwind
 * for x86_64 without its .debug_frame support, and where a binary's
 * .eh_frame lacks a pc that libdw finds in .debug_frame the two backends
 * differ (the unwind stops "no CFI for the pc" here).
 *
 * The policy is libdw's, so that the two backends give the same stacks
 * and stop for the same reasons; libunwind only runs the CFI:
 *
 *   - a frame's pc is exact when it or the frame below it is a signal
 *     frame, else less 1 (perf's libunwind code subtracts 1 from the
 *     interrupted frame's too);
 *   - libunwind's own guesses when the CFI fails (x86_64 unw_step follows
 *     rbp, or takes [rsp] for the return address when the pc it unwound
 *     to is not readable) are kept out: find_proc_info answers "stop"
 *     (UNW_ESTOPUNWIND), not "no info", which is what lets unw_step
 *     guess;
 *   - instead, where no CFI covers a frame's pc, the frame-pointer step
 *     elfutils' x86_64 backend
 *     takes (x86_64_unwind.c) is taken here: the return address at
 *     [rbp + 8], the caller's rbp at [rbp], its sp rbp + 16, every other
 *     register unknown; not when rbp is 0 or the sp would not grow.  The
 *     cursor then starts over from those registers, its pc looked up less
 *     1 like any caller's;
 *   - a read the CFI needs that fails (a return address past the end of
 *     the stack dump, mostly) ends the unwind there, as libdw ends it,
 *     and the stop says why.
 */
#include "pda_unwind_int.h"
#include "pdc_cur.h"

#include <elf.h>
#include <libunwind.h>
#include <stdlib.h>
#include <string.h>

#define DSOS_MAX ((size_t)1 << 16)
#define SYNTH_BASE (1ull << 63)	 /* synthesized tables: never a user address */
#define SYNTH_STRIDE (1ull << 35) /* apart, per binary: room for 2^32 FDEs */
#define TABLE_MAX ((size_t)1 << 26) /* FDEs indexed in one binary at most */

/* DW_EH_PE_*: how .eh_frame and .eh_frame_hdr encode a pointer */
#define EH_PE_OMIT 0xff
#define EH_PE_FORMAT 0x0f
#define EH_PE_APPL 0x70
#define EH_PE_PCREL 0x10
#define EH_PE_DATAREL 0x30
#define EH_PE_TABLE (EH_PE_DATAREL | 0x0b) /* datarel sdata4 */

/* Not in libunwind's headers, but exported, as perf declares it. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as,
					      unw_word_t ip,
					      unw_dyn_info_t *di,
					      unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

/* Target addresses [start, end) that read from bytes; avail >= end -
 * start bytes are there, so that a word read at the end still fits. */
struct lu_range {
	uint64_t start, end;
	const unsigned char *bytes;
	uint64_t avail;
};

/* A binary as the process maps it, with its unwind table. */
struct lu_dso {
	uint64_t anchor; /* the start of the map it was found for */
	struct pda_dso_ent *dso;
	struct pda_elf *elf;
	uint64_t bias;	 /* load address - ELF vaddr */
	uint64_t lo, hi; /* its loaded span, as loaded */
	bool has_table;
	unw_dyn_info_t di;
	struct lu_range ranges[3]; /* .eh_frame_hdr, .eh_frame, the table */
	unsigned nr_ranges;
	unsigned char *table;	   /* synthesized; NULL: .eh_frame_hdr's */
};

struct pda_unwind_proc {
	struct pda_session *s;
	const struct pda_unwind_arch *arch;
	bool unsupported; /* not the target libunwind was built for */
	unw_addr_space_t as;
	struct lu_dso **dsos;
	size_t nr_dsos, dsos_alloc;
	uint64_t next_synth; /* slots at SYNTH_BASE handed out */
	const struct lu_range *last_range; /* the last read's: most repeat */
	/* the unwind under way */
	const struct pda_unwind_req *req;
	bool fp_regs;	  /* access_reg serves fp_{ip,sp,bp}, not req's */
	uint64_t fp_ip, fp_sp, fp_bp;
	uint64_t caller_ip; /* look it up less 1 (a frame-pointer step's) */
	bool faulted; /* a memory read failed in the last step */
	unsigned fault;
	int err;      /* NOMEM inside a callback */
};

/* ---- .eh_frame ------------------------------------------------------ */

/* A cursor over a section's bytes, at link-time address vaddr + pos. */
struct eh_cur {
	const unsigned char *p;
	uint64_t size, pos, vaddr;
};

static bool eh_uint(struct eh_cur *c, unsigned size, uint64_t *val)
{
	uint64_t v = 0;

	if (c->size - c->pos < size)
		return false;
	for (unsigned i = 0; i < size; i++) /* little-endian: x86_64 */
		v |= (uint64_t)c->p[c->pos + i] << (8 * i);
	c->pos += size;
	*val = v;
	return true;
}

static bool eh_leb(struct eh_cur *c, bool is_signed, uint64_t *val)
{
	struct pdc_cur cur;
	int64_t sv;
	bool ok;

	pdc_cur_init(&cur, c->p + c->pos, (size_t)(c->size - c->pos), 0);
	if (is_signed) {
		ok = pdc_cur_sleb(&cur, &sv);
		if (ok)
			*val = (uint64_t)sv;
	} else {
		ok = pdc_cur_uleb(&cur, val);
	}
	c->pos += pdc_cur_pos(&cur);
	return ok;
}

/* An encoded pointer as a link-time address (absolute or pc-relative;
 * datarel and the rest are not used for code addresses on x86_64). */
static bool eh_ptr(struct eh_cur *c, unsigned enc, uint64_t *val)
{
	const uint64_t at = c->vaddr + c->pos;
	uint64_t v;
	bool ok;

	switch (enc & EH_PE_FORMAT) {
	case 0x00: /* absptr */
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
		ok = eh_uint(c, 8, &v);
		break;
	case 0x01: /* uleb128 */
		ok = eh_leb(c, false, &v);
		break;
	case 0x09: /* sleb128 */
		ok = eh_leb(c, true, &v);
		break;
	case 0x02: /* udata2 */
		ok = eh_uint(c, 2, &v);
		break;
	case 0x0a: /* sdata2 */
		ok = eh_uint(c, 2, &v);
		v = (uint64_t)(int64_t)(int16_t)v;
		break;
	case 0x03: /* udata4 */
		ok = eh_uint(c, 4, &v);
		break;
	case 0x0b: /* sdata4 */
		ok = eh_uint(c, 4, &v);
		v = (uint64_t)(int64_t)(int32_t)v;
		break;
	default:
		return false;
	}
	if (!ok)
		return false;
	switch (enc & EH_PE_APPL) {
	case 0:
		break;
	case EH_PE_PCREL:
		v += at;
		break;
	default:
		return false;
	}
	*val = v;
	return true;
}

/* The FDE pointer encoding of the CIE at off ('R' in its augmentation;
 * absptr without one), or -1. */
static int cie_fde_enc(const struct eh_cur *sec, uint64_t off)
{
	struct eh_cur c = *sec;
	const char *aug;
	uint64_t len, id, v, aug_len;
	unsigned version;
	int enc = 0;

	c.pos = off;
	if (!eh_uint(&c, 4, &len) || len == 0xffffffff || !eh_uint(&c, 4, &id) ||
	    id != 0 || c.pos >= c.size)
		return -1;
	version = c.p[c.pos++];
	aug = (const char *)c.p + c.pos;
	if (!memchr(aug, 0, c.size - c.pos))
		return -1;
	c.pos += strlen(aug) + 1;
	if (aug[0] != 'z')
		return aug[0] ? -1 : 0; /* "": no augmentation data */
	if (!eh_leb(&c, false, &v) || !eh_leb(&c, true, &v))
		return -1;
	if (version == 1 ? !eh_uint(&c, 1, &v) : !eh_leb(&c, false, &v))
		return -1;
	if (!eh_leb(&c, false, &aug_len))
		return -1;
	for (const char *a = aug + 1; *a; a++) {
		unsigned pe;

		switch (*a) {
		case 'R':
			if (!eh_uint(&c, 1, &v))
				return -1;
			enc = (int)v;
			break;
		case 'L':
			if (!eh_uint(&c, 1, &v))
				return -1;
			break;
		case 'P':
			if (!eh_uint(&c, 1, &v))
				return -1;
			pe = (unsigned)v;
			/* skip the personality pointer, whatever applies */
			if (!eh_ptr(&c, pe & EH_PE_FORMAT, &v))
				return -1;
			break;
		case 'S':
		case 'B':
			break;
		default:
			return -1; /* data of unknown size: cannot go on */
		}
	}
	return enc;
}

struct table_ent {
	int32_t start, fde; /* libunwind's struct table_entry */
};

static int cmp_ent(const void *a, const void *b)
{
	const struct table_ent *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/*
 * The binary search table .eh_frame_hdr would hold, for an .eh_frame at
 * link-time sec_vaddr: entries (FDE start - lo, FDE address - sec_vaddr),
 * sorted, in *out (pda_malloc'd, 8 spare bytes at the end) and their
 * number in *nr.  FDEs that do not fit an int32 offset are left out.
 * @return 0 or NOMEM.
 */
static int index_eh_frame(struct pda_session *s, const unsigned char *bytes,
			  uint64_t size, uint64_t sec_vaddr, uint64_t lo,
			  unsigned char **out, size_t *nr_out)
{
	struct eh_cur sec = {bytes, size, 0, sec_vaddr};
	struct table_ent *v = NULL;
	size_t nr = 0, alloc = 0;
	uint64_t off = 0;
	/* the last CIE looked at: FDEs share a few */
	uint64_t cie_off = UINT64_MAX;
	int enc = -1;

	*out = NULL;
	*nr_out = 0;
	while (off + 8 <= size) {
		struct eh_cur c = sec;
		uint64_t len, id, start, range, end;

		c.pos = off;
		if (!eh_uint(&c, 4, &len) || len == 0)
			break; /* the terminator */
		if (len == 0xffffffff || len > size - c.pos)
			break; /* 64-bit DWARF: not in .eh_frame on x86_64 */
		end = c.pos + len;
		if (!eh_uint(&c, 4, &id))
			break;
		if (id != 0 && id <= c.pos - 4) { /* an FDE: id is the CIE's
						   * distance back */
			uint64_t cie = c.pos - 4 - id;

			if (cie != cie_off) {
				cie_off = cie;
				enc = cie_fde_enc(&sec, cie);
			}
			c.size = end;
			if (enc >= 0 && eh_ptr(&c, (unsigned)enc, &start) &&
			    eh_ptr(&c, (unsigned)enc & EH_PE_FORMAT, &range) &&
			    range && start >= lo && start - lo < INT32_MAX &&
			    off < INT32_MAX) {
				if (PDA_GROW(s, v, alloc, nr + 1, TABLE_MAX) < 0) {
					pda_free(s, v);
					return PD_ERR_NOMEM;
				}
				v[nr].start = (int32_t)(start - lo);
				v[nr].fde = (int32_t)off;
				nr++;
			}
		}
		off = end;
	}
	if (!nr) {
		pda_free(s, v);
		return 0;
	}
	qsort(v, nr, sizeof(*v), cmp_ent);
	/* a spare entry: libunwind reads whole words */
	if (PDA_GROW(s, v, alloc, nr + 1, TABLE_MAX + 1) < 0) {
		pda_free(s, v);
		return PD_ERR_NOMEM;
	}
	memset(&v[nr], 0, sizeof(v[nr]));
	*out = (unsigned char *)v;
	*nr_out = nr;
	return 0;
}

/* ---- binaries ------------------------------------------------------- */

static void add_range(struct lu_dso *d, uint64_t start, uint64_t size,
		      const unsigned char *bytes, uint64_t avail)
{
	struct lu_range *r = &d->ranges[d->nr_ranges++];

	r->start = start;
	r->end = start + size;
	r->bytes = bytes;
	r->avail = avail;
}

/*
 * d's unwind table: .eh_frame_hdr's binary search table where it has the
 * one encoding libunwind reads (datarel sdata4), else one built from
 * .eh_frame.  None (no .eh_frame): d->has_table stays false.
 */
static int find_table(struct pda_unwind_proc *p, struct lu_dso *d)
{
	uint64_t hdr_vaddr, hdr_off, hdr_size, eh_vaddr, eh_off, eh_size;
	const unsigned char *image;
	size_t image_size, nr = 0;
	bool has_hdr, has_eh;
	int rc;

	image = pda_elf_image(d->elf, &image_size);
	if (!image)
		return 0;
	has_hdr = pda_elf_section_at(d->elf, ".eh_frame_hdr", &hdr_vaddr,
				     &hdr_off, &hdr_size) == 0;
	has_eh = pda_elf_section_at(d->elf, ".eh_frame", &eh_vaddr, &eh_off,
				    &eh_size) == 0;
	if (has_eh)
		add_range(d, eh_vaddr + d->bias, eh_size, image + eh_off,
			  image_size - eh_off);
	if (has_hdr && hdr_size >= 4 && image[hdr_off] == 1 &&
	    image[hdr_off + 3] == EH_PE_TABLE &&
	    image[hdr_off + 2] != EH_PE_OMIT) {
		struct eh_cur c = {image + hdr_off, hdr_size, 4, hdr_vaddr};
		uint64_t eh_ptr_val, fde_count;

		if (eh_ptr(&c, image[hdr_off + 1], &eh_ptr_val) &&
		    eh_ptr(&c, image[hdr_off + 2], &fde_count) && fde_count &&
		    fde_count <= (hdr_size - c.pos) / 8) {
			add_range(d, hdr_vaddr + d->bias, hdr_size,
				  image + hdr_off, image_size - hdr_off);
			d->di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
			d->di.u.rti.segbase = hdr_vaddr + d->bias;
			d->di.u.rti.table_data = hdr_vaddr + d->bias + c.pos;
			/* in words: 8-byte entries */
			d->di.u.rti.table_len =
				fde_count * sizeof(struct table_ent) /
				sizeof(unw_word_t);
			d->has_table = true;
			return 0;
		}
	}
	if (!has_eh)
		return 0;
	rc = index_eh_frame(p->s, image + eh_off, eh_size, eh_vaddr,
			    d->lo - d->bias, &d->table, &nr);
	if (rc < 0 || !nr)
		return rc;
	/* starts relative to di.start_ip, FDEs to segbase (.eh_frame) */
	d->di.format = UNW_INFO_FORMAT_IP_OFFSET;
	d->di.u.rti.segbase = eh_vaddr + d->bias;
	d->di.u.rti.table_data = SYNTH_BASE + p->next_synth++ * SYNTH_STRIDE;
	d->di.u.rti.table_len = nr * sizeof(struct table_ent) /
				sizeof(unw_word_t);
	add_range(d, d->di.u.rti.table_data, nr * sizeof(struct table_ent),
		  d->table, (nr + 1) * sizeof(struct table_ent));
	d->has_table = true;
	return 0;
}

static void dso_free(struct pda_session *s, struct lu_dso *d)
{
	pda_free(s, d->table);
	pda_free(s, d);
}

/* The binary mapped at ip, found and set up on first use; NULL when no
 * binary is (anonymous memory, missing file). */
static int dso_at(struct pda_unwind_proc *p, uint64_t ip, struct lu_dso **out)
{
	struct pda_session *s = p->s;
	const struct pda_map *map;
	struct pda_elf *e;
	struct lu_dso *d;
	uint64_t lo, hi, bias;
	int rc;

	*out = NULL;
	for (size_t i = 0; i < p->nr_dsos; i++)
		if (ip >= p->dsos[i]->lo && ip < p->dsos[i]->hi) {
			*out = p->dsos[i];
			return 0;
		}
	map = pda_maps_lookup(p->req->maps, ip);
	if (!map || (map->kind != PDA_MAP_FILE && map->kind != PDA_MAP_VDSO))
		return 0;
	rc = pda_unwind_dso_elf(s, map->dso, &e);
	if (rc < 0 || !e)
		return rc;
	if (pda_elf_map_bias(e, map->start, map->pgoff, &bias) < 0 ||
	    pda_elf_load_span(e, &lo, &hi) < 0 || ip < lo + bias ||
	    ip >= hi + bias)
		return 0;
	if (PDA_GROW(s, p->dsos, p->dsos_alloc, p->nr_dsos + 1, DSOS_MAX) < 0)
		return PD_ERR_NOMEM;
	d = pda_zalloc(s, sizeof(*d));
	if (!d)
		return PD_ERR_NOMEM;
	d->anchor = map->start;
	d->dso = map->dso;
	d->elf = e;
	d->bias = bias;
	d->lo = lo + bias;
	d->hi = hi + bias;
	rc = find_table(p, d);
	if (rc < 0) {
		dso_free(s, d);
		return rc;
	}
	d->di.start_ip = d->lo;
	d->di.end_ip = d->hi;
	d->di.gp = 0;
	p->dsos[p->nr_dsos++] = d;
	*out = d;
	return 0;
}

static void drop_dsos(struct pda_unwind_proc *p)
{
	for (size_t i = 0; i < p->nr_dsos; i++)
		dso_free(p->s, p->dsos[i]);
	p->nr_dsos = 0;
	p->last_range = NULL;
	unw_flush_cache(p->as, 0, 0);
}

static void maps_changed(struct pda_session *s, struct pda_unwind_proc *p,
			 const struct pda_maps *maps)
{
	(void)s;
	for (size_t i = 0; i < p->nr_dsos; i++) {
		const struct lu_dso *d = p->dsos[i];

		if (!pda_unwind_still_mapped(maps, d->anchor, d->dso,
					     d->elf, d->bias)) {
			/* libunwind's caches know nothing of maps: all go */
			drop_dsos(p);
			return;
		}
	}
}

/* ---- libunwind's accessors ------------------------------------------ */

static int find_proc_info(unw_addr_space_t as, unw_word_t ip,
			  unw_proc_info_t *pi, int need_unwind_info, void *arg)
{
	struct pda_unwind_proc *p = arg;
	struct lu_dso *d;
	int rc;

	/* a frame-pointer step's return address, as libunwind's first frame */
	if (p->caller_ip && ip == p->caller_ip)
		ip--;
	rc = dso_at(p, ip, &d);
	if (rc < 0) {
		p->err = rc;
		return -UNW_ENOMEM;
	}
	if (!d || !d->has_table)
		return -UNW_ESTOPUNWIND;
	rc = UNW_OBJ(dwarf_search_unwind_table)(as, ip, &d->di, pi,
						need_unwind_info, arg);
	/* not ENOINFO: unw_step would guess (see the top) */
	return rc == -UNW_ENOINFO ? -UNW_ESTOPUNWIND : rc;
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi,
			    void *arg)
{
	(void)as;
	(void)pi;
	(void)arg;
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr,
				  void *arg)
{
	(void)as;
	(void)addr;
	(void)arg;
	return -UNW_ENOINFO; /* no JIT registration in a capture */
}

static bool range_read(const struct lu_range *r, uint64_t addr, uint64_t *val)
{
	if (addr < r->start || addr >= r->end || addr - r->start > r->avail ||
	    r->avail - (addr - r->start) < sizeof(*val))
		return false;
	memcpy(val, r->bytes + (addr - r->start), sizeof(*val));
	return true;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp,
		      int write, void *arg)
{
	struct pda_unwind_proc *p = arg;
	const struct pda_unwind_req *req = p->req;
	uint64_t val;
	unsigned why = PDA_UNWIND_BAD_ADDR;
	int rc;

	(void)as;
	if (write)
		return -UNW_EINVAL;
	/* the stack first: most reads, then the binaries' sections */
	if (addr >= req->sp && addr - req->sp < req->stack_size &&
	    req->stack_size - (addr - req->sp) >= sizeof(val)) {
		memcpy(valp, req->stack + (addr - req->sp), sizeof(val));
		return 0;
	}
	if (p->last_range && range_read(p->last_range, addr, &val)) {
		*valp = val;
		return 0;
	}
	for (size_t i = 0; i < p->nr_dsos; i++)
		for (unsigned j = 0; j < p->dsos[i]->nr_ranges; j++)
			if (range_read(&p->dsos[i]->ranges[j], addr, &val)) {
				p->last_range = &p->dsos[i]->ranges[j];
				*valp = val;
				return 0;
			}
	rc = pda_unwind_read(p->s, req, addr, sizeof(val), &val, &why);
	if (rc > 0) {
		*valp = val;
		return 0;
	}
	if (rc < 0)
		p->err = rc;
	p->faulted = true;
	p->fault = why;
	return -UNW_EINVAL;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *valp,
		      int write, void *arg)
{
	const struct pda_unwind_proc *p = arg;
	const struct pda_unwind_arch *a = p->arch;
	uint64_t val;

	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	if (p->fp_regs) {
		/* after a frame-pointer step: these three, nothing else */
		if (reg != UNW_REG_IP && reg != UNW_REG_SP &&
		    reg != UNW_X86_64_RBP)
			return -UNW_EBADREG;
		*valp = reg == UNW_REG_IP   ? p->fp_ip
			: reg == UNW_REG_SP ? p->fp_sp
					    : p->fp_bp;
		return 0;
	}
	if (reg == UNW_REG_IP) {
		*valp = p->req->pc;
		return 0;
	}
	if (reg == UNW_REG_SP) {
		*valp = p->req->sp;
		return 0;
	}
	/* libunwind's x86_64 numbers are DWARF's */
	if (reg < 0 || (unsigned)reg >= a->nr_dwarf ||
	    a->perf_of_dwarf[reg] < 0 ||
	    !pda_unwind_reg(p->req->regs, (unsigned)a->perf_of_dwarf[reg],
			    &val))
		return -UNW_EBADREG;
	*valp = val;
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg,
			unw_fpreg_t *val, int write, void *arg)
{
	(void)as;
	(void)reg;
	(void)val;
	(void)write;
	(void)arg;
	return -UNW_EBADREG; /* perf samples none */
}

static int resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as;
	(void)c;
	(void)arg;
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf,
			 size_t len, unw_word_t *off, void *arg)
{
	(void)as;
	(void)addr;
	(void)buf;
	(void)len;
	(void)off;
	(void)arg;
	return -UNW_ENOINFO; /* symbols are pda_elf's business */
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

/* ---- the backend ---------------------------------------------------- */

static int proc_new(struct pda_session *s, const struct pda_unwind_arch *arch,
		    struct pda_unwind_proc **out)
{
	struct pda_unwind_proc *p;

	*out = NULL;
	p = pda_zalloc(s, sizeof(*p));
	if (!p)
		return PD_ERR_NOMEM;
	p->s = s;
	p->arch = arch;
#ifdef UNW_TARGET_X86_64
	p->unsupported = arch->e_machine != EM_X86_64;
#else
	p->unsupported = true;
#endif
	if (p->unsupported) {
		pda_logf(s, PD_LOG_DEBUG,
			 "unwind: libunwind here unwinds x86_64 only, not %s",
			 arch->name);
		*out = p;
		return 0;
	}
	p->as = unw_create_addr_space(&accessors, 0);
	if (!p->as) {
		pda_free(s, p);
		return PD_ERR_NOMEM;
	}
	/* one process's samples go to one worker at a time: the cache is
	 * the address space's, not a thread's */
	unw_set_caching_policy(p->as, UNW_CACHE_GLOBAL);
	*out = p;
	return 0;
}

static void proc_free(struct pda_session *s, struct pda_unwind_proc *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_dsos; i++)
		dso_free(s, p->dsos[i]);
	if (p->as)
		unw_destroy_addr_space(p->as);
	pda_free(s, p->dsos);
	pda_free(s, p);
}

/* Whether the binary at pc has an FDE for it. */
static bool cfi_there(struct pda_unwind_proc *p, uint64_t pc)
{
	unw_proc_info_t pi;

	memset(&pi, 0, sizeof(pi));
	return find_proc_info(p->as, pc, &pi, 0, p) == 0;
}

/*
 * elfutils' x86_64 frame-pointer step from the frame at cursor c: the
 * caller's registers in p->fp_*.  @return false where libdw's returns
 * false (rbp unknown or 0, the return address unreadable, sp not grown).
 */
static bool fp_step(struct pda_unwind_proc *p, unw_cursor_t *c)
{
	unw_word_t bp, sp, prev_bp, ret;
	unw_addr_space_t as = p->as;

	if (unw_get_reg(c, UNW_X86_64_RBP, &bp) < 0 || bp == 0)
		return false;
	if (unw_get_reg(c, UNW_REG_SP, &sp) < 0)
		sp = 0;
	if (access_mem(as, bp, &prev_bp, 0, p) < 0)
		prev_bp = 0;
	if (bp > UINT64_MAX - 16 || access_mem(as, bp + 8, &ret, 0, p) < 0 ||
	    sp >= bp + 16)
		return false;
	p->fp_ip = ret;
	p->fp_sp = bp + 16;
	p->fp_bp = prev_bp;
	return true;
}

static int unwind(struct pda_session *s, struct pda_unwind_proc *p,
		  const struct pda_unwind_req *req, struct pda_unwind_res *res)
{
	unw_cursor_t c, prev;
	uint64_t last_pc = req->pc;
	bool sig;
	unsigned why;
	int ret, rc;

	res->nr = 0;
	res->ips[res->nr++] = req->pc; /* the leaf, as perf takes it */
	res->stop_pc = req->pc;
	if (p->unsupported) {
		res->stop = PDA_UNWIND_NO_ARCH;
		return 0;
	}
	p->req = req;
	p->err = 0;
	p->faulted = false;
	p->fp_regs = false;
	p->caller_ip = 0;
	ret = unw_init_remote(&c, p->as, p);
	sig = ret == 0 && unw_is_signal_frame(&c) > 0;
	while (ret == 0 && res->nr < req->max_frames && !p->err) {
		unw_word_t ip;
		bool next_sig;

		prev = c;
		p->faulted = false;
		ret = unw_step(&c);
		if (ret == 0 || p->err)
			break; /* the end, or out of memory */
		if (ret < 0) {
			/* no CFI: libdw's frame-pointer step; a read that
			 * failed (the return address past the dump): the
			 * end, as libdw takes an unreadable one */
			if (p->faulted || !fp_step(p, &prev))
				break;
			p->fp_regs = true;
			p->caller_ip = p->fp_ip;
			ret = unw_init_remote(&c, p->as, p);
			if (ret < 0)
				break;
		} else {
			ret = 0;
			p->caller_ip = 0;
		}
		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0) {
			ret = -1;
			break;
		}
		/* libdw's activation: exact when this frame or the one
		 * below is a signal frame */
		next_sig = unw_is_signal_frame(&c) > 0;
		last_pc = sig || next_sig || !ip ? ip : ip - 1;
		sig = next_sig;
		if (last_pc)
			res->ips[res->nr++] = last_pc;
	}
	p->req = NULL;
	if (p->err)
		return p->err;
	res->stop_pc = last_pc;
	if (res->nr >= req->max_frames) {
		res->stop = PDA_UNWIND_MAX_FRAMES;
		return 0;
	}
	if (ret == 0) {
		res->stop = PDA_UNWIND_END;
		return 0;
	}
	rc = pda_unwind_classify(s, req, last_pc, &why);
	if (rc < 0)
		return rc;
	if (why == PDA_UNWIND_NR_STOPS) {
		const bool faulted = p->faulted;
		const unsigned fault = p->fault;

		p->req = req;
		p->caller_ip = 0;
		if (!cfi_there(p, last_pc))
			why = PDA_UNWIND_NO_CFI;
		else
			why = faulted ? fault : PDA_UNWIND_BAD_CFI;
		p->req = NULL;
		if (p->err)
			return p->err;
	}
	res->stop = why;
	return 0;
}

const struct pda_unwind_backend pda_unwind_libunwind = {
	.name = "libunwind",
	.proc_new = proc_new,
	.proc_free = proc_free,
	.maps_changed = maps_changed,
	.unwind = unwind,
};
