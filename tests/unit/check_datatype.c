/*
 * check_datatype.c - data-type attribution (analyze/datatype,
 * symbols/pda_dwtype.c) held to the source's own answer.
 *
 * testdata/src/dtypes.c marks each line that touches a known member with
 * "dt: TYPE +OFFSET (MEMBER)".  Its x86_64 and aarch64 builds
 * (testdata/bin/dtypes, dtypes-aarch64; recipe in testdata/dtypes.md) are
 * disassembled here with capstone, independently of the module: every
 * instruction the line table puts on a marked line and that the module
 * finds a memory operand in must be attributed as the line says, and
 * every marked line must have such an instruction.  No perf can be the
 * oracle: perf 6.1 has no data types, perf >= 6.8 is not installed here
 * and finds nothing on aarch64.
 */
#include "elftest.h"

#include "pda_datatype_int.h"

#include <capstone/capstone.h>
#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SRC_C "../../testdata/src/dtypes.c"
#define SRC_CXX "../../testdata/src/dtcxx.cpp"
#define SRC_ARM "../../testdata/src/dtarm.c"
#define SRC_CALL "../../testdata/src/dtcall.c"
#define SRC_CHAIN "../../testdata/src/dtchain.c"
#define SRC_XFORM "../../testdata/src/dtxform.c"
#define SRC_GOT "../../testdata/src/dtgot.c"
#define SRC_GOTMAIN "../../testdata/src/dtgotmain.c"
#define MAX_LINES 512

static struct et_session es;
static struct pda_session *S;

static void setup(void)
{
	S = et_session_new(&es, NULL);
}

static void teardown(void)
{
	et_session_free(&es);
}

/* The markers: want[line] the expected text, or NULL. */
static char *want[MAX_LINES];
static unsigned hits[MAX_LINES];
/* A line the binary's line table gives a marked line's access to (the
 * closing brace after a return's), or 0: checked as the marked one. */
static unsigned moved_from, moved_to;

static void read_markers(const char *src)
{
	FILE *f = fopen(src, "r");
	char buf[512];
	unsigned line = 0;

	ck_assert_msg(f != NULL, "cannot open %s", src);
	memset(want, 0, sizeof(want));
	while (fgets(buf, sizeof(buf), f) && ++line < MAX_LINES) {
		char *m = strstr(buf, "/* dt: "), *end;

		if (!m)
			continue;
		m += 7;
		end = strstr(m, " */");
		ck_assert_msg(end != NULL, "%s:%u: unterminated marker", src,
			      line);
		want[line] = strndup(m, (size_t)(end - m));
	}
	fclose(f);
}

static void free_markers(void)
{
	for (unsigned i = 0; i < MAX_LINES; i++) {
		free(want[i]);
		want[i] = NULL;
	}
}

/*
 * s without its " +OFFSET", into out: for i386, where long and pointers
 * take 4 bytes, the markers' offsets (LP64's) are not the binary's; the
 * member named, which the module finds from the offset in DWARF, says
 * that the offset was right.
 */
static void no_offset(const char *s, char *out, size_t size)
{
	const char *p = strstr(s, " +"), *q = p ? strstr(p, " (") : NULL;

	if (q)
		snprintf(out, size, "%.*s%s", (int)(p - s), s, q);
	else
		snprintf(out, size, "%s", s);
}

/* The 4-byte word at c in the binary's byte order. */
static uint32_t word(const unsigned char *c, bool big_endian)
{
	return big_endian ? (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 |
				    (uint32_t)c[2] << 8 | c[3]
			  : (uint32_t)c[3] << 24 | (uint32_t)c[2] << 16 |
				    (uint32_t)c[1] << 8 | c[0];
}

/*
 * Check the marked instructions of the binary at path, built from the
 * source src; the number of instructions checked.  -O2 (all): every memory access on a marked line
 * is the member it says.  -O0 (!all) loads each pointer from its stack
 * slot on the line too: there each marked line needs an access as it
 * says, and every access to the marker's type must be it.
 */
static unsigned check_binary(const char *path, const char *src, bool all)
{
	struct pda_elf *e = NULL;
	struct pda_datatype *dt = NULL;
	struct pda_elf_arch ar;
	uint64_t text, off, size, addr;
	const unsigned char *code;
	const uint8_t *p;
	size_t len;
	csh cs;
	cs_insn *in;
	unsigned checked = 0, marked = 0;

	read_markers(src);
	memset(hits, 0, sizeof(hits));
	ck_assert_int_eq(pda_elf_open(S, path, &e), 0);
	ck_assert_int_eq(pda_datatype_new(S, &dt), 0);
	pda_elf_arch(e, &ar);
	/* arm: the Thumb-2 code arm-linux-gnueabihf-gcc writes */
	ck_assert_int_eq(cs_open(ar.machine == EM_AARCH64 ? CS_ARCH_ARM64
				 : ar.machine == EM_ARM	  ? CS_ARCH_ARM
				 : ar.machine == EM_PPC64 ? CS_ARCH_PPC
				 : ar.machine == EM_S390  ? CS_ARCH_SYSZ
							  : CS_ARCH_X86,
				 ar.machine == EM_AARCH64 ? CS_MODE_ARM
				 : ar.machine == EM_ARM	  ? CS_MODE_THUMB
				 : ar.machine == EM_386	  ? CS_MODE_32
				 : ar.machine == EM_S390  ? CS_MODE_BIG_ENDIAN
				 : ar.machine == EM_PPC64
					 ? CS_MODE_64 | (ar.big_endian
							 ? CS_MODE_BIG_ENDIAN
							 : CS_MODE_LITTLE_ENDIAN)
					 : CS_MODE_64,
				 &cs),
			 CS_ERR_OK);
	in = cs_malloc(cs);
	ck_assert_int_eq(pda_elf_section_at(e, ".text", &text, &off, &size), 0);
	ck_assert_int_eq(pda_elf_code(e, text, size, &code, &len), 0);
	p = code;
	addr = text;
	while (len) {
		const char *file, *sym, *mnemonic, *op_str;
		unsigned line;
		uint64_t start, ssize, iaddr;
		struct pda_datatype_res r;
		struct pda_ppc_pfx pfx;
		char got[512], w[512], tmp[512];

		/* arm: each function in its own state, as its mapping
		 * symbols say */
		if (ar.machine == EM_ARM)
			cs_option(cs, CS_OPT_MODE,
				  pda_elf_arm_thumb(e, addr) ? CS_MODE_THUMB
							     : CS_MODE_ARM);
		if (ar.machine == EM_PPC64 && len >= 8 &&
		    pda_ppc_prefixed(word(p, ar.big_endian),
				     word(p + 4, ar.big_endian), &pfx)) {
			/* Power10's prefixed, which capstone 4 does not
			 * know: 8 bytes, the module's own decoding */
			iaddr = addr;
			mnemonic = pfx.name;
			op_str = "";
			p += 8;
			len -= 8;
			addr += 8;
		} else if (!cs_disasm_iter(cs, &p, &len, &addr, in)) {
			/* skip what does not decode (padding) */
			const size_t step = ar.machine == EM_AARCH64 ||
							    ar.machine == EM_PPC64
						    ? 4
					    : ar.machine == EM_ARM ||
							    ar.machine == EM_S390
						    ? 2
						    : 1;

			if (len < step)
				break;
			p += step;
			len -= step;
			addr += step;
			continue;
		} else {
			iaddr = in->address;
			mnemonic = in->mnemonic;
			op_str = in->op_str;
		}
		if (pda_elf_srcline(S, e, iaddr, &file, &line) != 0)
			continue;
		if (moved_from && line == moved_from)
			line = moved_to;
		if (!strstr(file, strrchr(src, '/') + 1) || line >= MAX_LINES ||
		    !want[line] ||
		    pda_elf_symbol(S, e, iaddr, &sym, &start, &ssize) != 0)
			continue;
		ck_assert_int_eq(pda_datatype_at(dt, e, iaddr, start, &r),
				 0);
		/* a return or a call on the line is no member access */
		if (r.why == PDA_DATATYPE_NO_MEMOP ||
		    r.kind == PDA_DATATYPE_STACKOP)
			continue;
		if (r.member)
			snprintf(got, sizeof(got), "%s %+lld (%s)", r.type,
				 (long long)r.offset, r.member);
		else
			snprintf(got, sizeof(got), "%s %+lld (no field)",
				 r.type, (long long)r.offset);
		snprintf(w, sizeof(w), "%s", want[line]);
		if (ar.machine == EM_386 || ar.machine == EM_ARM) {
			no_offset(got, tmp, sizeof(tmp));
			snprintf(got, sizeof(got), "%s", tmp);
			no_offset(want[line], w, sizeof(w));
		}
		/* -O0: the pointer's own load, or another type's */
		if (!all && strcmp(got, w) &&
		    (r.kind != PDA_DATATYPE_TYPE ||
		     strncmp(got, w, strlen(r.type) + 1)))
			continue;
		ck_assert_msg(!strcmp(got, w),
			      "%s: %s+%#llx (%s %s, line %u): got '%s' (%s), "
			      "want '%s'",
			      path, sym, (unsigned long long)(iaddr - start),
			      mnemonic, op_str, line, got,
			      pda_datatype_why_str(r.why), w);
		hits[line]++;
		checked++;
	}
	for (unsigned i = 0; i < MAX_LINES; i++)
		if (want[i]) {
			marked++;
			ck_assert_msg(hits[i] > 0,
				      "%s: no memory access found on line %u "
				      "(%s)",
				      path, i, want[i]);
		}
	ck_assert_uint_gt(marked, 4);
	cs_free(in, 1);
	cs_close(&cs);
	pda_datatype_free(dt);
	pda_elf_close(S, e);
	free_markers();
	return checked;
}

/* A binary of testdata/bin checked against its source as -O0's are
 * (each marked line needs its access), with at least min accesses. */
struct bin_case {
	const char *name, *src;
	unsigned min;
};

static void check_cases(const struct bin_case *c, size_t n)
{
	char path[256];

	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "../../testdata/bin/%s", c[i].name);
		ck_assert_uint_ge(check_binary(path, c[i].src, false), c[i].min);
	}
}

START_TEST(test_x86_64)
{
	ck_assert_uint_gt(check_binary("../../testdata/bin/dtypes", SRC_C, true), 10);
}
END_TEST

START_TEST(test_aarch64)
{
	ck_assert_uint_gt(check_binary("../../testdata/bin/dtypes-aarch64", SRC_C,
				       true),
			  10);
}
END_TEST

/* -O0: every pointer reloaded from its stack slot before each access
 * (perf's stack-slot tracking; DWARF places the variables in the frame,
 * not in registers) */
START_TEST(test_x86_64_O0)
{
	ck_assert_uint_gt(check_binary("../../testdata/bin/dtypes-O0", SRC_C, false),
			  10);
}
END_TEST

START_TEST(test_aarch64_O0)
{
	ck_assert_uint_gt(
		check_binary("../../testdata/bin/dtypes-O0-aarch64", SRC_C,
			     false), 10);
}
END_TEST

/* C++: members through `this` and references (which perf 7.2 leaves
 * (unknown)), a class by its name alone, and container_of: a variable
 * that is its base register less the member's offset (DW_OP_bregN -16;
 * DW_OP_stack_value), the access a negative displacement from the
 * member's pointer */
START_TEST(test_cxx_x86_64)
{
	ck_assert_uint_ge(check_binary("../../testdata/bin/dtcxx", SRC_CXX, true),
			  6);
}
END_TEST

START_TEST(test_cxx_aarch64)
{
	ck_assert_uint_ge(
		check_binary("../../testdata/bin/dtcxx-aarch64", SRC_CXX, true), 6);
}
END_TEST

/* aarch64's addressing modes: ldp/stp (the first register's access),
 * post- and pre-indexed loads walking an array, ADRP with an LDR's or
 * an ADD's low bits, ldar/stlr through stdatomic.h's pointer variable */
START_TEST(test_arm_modes)
{
	ck_assert_uint_ge(
		check_binary("../../testdata/bin/dtarm-aarch64", SRC_ARM, true),
		9);
}
END_TEST

/* A call's result, in no variable: the callee's DWARF return type says
 * what the return register points to (perf's tracking of calls) */
START_TEST(test_call)
{
	static const char *const bins[] = {"../../testdata/bin/dtcall",
					   "../../testdata/bin/dtcall-aarch64"};

	for (size_t i = 0; i < sizeof(bins) / sizeof(*bins); i++)
		ck_assert_uint_ge(check_binary(bins[i], SRC_CALL, true), 6);
}
END_TEST

/* A pointer loaded through a loaded pointer (t->mid->leaf->val), from a
 * parameter, a global pointer and a call's result: only the members'
 * types on the way say what the last register points to (perf's type
 * state); at -O0 every chain starts with the parameter's reload from
 * its slot.  The loads of the pointers on the way are on the marked
 * lines too, each another type's member: as at -O0, each marked line
 * needs its access and every access to its type must be it. */
START_TEST(test_chain)
{
	static const struct bin_case bins[] = {
		{"dtchain", SRC_CHAIN, 7},
		{"dtchain-aarch64", SRC_CHAIN, 7},
		{"dtchain-O0", SRC_CHAIN, 7},
		{"dtchain-O0-aarch64", SRC_CHAIN, 7},
	};

	check_cases(bins, sizeof(bins) / sizeof(*bins));
}
END_TEST

/* arm (Thumb-2, arm-linux-gnueabihf-gcc; the *-a32-arm builds in ARM
 * state, -marm): ILP32 layouts as i386's (the
 * markers' offsets are LP64's: type and member compared), r7 the frame
 * pointer, globals through a literal pool's PC-relative offset and an
 * add of pc; the call's arguments and spills on the marked lines as
 * i386's, so each marked line needs its access */
START_TEST(test_arm)
{
	static const struct bin_case bins[] = {
		{"dtypes-arm", SRC_C, 11},
		{"dtcall-arm", SRC_CALL, 4},
		{"dtchain-arm", SRC_CHAIN, 7},
		{"dtchain-O0-arm", SRC_CHAIN, 7},
		{"dtypes-a32-arm", SRC_C, 11},
		{"dtchain-a32-arm", SRC_CHAIN, 7},
	};

	check_cases(bins, sizeof(bins) / sizeof(*bins));
}
END_TEST

/* ppc64: little-endian ELFv2 and big-endian ELFv1 (functions named by
 * their descriptors in .opd), globals through the TOC pointer r2 (which
 * ELFv2's global entry computes from r12), r1 and r31 spills at -O0;
 * s390x: globals PC-relative (larl, lgrl, strl), r15 and r11 spills;
 * indexed accesses (ppc64's X-form, s390x's base + index).
 * The calls' arguments are stored on the marked lines at -O0, so there
 * each marked line needs its access and every access to its type must
 * be it; at -O2 every access on a marked line is the marker's. */
START_TEST(test_ppc64_s390x)
{
	static const char *const archs[] = {"ppc64le", "ppc64", "s390x"};
	static const struct {
		const char *name, *src;
		unsigned min;
		bool all;
	} bins[] = {
		{"dtypes", SRC_C, 11, true},
		{"dtcall", SRC_CALL, 6, true},
		{"dtchain", SRC_CHAIN, 7, false},
		{"dtypes-O0", SRC_C, 11, false},
		{"dtchain-O0", SRC_CHAIN, 7, false},
		/* indexed: ppc64's X-form (lwax, stdx: RA + RB) */
		{"dtxform", SRC_XFORM, 3, false},
	};
	char path[256];

	for (size_t a = 0; a < sizeof(archs) / sizeof(*archs); a++)
		for (size_t i = 0; i < sizeof(bins) / sizeof(*bins); i++) {
			snprintf(path, sizeof(path), "../../testdata/bin/%s-%s",
				 bins[i].name, archs[a]);
			/* s390x's gcc puts twice()'s load of range.lo
			 * (agf) on the closing brace */
			if (!strcmp(archs[a], "s390x") &&
			    !strcmp(bins[i].name, "dtcall")) {
				moved_from = 61;
				moved_to = 60;
			}
			ck_assert_uint_ge(check_binary(path, bins[i].src,
						       bins[i].all),
					  bins[i].min);
			moved_from = moved_to = 0;
		}
}
END_TEST

/*
 * ppc64: main()'s store of tops into the global root (dtchain.c's
 * "root = tops;") comes after a call through a PLT stub, which saved
 * the TOC pointer r2 at 24(r1) (ELFv1: 40(r1)) for the ld r2 that
 * follows the call to restore, and after an instruction capstone 4
 * does not decode (mfvsrd): the store is TOC-relative all the same,
 * the global root as its own type.
 */
START_TEST(test_ppc64_toc_restored)
{
	static const char *const bins[] = {
		"../../testdata/bin/dtchain-ppc64le",
		"../../testdata/bin/dtchain-ppc64",
	};
	FILE *f = fopen(SRC_CHAIN, "r");
	char buf[512];
	unsigned line = 0, want_line = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(buf, sizeof(buf), f) && !want_line) {
		line++;
		if (strstr(buf, "root = tops;"))
			want_line = line;
	}
	fclose(f);
	ck_assert_uint_gt(want_line, 0);
	for (size_t b = 0; b < sizeof(bins) / sizeof(*bins); b++) {
		struct pda_elf *e = NULL;
		struct pda_datatype *dt = NULL;
		uint64_t text, off, size;
		const unsigned char *code;
		size_t len;
		unsigned stores = 0;

		ck_assert_int_eq(pda_elf_open(S, bins[b], &e), 0);
		ck_assert_int_eq(pda_datatype_new(S, &dt), 0);
		ck_assert_int_eq(pda_elf_section_at(e, ".text", &text, &off,
						    &size), 0);
		ck_assert_int_eq(pda_elf_code(e, text, size, &code, &len), 0);
		for (uint64_t a = text; a + 4 <= text + len; a += 4) {
			const char *file, *sym;
			uint64_t start, ssize;
			struct pda_datatype_res r;

			if (pda_elf_srcline(S, e, a, &file, &line) != 0 ||
			    line != want_line || !strstr(file, "dtchain.c") ||
			    pda_elf_symbol(S, e, a, &sym, &start, &ssize) != 0)
				continue;
			ck_assert_int_eq(pda_datatype_at(dt, e, a, start, &r), 0);
			/* the line's other stores save registers in the
			 * frame: no variable's */
			if (r.kind != PDA_DATATYPE_TYPE || !r.store)
				continue;
			ck_assert_msg(!strcmp(r.type, "struct top*") &&
					      r.var && !strcmp(r.var, "root") &&
					      r.global,
				      "%s: %s+%#llx: got %s (%s)", bins[b], sym,
				      (unsigned long long)(a - start), r.type,
				      pda_datatype_why_str(r.why));
			stores++;
		}
		/* both ways to it: past atol's call and without */
		ck_assert_uint_eq(stores, 2);
		pda_datatype_free(dt);
		pda_elf_close(S, e);
	}
}
END_TEST

/* i386: its own DWARF register numbers and layouts (4-byte longs), a
 * global through the GOT's base a PC thunk gives; a call's arguments
 * are stored on the stack on the marked lines too, so there (as at -O0)
 * each marked line needs its access and every access to its type must
 * be it */
/*
 * Globals reached through the GOT (dtgot.c, dtgot.md): a shared
 * library's, whose GOT slots a dynamic relocation against the variable
 * fills (x86_64 GLOB_DAT, aarch64 GLOB_DAT, ppc64 ADDR64 in the TOC,
 * s390x GLOB_DAT), and its PIE program's extern one, which the library
 * defines (its declaration in the program's DWARF says the type; x86_64
 * copies it into the program: the symbol there names it); ppc64le at
 * -mcpu=power10 too, through prefixed PC-relative pld of the slots;
 * i386 (R_386_GLOB_DAT) through the GOT's base a PC thunk gives (PIC's
 * foo@GOT(%ecx)), arm (R_ARM_GLOB_DAT) through a literal pool's
 * GOT-relative word added to the pc.
 */
START_TEST(test_got)
{
	static const char *const archs[] = {
		"",	  "-aarch64",	  "-ppc64le", "-ppc64",
		"-s390x", "-p10-ppc64le", "-i386",    "-arm"};
	char path[256];

	for (size_t a = 0; a < sizeof(archs) / sizeof(*archs); a++) {
		snprintf(path, sizeof(path), "../../testdata/bin/libdtgot%s.so",
			 archs[a]);
		/* the GOT slot's own load is on the marked line too */
		ck_assert_uint_ge(check_binary(path, SRC_GOT, false), 6);
		snprintf(path, sizeof(path), "../../testdata/bin/dtgot%s",
			 archs[a]);
		ck_assert_uint_ge(check_binary(path, SRC_GOTMAIN, false), 2);
	}
}
END_TEST

/*
 * Power10's prefixed loads and stores (ppc64le, -mcpu=power10, which
 * capstone 4 does not decode): dtypes.c's globals through pla, plwz and
 * pld @pcrel, members at 34-bit displacements.
 */
START_TEST(test_ppc64_power10)
{
	ck_assert_uint_gt(check_binary("../../testdata/bin/dtypes-p10-ppc64le",
				       SRC_C, true),
			  10);
}
END_TEST

START_TEST(test_i386)
{
	ck_assert_uint_gt(check_binary("../../testdata/bin/dtypes-i386", SRC_C, true),
			  10);
	ck_assert_uint_ge(check_binary("../../testdata/bin/dtcall-i386", SRC_CALL,
				       false),
			  4);
}
END_TEST

Suite *datatype_suite(void)
{
	Suite *s = suite_create("datatype");
	TCase *tc = tcase_create("source");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_x86_64);
	tcase_add_test(tc, test_aarch64);
	tcase_add_test(tc, test_x86_64_O0);
	tcase_add_test(tc, test_aarch64_O0);
	tcase_add_test(tc, test_cxx_x86_64);
	tcase_add_test(tc, test_cxx_aarch64);
	tcase_add_test(tc, test_arm_modes);
	tcase_add_test(tc, test_call);
	tcase_add_test(tc, test_chain);
	tcase_add_test(tc, test_i386);
	tcase_add_test(tc, test_arm);
	tcase_add_test(tc, test_ppc64_s390x);
	tcase_add_test(tc, test_ppc64_toc_restored);
	tcase_add_test(tc, test_got);
	tcase_add_test(tc, test_ppc64_power10);
	suite_add_tcase(s, tc);
	return s;
}
