/*
 * fuzz_annotate.c - libFuzzer target for annotate's disassembly path
 * (analyze/annotate: capstone over hostile code bytes, branch targets,
 * loop back-edges, source lines and inline chains per instruction), as
 * `pdtool annotate` runs it (STYLE T7).
 *
 * An input that starts with an ELF magic is a binary: samples fall in
 * the middle of its first function symbols and its entry point.  Any
 * other input is code: its first byte picks an architecture (and, for
 * x86, Intel or AT&T syntax), the rest becomes the .text of an ELF file
 * written here for that architecture's class and byte order, with two
 * functions splitting it (so that branches reach another symbol) and,
 * for Thumb, its mapping symbol; samples fall every few bytes.  Either
 * way a session over a capture built in memory maps the binary into a
 * process (fuzzelf.c), the samples are counted with pda_annot_add(), and
 * every function with samples is disassembled by pda_annot_func_new().
 *
 * Properties, for any input: the instructions of a function follow one
 * another from its start, byte after byte, within its size; each has a
 * mnemonic, operands and, for a branch, a resolvable or absent target
 * name; a back-edge is a jump and its target, when it is an instruction
 * of the function, a loop head; the samples counted in the function's
 * instructions are its own (all of them, for written code); source lines
 * sum their instructions; and every sample is either in a function or
 * unresolved.  Source files are never read (no_source): DWARF names
 * files of this host.  The session allocates through failing hooks
 * (fuzz_with_oom).
 */
#include "fuzz.h"

#include "pda_annotate.h"
#include "pdatest.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#define PID 200
#define BASE 0x7f0000000000ull /* where an ET_DYN binary is mapped */
#define TEXT_VADDR 0x1000u     /* the written binary's .text */
#define MAX_CODE 65536
#define SAMPLE_STEP 3 /* bytes between samples in written code */
#define MAX_SAMPLES 512

/* The architectures written code is disassembled as. */
static const struct arch {
	uint16_t machine;
	bool is64, big, thumb, intel;
} arches[] = {
	{EM_X86_64, true, false, false, false},
	{EM_X86_64, true, false, false, true},
	{EM_386, false, false, false, false},
	{EM_AARCH64, true, false, false, false},
	{EM_AARCH64, true, true, false, false},
	{EM_ARM, false, false, false, false},
	{EM_ARM, false, false, true, false},
	{EM_PPC64, true, false, false, false},
	{EM_PPC64, true, true, false, false},
	{EM_PPC, false, true, false, false},
	{EM_S390, true, true, false, false},
	{EM_MIPS, false, true, false, false},
	{EM_MIPS, true, false, false, false},
	{EM_SPARCV9, true, true, false, false},
	{EM_RISCV, true, false, false, false},
};
#define NR_ARCHES (sizeof(arches) / sizeof(arches[0]))

/* ---- writing an ELF file around code --------------------------------- */

struct out {
	unsigned char *p;
	size_t len;
	const struct arch *a;
};

static void put(struct out *o, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		o->p[o->len + i] =
			(unsigned char)(v >> (8 * (o->a->big ? n - 1 - i : i)));
	o->len += n;
}

/* An address or offset: 8 bytes in ELF64, 4 in ELF32. */
static void put_addr(struct out *o, uint64_t v)
{
	put(o, v, o->a->is64 ? 8 : 4);
}

static void put_sym(struct out *o, uint32_t name, uint64_t value, uint64_t size,
		    unsigned char info, uint16_t shndx)
{
	if (o->a->is64) {
		put(o, name, 4);
		put(o, info, 1);
		put(o, 0, 1);
		put(o, shndx, 2);
		put(o, value, 8);
		put(o, size, 8);
	} else {
		put(o, name, 4);
		put(o, value, 4);
		put(o, size, 4);
		put(o, info, 1);
		put(o, 0, 1);
		put(o, shndx, 2);
	}
}

static void put_shdr(struct out *o, uint32_t name, uint32_t type,
		     uint64_t flags, uint64_t addr, uint64_t off, uint64_t size,
		     uint32_t link, uint32_t info, uint64_t entsize)
{
	put(o, name, 4);
	put(o, type, 4);
	put_addr(o, flags);
	put_addr(o, addr);
	put_addr(o, off);
	put_addr(o, size);
	put(o, link, 4);
	put(o, info, 4);
	put_addr(o, o->a->is64 ? 8 : 4);
	put_addr(o, entsize);
}

static const char strtab[] = "\0f\0g\0$t\0$a";
static const char shstrtab[] = "\0.text\0.symtab\0.strtab\0.shstrtab";

/*
 * An ET_DYN file of arch a: its header, one PT_LOAD of the whole file
 * at vaddr 0, .text at TEXT_VADDR holding code, and .symtab with f and g
 * halving it (and the mapping symbol $t or $a first, for ARM).  The
 * caller frees out->p.
 */
static void write_elf(const struct arch *a, const uint8_t *code, size_t n,
		      struct out *o)
{
	const unsigned ehsize = a->is64 ? 64 : 52, phsize = a->is64 ? 56 : 32;
	const unsigned shsize = a->is64 ? 64 : 40, symsize = a->is64 ? 24 : 16;
	const unsigned nr_syms = a->machine == EM_ARM ? 4 : 3;
	const uint64_t symoff = TEXT_VADDR + ((n + 7) & ~(size_t)7);
	const uint64_t stroff = symoff + nr_syms * symsize;
	const uint64_t shstroff = stroff + sizeof(strtab);
	const uint64_t shoff = (shstroff + sizeof(shstrtab) + 7) & ~7ull;
	const uint64_t total = shoff + 5 * shsize;
	const uint64_t half = n / 2;

	o->a = a;
	o->len = 0;
	o->p = calloc(1, total);
	if (!o->p)
		abort();
	/* e_ident, then the header's fields */
	memcpy(o->p, ELFMAG, SELFMAG);
	o->p[EI_CLASS] = a->is64 ? ELFCLASS64 : ELFCLASS32;
	o->p[EI_DATA] = a->big ? ELFDATA2MSB : ELFDATA2LSB;
	o->p[EI_VERSION] = EV_CURRENT;
	o->len = EI_NIDENT;
	put(o, ET_DYN, 2);
	put(o, a->machine, 2);
	put(o, EV_CURRENT, 4);
	put_addr(o, TEXT_VADDR); /* e_entry */
	put_addr(o, ehsize);	 /* e_phoff */
	put_addr(o, shoff);
	put(o, a->machine == EM_ARM ? 0x05000000 : 0, 4); /* EABI 5 */
	put(o, ehsize, 2);
	put(o, phsize, 2);
	put(o, 1, 2);
	put(o, shsize, 2);
	put(o, 5, 2);
	put(o, 4, 2); /* e_shstrndx */
	/* the PT_LOAD: p_flags comes second in ELF64, seventh in ELF32 */
	put(o, PT_LOAD, 4);
	if (a->is64)
		put(o, PF_R | PF_X, 4);
	put_addr(o, 0);
	put_addr(o, 0);
	put_addr(o, 0);
	put_addr(o, total);
	put_addr(o, total);
	if (!a->is64)
		put(o, PF_R | PF_X, 4);
	put_addr(o, 0x1000);
	memcpy(o->p + TEXT_VADDR, code, n);
	/* symbols: null, the mapping symbol (ARM), f and g */
	o->len = symoff;
	put_sym(o, 0, 0, 0, 0, 0);
	if (a->machine == EM_ARM)
		put_sym(o, a->thumb ? 5 : 8, TEXT_VADDR, 0,
			ELF32_ST_INFO(STB_LOCAL, STT_NOTYPE), 1);
	put_sym(o, 1, TEXT_VADDR + a->thumb, half,
		ELF32_ST_INFO(STB_GLOBAL, STT_FUNC), 1);
	put_sym(o, 3, TEXT_VADDR + half + a->thumb, n - half,
		ELF32_ST_INFO(STB_GLOBAL, STT_FUNC), 1);
	memcpy(o->p + stroff, strtab, sizeof(strtab));
	memcpy(o->p + shstroff, shstrtab, sizeof(shstrtab));
	/* sections: null, .text, .symtab, .strtab, .shstrtab */
	o->len = shoff;
	put_shdr(o, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	put_shdr(o, 1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, TEXT_VADDR,
		 TEXT_VADDR, n, 0, 0, 0);
	put_shdr(o, 7, SHT_SYMTAB, 0, 0, symoff, nr_syms * symsize, 3,
		 nr_syms - 2, symsize);
	put_shdr(o, 15, SHT_STRTAB, 0, 0, stroff, sizeof(strtab), 0, 0, 0);
	put_shdr(o, 23, SHT_STRTAB, 0, 0, shstroff, sizeof(shstrtab), 0, 0, 0);
	o->len = total;
}

/* ---- checking a function -------------------------------------------- */

static void check_func(const struct pda_annot_func *fn, bool written)
{
	const struct pda_annot_sym *sym = fn->sym;
	uint64_t at = sym->start, hits = 0, line_hits = 0;
	size_t line_insns = 0;

	fuzz_touch_str(fn->arch);
	fuzz_touch_str(sym->name);
	fuzz_touch_str(fn->error);
	CHECK(fn->nr_events == 1);
	if (fn->error)
		CHECK(fn->nr_insns == 0 && fn->nr_lines == 0);
	for (size_t i = 0; i < fn->nr_insns; i++) {
		const struct pda_annot_insn *in = &fn->insns[i];

		CHECK(in->addr == at && in->size > 0);
		CHECK(in->addr - sym->start + in->size <= fn->size);
		at += in->size;
		CHECK(in->mnemonic && in->operands);
		fuzz_touch_str(in->mnemonic);
		fuzz_touch_str(in->operands);
		fuzz_touch_str(in->srcfile);
		fuzz_touch_str(in->target_name);
		fuzz_touch_str(in->inline_func);
		fuzz_touch_str(in->call_file);
		if (in->flags & PDA_INSN_BACK_EDGE)
			CHECK((in->flags & PDA_INSN_JUMP) &&
			      in->target >= sym->start &&
			      in->target <= in->addr);
		if (in->target_name)
			CHECK(in->flags & (PDA_INSN_JUMP | PDA_INSN_CALL |
					   PDA_INSN_DATA_REF));
		if (in->inline_depth)
			CHECK(in->inline_func != NULL);
		hits += in->counts[0].hits;
	}
	/* a loop head is the target of a back-edge */
	for (size_t i = 0; i < fn->nr_insns; i++) {
		bool found = false;

		if (!(fn->insns[i].flags & PDA_INSN_LOOP_HEAD))
			continue;
		for (size_t j = i; j < fn->nr_insns && !found; j++)
			found = (fn->insns[j].flags & PDA_INSN_BACK_EDGE) &&
				fn->insns[j].target == fn->insns[i].addr;
		CHECK(found);
	}
	CHECK(hits <= sym->counts[0].hits);
	if (written && !fn->error)
		CHECK(hits == sym->counts[0].hits);
	CHECK(fn->nr_lines <= fn->nr_insns);
	for (size_t i = 0; i < fn->nr_lines; i++) {
		CHECK(fn->lines[i].file != NULL && fn->lines[i].nr_insns > 0);
		line_insns += fn->lines[i].nr_insns;
		line_hits += fn->lines[i].counts[0].hits;
	}
	CHECK(line_insns <= fn->nr_insns && line_hits <= hits);
}

/* ---- the run ---------------------------------------------------------- */

static void annotate(struct fuzz_session *fs, bool intel, bool written,
		     bool *nomem)
{
	PDA_ANNOT_OPTS(ao, .nr_events = 1, .no_source = true,
		       .syntax = intel ? PDA_SYNTAX_INTEL : PDA_SYNTAX_ATT);
	struct pda_annot *a;
	struct pd_reader *rd;
	struct pd_sample smp;
	struct pd_rec rec;
	uint64_t in_syms = 0, nr_samples = 0;
	int rc = pda_annot_new(fs->s, &ao, &a);

	CHECK(rc == 0 || rc == PD_ERR_NOMEM);
	if (rc < 0) {
		*nomem = true;
		return;
	}
	CHECK(pd_reader_new(fs->f, PD_READ_ORDERED, &rd) == 0);
	while (rc >= 0 && (rc = pd_reader_next(rd, &rec)) > 0) {
		rc = pda_session_feed(fs->s, &rec);
		if (rc < 0 || rec.type != PD_REC_SAMPLE)
			continue;
		CHECK(pd_sample_decode(fs->f, &rec, &smp) == 0);
		nr_samples++;
		rc = pda_annot_add(a, &smp, 0);
	}
	pd_reader_free(rd);
	CHECK(rc == 0 || rc == PD_ERR_NOMEM);
	if (rc == 0)
		rc = pda_annot_finish(a);
	CHECK(rc == 0 || rc == PD_ERR_NOMEM);
	for (size_t i = 0; rc == 0 && i < pda_annot_nr_syms(a); i++) {
		struct pda_annot_func *fn;

		in_syms += pda_annot_sym(a, i)->counts[0].hits;
		rc = pda_annot_func_new(a, i, &fn);
		CHECK(rc == 0 || rc == PD_ERR_NOMEM);
		if (rc == 0)
			check_func(fn, written);
		pda_annot_func_free(a, fn);
	}
	if (rc == 0) {
		CHECK(pda_annot_sym(a, pda_annot_nr_syms(a)) == NULL);
		CHECK(pda_annot_totals(a)[0].hits == nr_samples);
		CHECK(in_syms + pda_annot_nr_unresolved(a) == nr_samples);
	}
	pda_annot_free(a);
	*nomem |= rc == PD_ERR_NOMEM;
}

static bool pass(const uint8_t *data, size_t size, struct failalloc *fa)
{
	const struct pd_alloc hooks = failalloc_hooks(fa);
	const struct tf_attr attr = {.type = 1,
				     .sample_period = 1,
				     .sample_type =
					     PD_SAMPLE_IP | PD_SAMPLE_TID};
	const bool is_elf = size >= SELFMAG && !memcmp(data, ELFMAG, SELFMAG);
	const struct arch *a = NULL;
	struct out written = {NULL, 0, NULL};
	const uint8_t *image = data;
	size_t image_size = size, code_len = 0;
	struct fuzz_elf_info inf;
	struct fuzz_session fs;
	struct pda_elf *e;
	bool nomem = false;
	PDA_OPTS(o);

	if (!is_elf) {
		code_len = size > MAX_CODE ? MAX_CODE : size ? size - 1 : 0;
		if (!code_len)
			return false;
		a = &arches[data[0] % NR_ARCHES];
		write_elf(a, data + 1, code_len, &written);
		image = written.p;
		image_size = written.len;
	}
	if (!fuzz_elf_info(image, image_size, &inf)) {
		CHECK(is_elf);
		return false;
	}
	fuzz_session_begin(&fs, &attr);
	fuzz_elf_maps(&fs.t, &inf, BASE, PID);
	if (a) {
		for (size_t off = 0, k = 0; off < code_len && k < MAX_SAMPLES;
		     off += SAMPLE_STEP, k++)
			pt_sample(&fs.t, PD_MISC_USER, PID, PID,
				  BASE + TEXT_VADDR + off, NULL, 0);
	} else {
		for (size_t i = 0; i < inf.nr_funcs; i++)
			pt_sample(&fs.t, PD_MISC_USER, PID, PID,
				  (inf.exec ? 0 : BASE) + inf.funcs[i], NULL,
				  0);
	}
	if (fuzz_session_open(&fs, &hooks, &o) < 0 ||
	    fuzz_elf_preload(fs.s, image, image_size, &e) < 0)
		nomem = true;
	else
		annotate(&fs, a && a->intel, a != NULL, &nomem);
	fuzz_session_free(&fs);
	free(written.p);
	return nomem;
}

int fuzz_annotate(const uint8_t *data, size_t size)
{
	fuzz_with_oom(data, size, pass);
	return 0;
}
