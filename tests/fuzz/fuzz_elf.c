/*
 * fuzz_elf.c - libFuzzer target for symbol resolution and DWARF
 * unwinding over hostile ELF bytes in memory (analyze/symbols,
 * analyze/unwind), through pda_elf_open_image() (STYLE T7).
 *
 * The input is an ELF file, optionally followed by a trailer saying how
 * to use it (below).  A session over a capture built in memory maps the
 * file's PT_LOAD segments into a process as a loader would, its binary
 * the input, and reads two samples as `pdtool fold` does: one whose
 * callchain holds every address below (symbols, inlined frames, source
 * lines), and one with user registers and a stack dump, unwound with
 * libdw or libunwind.  Then each address goes through the ELF handle's
 * own lookups: symbol (perf's rules and addr2line's), inline chains,
 * source line, code bytes, Thumb, and the file's build-id, debuglink,
 * sections and load span.  The addresses: the entry point and the middle
 * of the first function symbols (as libelf reads them), evenly spaced
 * ones over the load span, and the trailer's.
 *
 * Properties, beyond no crash or sanitizer report: every call returns
 * one of its documented codes; a lookup asked twice answers the same; a
 * resolved callchain's frames are its addresses, a frame has a symbol
 * unless it says it has none, its strings are readable; code bytes lie
 * in the image.  Every allocation of the session goes through failing
 * hooks (fuzz_with_oom): a failure is reported, and nothing leaks.
 *
 * The trailer, TRAILER_SIZE bytes at the end, little-endian, ending in
 * TRAILER_MAGIC (tests/fuzz/mkseed_elf.py writes one from a sample of
 * testdata/dwarf.perf.data):
 *
 *	u64 base		where an ET_DYN image is mapped
 *	u64 vaddrs[8]		more addresses to resolve (ELF vaddrs; 0: none)
 *	u64 mask		the sample's sample_regs_user
 *	u64 regs[33]		its registers, in mask's bit order
 *	u64 stack_size		bytes of stack dump just before the trailer
 *	u64 flags		1: libunwind, 2: no inlined frames, 4: srclines
 *	char magic[8]
 */
#include "fuzz.h"

#include "pda_unwind_int.h"

#include <elf.h>
#include <string.h>

#define TRAILER_MAGIC "PDFZELF1"
#define NR_VADDRS 8
#define NR_REGS 33
#define TRAILER_SIZE (8 * (1 + NR_VADDRS + 1 + NR_REGS + 1 + 1 + 1))
#define MAX_STACK_DUMP 8192
#define DEFAULT_BASE 0x555555554000ull
#define PID 100
#define SPAN_POINTS 8
#define MAX_ADDRS (FUZZ_ELF_MAX_FUNCS + NR_VADDRS + SPAN_POINTS)
#define MAX_FRAMES 32

enum { FLAG_LIBUNWIND = 1, FLAG_NO_INLINE = 2, FLAG_SRCLINE = 4 };

struct params {
	bool trailer;
	uint64_t base;
	uint64_t vaddrs[NR_VADDRS];
	uint64_t mask;
	uint64_t regs[NR_REGS];
	const uint8_t *stack;
	uint64_t stack_size;
	uint64_t flags;
};

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void read_params(const uint8_t *data, size_t size, struct params *pr)
{
	const uint8_t *t;

	memset(pr, 0, sizeof(*pr));
	pr->base = DEFAULT_BASE;
	pr->flags = fuzz_hash(data, size) & (FLAG_NO_INLINE | FLAG_SRCLINE);
	if (size < TRAILER_SIZE ||
	    memcmp(data + size - 8, TRAILER_MAGIC, 8) != 0)
		return;
	t = data + size - TRAILER_SIZE;
	pr->trailer = true;
	pr->base = le64(t);
	t += 8;
	for (int i = 0; i < NR_VADDRS; i++, t += 8)
		pr->vaddrs[i] = le64(t);
	pr->mask = le64(t);
	t += 8;
	for (int i = 0; i < NR_REGS; i++, t += 8)
		pr->regs[i] = le64(t);
	pr->stack_size = le64(t) & ~(uint64_t)7;
	t += 8;
	pr->flags = le64(t);
	if (pr->stack_size > MAX_STACK_DUMP ||
	    pr->stack_size > size - TRAILER_SIZE)
		pr->stack_size = 0;
	pr->stack = data + size - TRAILER_SIZE - pr->stack_size;
}

/* The addresses to resolve, ELF vaddrs. */
static size_t pick_addrs(const struct fuzz_elf_info *inf,
			 const struct params *pr, uint64_t *out)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t nr = 0;

	for (size_t i = 0; i < inf->nr_funcs; i++)
		out[nr++] = inf->funcs[i];
	for (int i = 0; i < NR_VADDRS; i++)
		if (pr->vaddrs[i])
			out[nr++] = pr->vaddrs[i];
	for (size_t i = 0; i < inf->nr_segs; i++) {
		if (inf->segs[i].vaddr < lo)
			lo = inf->segs[i].vaddr;
		if (inf->segs[i].vaddr + inf->segs[i].memsz > hi)
			hi = inf->segs[i].vaddr + inf->segs[i].memsz;
	}
	for (int i = 0; i < SPAN_POINTS && lo < hi; i++)
		out[nr++] = lo + (hi - lo) / SPAN_POINTS * (uint64_t)i;
	return nr;
}

/* A sample of the attr fuzz_session_begin() got: ip, tid, period, a
 * callchain, user registers (abi 0: none), a stack dump. */
static void write_sample(struct tf *t, uint64_t ip, const uint64_t *cc,
			 size_t nr_cc, const struct params *pr, bool regs,
			 bool is64)
{
	tf_begin(t, PD_REC_SAMPLE, PD_MISC_USER);
	tf_u64(t, ip);
	tf_u32(t, PID);
	tf_u32(t, PID);
	tf_u64(t, 1);
	tf_u64(t, nr_cc);
	for (size_t i = 0; i < nr_cc; i++)
		tf_u64(t, cc[i]);
	if (!regs) {
		tf_u64(t, 0); /* abi: no registers */
		tf_u64(t, 0); /* no stack dump */
	} else {
		tf_u64(t, is64 ? 2 : 1);
		for (int i = 0; i < __builtin_popcountll(pr->mask); i++)
			tf_u64(t, i < NR_REGS ? pr->regs[i] : 0);
		tf_u64(t, pr->stack_size);
		if (pr->stack_size) {
			tf_bytes(t, pr->stack, pr->stack_size);
			tf_u64(t, pr->stack_size); /* dyn_size */
		}
	}
	tf_end(t);
}

/* The pc among the trailer's registers, as the unwinder reads it: the
 * sample's ip, so that an unwound stack's leaf is the ip. */
static uint64_t regs_pc(const struct fuzz_elf_info *inf,
			const struct params *pr)
{
	const struct pda_unwind_arch *a =
		pda_unwind_arch_find(NULL, inf->machine, inf->is64 ? 2 : 1);
	unsigned idx;

	if (!a || !(pr->mask >> a->perf_pc & 1))
		return 0;
	idx = (unsigned)__builtin_popcountll(pr->mask &
					     ((1ull << a->perf_pc) - 1));
	if (idx >= NR_REGS)
		return 0;
	return a->is64 ? pr->regs[idx] : pr->regs[idx] & 0xffffffffu;
}

static bool note(int rc, bool *nomem)
{
	CHECK(rc <= 0 && rc >= PD_ERR_NOTFOUND);
	if (rc == PD_ERR_NOMEM)
		*nomem = true;
	return rc == 0;
}

/* Every frame's strings readable; a callchain's frames its ips. */
static void check_stack(const struct pda_stack *st, const struct pd_sample *smp)
{
	CHECK(st->nr <= st->alloc);
	for (size_t i = 0; i < st->nr; i++) {
		const struct pda_frame *fr = &st->frames[i];
		bool in_chain = false;

		fuzz_touch_str(fr->sym);
		fuzz_touch_str(fr->dso);
		fuzz_touch_str(fr->srcfile);
		CHECK(!fr->sym == !!(fr->flags & PDA_FRAME_NO_SYMBOL) ||
		      (fr->flags & PDA_FRAME_NO_MAP));
		for (uint64_t k = 0; k < smp->callchain.nr && !in_chain; k++)
			in_chain = pd_u64s_get(&smp->callchain, k) == fr->ip;
		CHECK(in_chain || !smp->callchain.nr);
	}
}

/* The capture's records through the session, every sample resolved. */
static void read_capture(struct fuzz_session *fs, bool *nomem)
{
	struct pda_stack st = PDA_STACK_INIT;
	struct pd_reader *rd;
	struct pd_sample smp;
	struct pd_rec rec;
	int rc;

	CHECK(pd_reader_new(fs->f, PD_READ_ORDERED, &rd) == 0);
	while ((rc = pd_reader_next(rd, &rec)) > 0) {
		if (!note(pda_session_feed(fs->s, &rec), nomem))
			break;
		if (rec.type != PD_REC_SAMPLE)
			continue;
		CHECK(pd_sample_decode(fs->f, &rec, &smp) == 0);
		rc = pda_sample_stack(fs->s, &smp, &st);
		if (!note(rc, nomem))
			continue;
		check_stack(&st, &smp);
	}

	CHECK(rc >= 0);
	pd_reader_free(rd);
	pda_stack_release(fs->s, &st);
}

/* One address through every lookup of the ELF handle. */
static void lookups(struct pda_session *s, struct pda_elf *e, uint64_t vaddr,
		    bool *nomem)
{
	struct pda_inline inl[16];
	const unsigned char *code, *image;
	const char *name, *name2, *file;
	uint64_t start, start2, size, size2, v;
	size_t nr, len, image_size;
	unsigned line;
	int rc;

	rc = pda_elf_symbol(s, e, vaddr, &name, &start, &size);
	if (note(rc, nomem)) {
		fuzz_touch_str(name);
		/* a second lookup finds what the first did */
		CHECK(pda_elf_symbol(s, e, vaddr, &name2, &start2, &size2) ==
			      0 &&
		      name2 == name && start2 == start && size2 == size);
		if (!pda_demangle(s, name))
			*nomem = true;
	}
	if (note(pda_elf_symbol_a2l(s, e, vaddr, &name, &start), nomem))
		fuzz_touch_str(name);
	if (note(pda_elf_inlines(s, e, vaddr, inl, 16, &nr), nomem)) {
		CHECK(nr <= 16);
		for (size_t i = 0; i < nr; i++) {
			CHECK(inl[i].func != NULL);
			fuzz_touch_str(inl[i].func);
			fuzz_touch_str(inl[i].file);
		}
	}
	if (note(pda_elf_inlines_a2l(s, e, vaddr, inl, 16, &nr), nomem))
		CHECK(nr <= 16);
	if (note(pda_elf_srcline(s, e, vaddr, &file, &line), nomem))
		CHECK(file != NULL);
	image = pda_elf_image(e, &image_size);
	if (pda_elf_code(e, vaddr, 64, &code, &len) == 0) {
		CHECK(len <= 64);
		CHECK(!len || (code >= image && len <= image_size &&
			       (size_t)(code - image) <= image_size - len));
		fuzz_touch(code, len);
	}
	(void)pda_elf_arm_thumb(e, vaddr);
	(void)pda_elf_offset_to_vaddr(e, vaddr, &v);
}

/* What the ELF handle says of the whole file. */
static void whole_file(struct pda_elf *e, const struct params *pr)
{
	const unsigned char *id;
	unsigned id_size;
	uint32_t crc;
	uint64_t vaddr, off, size, lo, hi, bias;
	size_t image_size;
	struct pda_elf_arch ar;

	pda_elf_build_id(e, &id, &id_size);
	CHECK(id_size <= PDA_BUILD_ID_MAX);
	fuzz_touch(id, id_size);
	fuzz_touch_str(pda_elf_debuglink(e, &crc));
	pda_elf_image(e, &image_size);
	if (pda_elf_section_at(e, ".text", &vaddr, &off, &size) == 0)
		CHECK(off <= image_size && size <= image_size - off);
	if (pda_elf_load_span(e, &lo, &hi) == 0)
		(void)pda_elf_map_bias(e, pr->base + lo, 0, &bias);
	pda_elf_arch(e, &ar);
	fuzz_touch_str(pda_elf_path(e));
}

static bool pass(const uint8_t *data, size_t size, struct failalloc *fa)
{
	const struct pd_alloc hooks = failalloc_hooks(fa);
	struct fuzz_elf_info inf;
	struct params pr;
	struct fuzz_session fs;
	struct tf_attr attr = {
		.type = 1,
		.sample_period = 1,
		.sample_type = PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_PERIOD |
			       PD_SAMPLE_CALLCHAIN | PD_SAMPLE_REGS_USER |
			       PD_SAMPLE_STACK_USER,
	};
	uint64_t addrs[MAX_ADDRS], cc[1 + MAX_ADDRS], bias = 0;
	struct pda_elf *e;
	bool nomem = false;
	size_t nr;
	PDA_OPTS(o, .inline_callchain = true, .max_stack = MAX_FRAMES);

	read_params(data, size, &pr);
	if (!fuzz_elf_info(data, size, &inf))
		return false; /* libelf reads no ELF header: nothing to do */
	nr = pick_addrs(&inf, &pr, addrs);
	o.unwinder = pr.flags & FLAG_LIBUNWIND ? "libunwind" : "libdw";
	o.no_inline = pr.flags & FLAG_NO_INLINE;
	o.srcline = pr.flags & FLAG_SRCLINE;
	attr.sample_regs_user = pr.mask;
	attr.sample_stack_user = (uint32_t)pr.stack_size;
	fuzz_session_begin(&fs, &attr);
	fuzz_elf_maps(&fs.t, &inf, pr.base, PID);
	/* a callchain of every address, user ips as the maps place them */
	bias = inf.exec ? 0 : pr.base;
	cc[0] = PD_CONTEXT_USER;
	for (size_t i = 0; i < nr; i++)
		cc[1 + i] = addrs[i] + bias;
	write_sample(&fs.t, nr ? cc[1] : bias, cc, 1 + nr, &pr, false,
		     inf.is64);
	if (pr.trailer && pr.mask && pr.stack_size)
		write_sample(&fs.t, regs_pc(&inf, &pr), NULL, 0, &pr, true,
			     inf.is64);
	if (fuzz_session_open(&fs, &hooks, &o) < 0 ||
	    fuzz_elf_preload(fs.s, data, size, &e) < 0) {
		fuzz_session_free(&fs);
		return true;
	}
	read_capture(&fs, &nomem);
	if (e) {
		for (size_t i = 0; i < nr; i++)
			lookups(fs.s, e, addrs[i], &nomem);
		whole_file(e, &pr);
	}
	fuzz_session_free(&fs);
	return nomem;
}

int fuzz_elf(const uint8_t *data, size_t size)
{
	fuzz_with_oom(data, size, pass);
	return 0;
}
