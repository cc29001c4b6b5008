/*
 * check_elf.c - ELF files, their symbols, source lines and inline chains
 * (pda_elf.c, pda_symtab.c, pda_symtree.c, pda_plt.c, pda_dwarf.c).
 *
 * What is expected comes from elsewhere than libpda: the test binaries'
 * own symbol tables and program headers read with libelf (elftest.c and
 * below), objdump's PLT labels, binutils addr2line, and perf 6.1's answers
 * recorded in data/perf61/ by data/perf61-symbols.py.  The binaries are
 * built from data/elfsyms.c by data/build.sh once per test case; the
 * captures' binaries in testdata/bin and the shared corpus are used (the
 * corpus's in the "corpus" case, skipped and counted when it is absent).
 */
#include "elftest.h"
#include "testcorpus.h"

#include "pda_elf_int.h"
#include "pda_symbols_int.h" /* pda_elf_begin_copy */
#include "pda_machine_int.h" /* pda_session_threads */

#include "failalloc.h"

#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PMAX ET_PATH_MAX

static char *bindir;

static void build_bins(void)
{
	char cmd[PMAX];

	bindir = et_tmpdir();
	et_path(cmd, "sh data/build.sh '%s'", bindir);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
}

static void remove_bins(void)
{
	et_rmtree(bindir);
	free(bindir);
}

static const char *bin(const char *name)
{
	static char path[PMAX];

	et_path(path, "%s/%s", bindir, name);
	return path;
}

/* ---- a session, through the public API ----------------------------- */

static struct et_session es;
static struct pda_session *S;

/* The failing allocator of the out-of-memory test. */
static struct failalloc fa;
static struct pd_alloc counting;

static void session_setup(void)
{
	failalloc_init(&fa, 0, false);
	counting = failalloc_hooks(&fa);
	S = et_session_new(&es, &counting);
}

static void session_teardown(void)
{
	et_session_free(&es);
}

static struct pda_elf *open_elf(const char *path)
{
	struct pda_elf *e = NULL;
	int rc = pda_elf_open(S, path, &e);

	ck_assert_msg(rc == 0, "pda_elf_open %s: %d %s", path, rc,
		      pda_session_errmsg(S));
	return e;
}

/* The name at vaddr, demangled as perf prints it; "[unknown]" if none. */
static const char *name_at(struct pda_elf *e, uint64_t vaddr, uint64_t *start,
			   uint64_t *size)
{
	const char *name;
	uint64_t st, sz;
	int rc = pda_elf_symbol(S, e, vaddr, &name, &st, &sz);

	if (rc == PD_ERR_NOTFOUND)
		return "[unknown]";
	ck_assert_int_eq(rc, 0);
	if (start)
		*start = st;
	if (size)
		*size = sz;
	return name;
}

static uint64_t sym_value(const char *path, const char *name, uint64_t *size)
{
	uint64_t value, sz;

	ck_assert_msg(et_elf_sym(path, name, &value, &sz), "%s: no %s", path,
		      name);
	if (size)
		*size = sz;
	return value;
}

/* ---- ELF facts read here with libelf --------------------------------- */

struct seg {
	uint64_t offset, vaddr, filesz;
};

static size_t load_segments(const char *path, struct seg *out, size_t max,
			    unsigned *type)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	GElf_Ehdr eh;
	size_t nr_ph = 0, n = 0;

	ck_assert_int_ge(fd, 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_nonnull(gelf_getehdr(e, &eh));
	*type = eh.e_type;
	elf_getphdrnum(e, &nr_ph);
	for (size_t i = 0; i < nr_ph && n < max; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
			out[n].offset = ph.p_offset;
			out[n].vaddr = ph.p_vaddr;
			out[n].filesz = ph.p_filesz;
			n++;
		}
	}
	elf_end(e);
	close(fd);
	return n;
}

/* A section's header by name. */
static bool section(const char *path, const char *name, GElf_Shdr *out)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	ck_assert_int_ge(fd, 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(elf_getshdrstrndx(e, &shstrndx), 0);
	while (!found && (scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, out))
			continue;
		n = elf_strptr(e, shstrndx, out->sh_name);
		found = n && !strcmp(n, name);
	}
	elf_end(e);
	close(fd);
	return found;
}

/* CRC-32 (IEEE, reflected), as .gnu_debuglink records it. */
static uint32_t file_crc32(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint32_t crc = 0xffffffffu;
	int c;

	ck_assert_ptr_nonnull(f);
	while ((c = getc(f)) != EOF) {
		crc ^= (uint32_t)c;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	fclose(f);
	return ~crc;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* ---- opening -------------------------------------------------------- */

START_TEST(test_open_errors)
{
	struct pda_elf *e = (struct pda_elf *)&e;

	ck_assert_int_eq(pda_elf_open(S, "data/no-such-file", &e),
			 PD_ERR_NOTFOUND);
	ck_assert_ptr_null(e);
	ck_assert_int_eq(pda_elf_open(S, "data/build.sh", &e), PD_ERR_FORMAT);
	ck_assert_ptr_null(e);
	ck_assert_ptr_nonnull(strstr(pda_session_errmsg(S), "data/build.sh"));
	pda_elf_close(S, NULL);
}
END_TEST

START_TEST(test_build_id)
{
	static const char *const paths[] = {"../../testdata/bin/inline",
					    "../../testdata/bin/demo"};
	unsigned char want[32];
	unsigned want_size;

	for (size_t i = 0; i < 2; i++) {
		struct pda_elf *e = open_elf(paths[i]);
		const unsigned char *id;
		unsigned size;

		ck_assert(et_elf_build_id(paths[i], want, &want_size));
		pda_elf_build_id(e, &id, &size);
		ck_assert_uint_eq(size, want_size);
		ck_assert_mem_eq(id, want, size);
		pda_elf_close(S, e);
	}
}
END_TEST

START_TEST(test_debuglink)
{
	struct pda_elf *e = open_elf(bin("elfsyms-strip"));
	uint32_t crc = 0;

	ck_assert_str_eq(pda_elf_debuglink(e, &crc), "elfsyms.debug");
	ck_assert_uint_eq(crc, file_crc32(bin("elfsyms.debug")));
	pda_elf_close(S, e);
	e = open_elf(bin("elfsyms"));
	ck_assert_ptr_null(pda_elf_debuglink(e, &crc));
	pda_elf_close(S, e);
}
END_TEST

/* ---- addresses -------------------------------------------------------- */

static const char *const seg_bins[] = {"elfsyms", "elfsyms-nopie"};

START_TEST(test_offset_to_vaddr)
{
	const char *path = bin(seg_bins[_i]);
	struct seg segs[16];
	unsigned type;
	size_t nr = load_segments(path, segs, 16, &type);
	struct pda_elf *e = open_elf(path);
	uint64_t v;
	struct stat st;

	ck_assert_uint_eq(type, _i ? ET_EXEC : ET_DYN);
	ck_assert_uint_ge(nr, 2);
	for (size_t i = 0; i < nr; i++) {
		uint64_t last = segs[i].offset + segs[i].filesz - 1;

		ck_assert_int_eq(pda_elf_offset_to_vaddr(e, segs[i].offset, &v),
				 0);
		ck_assert_uint_eq(v, segs[i].vaddr);
		ck_assert_int_eq(pda_elf_offset_to_vaddr(e, last, &v), 0);
		ck_assert_uint_eq(v, segs[i].vaddr + segs[i].filesz - 1);
		/* the rest of the last page is mapped too */
		if ((last + 1) & 4095) {
			ck_assert_int_eq(
				pda_elf_offset_to_vaddr(e, last + 1, &v), 0);
			ck_assert_uint_eq(v, segs[i].vaddr + segs[i].filesz);
		}
	}
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(pda_elf_offset_to_vaddr(
				 e, (uint64_t)st.st_size + (1u << 20), &v),
			 PD_ERR_NOTFOUND);
	if (_i)
		ck_assert_uint_ge(segs[0].vaddr, 0x400000);
	pda_elf_close(S, e);
}
END_TEST

/* ---- symbols ---------------------------------------------------------- */

static const char *const sym_bins[] = {"elfsyms", "elfsyms-nopie",
				       "elfsyms-now", "elfsyms-ibt"};

START_TEST(test_symbols)
{
	const char *path = bin(sym_bins[_i]);
	struct pda_elf *e;
	uint64_t leaf, leaf_size, helper, helper_size, gap, bare, bare_size;
	uint64_t alias, st, sz;

	if (!exists(path)) {
		fprintf(stderr, "test_symbols: %s not built, skipped\n",
			sym_bins[_i]);
		return;
	}
	e = open_elf(path);
	/* a sized symbol covers [value, value + size) and no more */
	leaf = sym_value(path, "sized_leaf", &leaf_size);
	ck_assert_uint_gt(leaf_size, 0);
	ck_assert_str_eq(name_at(e, leaf, &st, &sz), "sized_leaf");
	ck_assert_uint_eq(st, leaf);
	ck_assert_uint_eq(sz, leaf_size);
	ck_assert_str_eq(name_at(e, leaf + leaf_size - 1, NULL, NULL),
			 "sized_leaf");
	ck_assert_str_ne(name_at(e, leaf + leaf_size, NULL, NULL),
			 "sized_leaf");
	/* padding before an aligned function belongs to no symbol */
	helper = sym_value(path, "local_helper", &helper_size);
	gap = sym_value(path, "after_gap", NULL);
	ck_assert_str_eq(name_at(e, helper, NULL, NULL), "local_helper");
	ck_assert_uint_lt(helper + helper_size, gap - 1);
	ck_assert_str_eq(name_at(e, gap - 1, NULL, NULL), "[unknown]");
	ck_assert_str_eq(name_at(e, gap, NULL, NULL), "after_gap");
	/* a symbol without a size reaches to the next one */
	bare = sym_value(path, "bare_asm", &bare_size);
	alias = sym_value(path, "alias_target", NULL);
	ck_assert_uint_eq(bare_size, 0);
	ck_assert_uint_gt(alias, bare + 4);
	ck_assert_str_eq(name_at(e, bare + 3, &st, &sz), "bare_asm");
	ck_assert_uint_eq(st, bare);
	ck_assert_uint_eq(sz, alias - bare);
	ck_assert_str_eq(name_at(e, alias - 1, NULL, NULL), "bare_asm");
	/* of two names for one address, the global one, not the weak one */
	ck_assert_uint_eq(sym_value(path, "alias_weak", NULL), alias);
	ck_assert_str_eq(name_at(e, alias, NULL, NULL), "alias_target");
	ck_assert_str_eq(name_at(e, sym_value(path, "main", NULL), NULL, NULL),
			 "main");
	/* interned: the same pointer each time */
	ck_assert_ptr_eq(name_at(e, leaf, NULL, NULL),
			 name_at(e, leaf + 1, NULL, NULL));
	pda_elf_close(S, e);
}
END_TEST

/* PLT entries are named as objdump labels them. */
START_TEST(test_plt)
{
	const char *path = bin(sym_bins[_i]);
	char list[PMAX], line[512];
	struct pda_elf *e;
	FILE *f;
	size_t nr = 0;
	GElf_Shdr plt;

	if (!exists(path)) {
		fprintf(stderr, "test_plt: %s not built, skipped\n",
			sym_bins[_i]);
		return;
	}
	e = open_elf(path);
	et_path(list, "%s.plt", path);
	f = fopen(list, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		char name[256];
		unsigned long long addr;
		uint64_t st, sz;

		ck_assert_int_eq(sscanf(line, "%llx %255s", &addr, name), 2);
		ck_assert_str_eq(name_at(e, addr, &st, &sz), name);
		ck_assert_uint_eq(st, addr);
		ck_assert_str_eq(name_at(e, addr + sz - 1, NULL, NULL), name);
		nr++;
	}
	fclose(f);
	ck_assert_uint_ge(nr, 4); /* printf, puts, strlen, getenv */
	/* lazy binding: .plt opens with the resolver's header */
	if (!strcmp(sym_bins[_i], "elfsyms") && section(path, ".plt", &plt))
		ck_assert_str_eq(name_at(e, plt.sh_addr, NULL, NULL), ".plt");
	pda_elf_close(S, e);
}
END_TEST

START_TEST(test_minidebuginfo)
{
	const char *full = bin("elfsyms");
	uint64_t helper = sym_value(full, "local_helper", NULL);
	uint64_t leaf = sym_value(full, "sized_leaf", NULL);
	struct pda_elf *e;
	GElf_Shdr sh;

	/* stripped, .dynsym only: the local function is gone */
	e = open_elf(bin("elfsyms-strip"));
	ck_assert(!section(bin("elfsyms-strip"), ".symtab", &sh));
	ck_assert_str_ne(name_at(e, helper, NULL, NULL), "local_helper");
	ck_assert_str_eq(name_at(e, leaf, NULL, NULL), "sized_leaf");
	pda_elf_close(S, e);
	/* stripped with MiniDebugInfo: it is back */
	e = open_elf(bin("elfsyms-mini"));
	ck_assert(section(bin("elfsyms-mini"), ".gnu_debugdata", &sh));
	ck_assert_str_eq(name_at(e, helper, NULL, NULL), "local_helper");
	ck_assert_str_eq(name_at(e, helper + 1, NULL, NULL), "local_helper");
	ck_assert_str_eq(name_at(e, leaf, NULL, NULL), "sized_leaf");
	pda_elf_close(S, e);
}
END_TEST

/* An aarch64 binary built by lld, with MiniDebugInfo: data/etm_test_loop.syms.
 */
START_TEST(test_aarch64_minidebuginfo)
{
	char path[CORPUS_PATH_MAX];
	FILE *f = fopen("data/etm_test_loop.syms", "r");
	char line[512];
	struct pda_elf *e;
	size_t nr = 0;

	ck_assert_ptr_nonnull(f);
	corpus_path(path, "simpleperf/etm/etm_test_loop");
	e = open_elf(path);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long vaddr, size;
		char name[256];
		uint64_t st, sz;

		if (line[0] == '#')
			continue;
		ck_assert_int_eq(
			sscanf(line, "%llx %llu %255s", &vaddr, &size, name),
			3);
		for (uint64_t a = vaddr; a < vaddr + size; a++) {
			ck_assert_str_eq(name_at(e, a, &st, &sz), name);
			ck_assert_uint_eq(st, vaddr);
			ck_assert_uint_eq(sz, size);
		}
		nr++;
	}
	fclose(f);
	ck_assert_uint_eq(nr, 5);
	pda_elf_close(S, e);
}
END_TEST

START_TEST(test_debug_file)
{
	const char *full = bin("elfsyms");
	uint64_t helper = sym_value(full, "local_helper", NULL);
	struct pda_elf *e = open_elf(bin("elfsyms-strip"));
	struct pda_elf *dbg = open_elf(bin("elfsyms.debug"));
	const char *file;
	unsigned line;

	ck_assert_int_eq(pda_elf_srcline(S, e, helper, &file, &line),
			 PD_ERR_NOTFOUND);
	pda_elf_close(S, e);
	e = open_elf(bin("elfsyms-strip"));
	pda_elf_set_debug(e, dbg);
	ck_assert_str_eq(name_at(e, helper, NULL, NULL), "local_helper");
	ck_assert_int_eq(pda_elf_srcline(S, e, helper, &file, &line), 0);
	ck_assert_ptr_nonnull(strstr(file, "elfsyms.c"));
	ck_assert_uint_gt(line, 0);
	pda_elf_close(S, e);
	pda_elf_close(S, dbg);
}
END_TEST

/* A relocatable object: .text symbols at their file offsets. */
START_TEST(test_relocatable)
{
	const char *path = bin("elfsyms.o");
	struct pda_elf *e = open_elf(path);
	uint64_t leaf_size, leaf = sym_value(path, "sized_leaf", &leaf_size);
	uint64_t v, st, sz;
	GElf_Shdr text;

	ck_assert(section(path, ".text", &text));
	ck_assert_int_eq(pda_elf_offset_to_vaddr(e, 0x1234, &v), 0);
	ck_assert_uint_eq(v, 0x1234);
	ck_assert_str_eq(name_at(e, text.sh_offset + leaf, &st, &sz),
			 "sized_leaf");
	ck_assert_uint_eq(st, text.sh_offset + leaf);
	ck_assert_uint_eq(sz, leaf_size);
	pda_elf_close(S, e);
}
END_TEST

/* ---- perf 6.1, address by address -------------------------------------- */

/* testdata's binaries, then (from PERF61_FIRST_CORPUS) the corpus's */
static const char *const perf61_files[] = {
	"inline",	   "demo",
	"libro_sample",	   "propeller_sample_1",
	"autofdo_test",	   "cpp-inlining",
	"fork_static_gcc", "vector_static_clang",
};

#define PERF61_FIRST_CORPUS 2
/* how data/perf61-symbols.py names a corpus binary (from the repo root) */
#define PERF61_CORPUS "../shared/corpus/"

/*
 * The names perf 6.1 gives file offsets of these binaries: its symbol
 * tree replayed, PLT symbols included (pda_elf_symbol_perf61), names
 * demangled as perf demangles them.
 */
START_TEST(test_perf61)
{
	char golden[PMAX], line[4096], rel[PMAX], path[PMAX];
	struct pda_elf *e;
	FILE *f;
	size_t nr = 0;
	bool in_corpus;

	et_path(golden, "data/perf61/%s.txt", perf61_files[_i]);
	f = fopen(golden, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	ck_assert_int_eq(sscanf(line,
				"# %*s what perf version %*s names "
				"these file offsets of %4000s",
				rel),
			 1);
	/* recorded from the repository root; tests run in tests/unit */
	in_corpus = !strncmp(rel, PERF61_CORPUS, strlen(PERF61_CORPUS));
	ck_assert_msg(in_corpus == (_i >= PERF61_FIRST_CORPUS),
		      "%s: keep the corpus's binaries from PERF61_FIRST_CORPUS",
		      golden);
	if (in_corpus)
		corpus_path(path, "%s", rel + strlen(PERF61_CORPUS));
	else
		et_path(path, "../../%s", rel);
	ck_assert_msg(exists(path), "%s absent", path);
	e = open_elf(path);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long off;
		int pos = 0;
		const char *want, *got = "[unknown]", *name;
		uint64_t v, st, sz;

		line[strcspn(line, "\n")] = '\0';
		ck_assert_int_eq(sscanf(line, "%llx %n", &off, &pos), 1);
		want = line + pos;
		if (pda_elf_offset_to_vaddr(e, off, &v) == 0 &&
		    pda_elf_symbol_perf61(S, e, v, &name, &st, &sz) == 0)
			got = pda_demangle(S, name);
		ck_assert_msg(!strcmp(got, want),
			      "%s offset %llx: perf '%s', "
			      "pdtool '%s'",
			      perf61_files[_i], off, want, got);
		nr++;
	}
	fclose(f);
	ck_assert_uint_gt(nr, 100);
	pda_elf_close(S, e);
}
END_TEST

/* ---- DWARF: addr2line's answers ---------------------------------------- */

struct a2l_rec {
	char func[512];
	char file[1024];
	unsigned line; /* 0: "?" */
};

/* The .text section's [start, end) as addresses. */
static void text_range(const char *path, uint64_t *start, uint64_t *end)
{
	GElf_Shdr sh;

	ck_assert(section(path, ".text", &sh));
	*start = sh.sh_addr;
	*end = sh.sh_addr + sh.sh_size;
}

/*
 * binutils 2.40 misreads some DWARF 5 line tables: at a line sequence
 * that starts where another ends it takes the ending one's file with the
 * starting one's line (cpp-inlining: main.cpp:3346), and in some of
 * glibc's units it takes the wrong file table entry.  Such an address is
 * printed and counted, and tolerated up to 1% of the addresses compared;
 * function names and lines must agree everywhere.
 */
static size_t file_differs(uint64_t addr, const char *ours, const char *theirs)
{
	fprintf(stderr, "%llx: file '%s', addr2line '%s'\n",
		(unsigned long long)addr, ours, theirs);
	return 1;
}

/*
 * Compare pda_elf_inlines and pda_elf_srcline with binutils addr2line at
 * up to max addresses in [lo, hi) (every one when there are few, else
 * spread evenly; hi 0: the end of .text, lo 0: its start).  Where
 * addr2line has no line (code without DWARF) and where pdtool finds no
 * symbol (padding between functions: addr2line names the symbol before
 * it, perf would show [unknown]) there is nothing to compare.  Where
 * DWARF has no function (assembly in a C file) addr2line names the ELF
 * symbol and pdtool reports no chain: its caller names the frame by that
 * symbol too.  binutils 2.40 names the caller, not the inlined function,
 * at an inlined instance's first instruction: there the innermost name is
 * not compared.
 */
static void compare_addr2line(const char *path, uint64_t lo, uint64_t hi,
			      size_t max)
{
	char dir[PMAX], in[PMAX], out[PMAX], cmd[3 * PMAX], line[2048];
	uint64_t start, end, step;
	struct pda_elf *e = open_elf(path);
	struct pda_inline chain[64];
	struct a2l_rec recs[64];
	size_t nr_recs = 0, compared = 0, asked = 0, file_only = 0;
	uint64_t addr = 0;
	bool have = false;
	FILE *f;
	char *tmp = et_tmpdir();

	text_range(path, &start, &end);
	if (lo)
		start = lo;
	if (hi)
		end = hi;
	step = (end - start) / max ? (end - start) / max : 1;
	et_path(dir, "%s", tmp);
	et_path(in, "%s/addrs", dir);
	et_path(out, "%s/a2l", dir);
	f = fopen(in, "w");
	ck_assert_ptr_nonnull(f);
	/* binutils 2.40 misnames the first address a process is asked */
	fputs("0\n", f);
	for (uint64_t a = start; a < end; a += step, asked++)
		fprintf(f, "%llx\n", (unsigned long long)a);
	fclose(f);
	et_path(cmd, "addr2line -a -f -i -e '%s' < '%s' > '%s'", path, in, out);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
	f = fopen(out, "r");
	ck_assert_ptr_nonnull(f);
	for (;;) {
		bool eof = !fgets(line, sizeof(line), f);

		line[strcspn(line, "\n")] = '\0';
		if ((eof || !strncmp(line, "0x", 2)) && have && addr) {
			size_t nr;
			const char *file, *s_name;
			unsigned ln;
			uint64_t st, sz;
			bool padding = pda_elf_symbol(S, e, addr, &s_name, &st,
						      &sz) == PD_ERR_NOTFOUND;
			bool other_file = false;

			ck_assert_int_eq(
				pda_elf_inlines(S, e, addr, chain, 64, &nr), 0);
			if (recs[0].line && !padding) {
				if (nr == 0) {
					ck_assert_uint_eq(nr_recs, 1);
					ck_assert_str_eq(s_name, recs[0].func);
				}
				ck_assert_msg(nr == 0 || nr == nr_recs,
					      "%s %llx: %zu frames, addr2line "
					      "%zu (%s)",
					      path, (unsigned long long)addr,
					      nr, nr_recs, recs[0].func);
				for (size_t i = 0; i < nr; i++) {
					bool quirk = i == 0 && nr > 1 &&
						     !strcmp(recs[0].func,
							     recs[1].func);

					if (!quirk)
						ck_assert_str_eq(chain[i].func,
								 recs[i].func);
					ck_assert_ptr_nonnull(chain[i].file);
					if (!other_file &&
					    strcmp(chain[i].file, recs[i].file))
						other_file = file_differs(
							addr, chain[i].file,
							recs[i].file);
					ck_assert_uint_eq(chain[i].line,
							  recs[i].line);
				}
				ck_assert_int_eq(
					pda_elf_srcline(S, e, addr, &file, &ln),
					0);
				if (!other_file && strcmp(file, recs[0].file))
					other_file = file_differs(addr, file,
								  recs[0].file);
				ck_assert_uint_eq(ln, recs[0].line);
				file_only += other_file;
				compared++;
			}
		}
		if (eof)
			break;
		if (!strncmp(line, "0x", 2)) {
			addr = strtoull(line, NULL, 16);
			nr_recs = 0;
			have = true;
			continue;
		}
		/* a function line, then its file:line */
		ck_assert_uint_lt(nr_recs, 64);
		et_path(recs[nr_recs].func, "%s", line);
		ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
		line[strcspn(line, "\n")] = '\0';
		{
			char *colon = strrchr(line, ':'), *disc;

			ck_assert_ptr_nonnull(colon);
			*colon = '\0';
			disc = strstr(colon + 1, " (discriminator");
			if (disc)
				*disc = '\0';
			et_path(recs[nr_recs].file, "%s", line);
			recs[nr_recs].line =
				isdigit((unsigned char)colon[1])
					? (unsigned)strtoul(colon + 1, NULL, 10)
					: 0;
		}
		nr_recs++;
	}
	fclose(f);
	et_rmtree(tmp);
	free(tmp);
	ck_assert_msg(file_only <= compared / 100,
		      "%s: %zu of %zu addresses in another file than "
		      "addr2line's",
		      path, file_only, compared);
	ck_assert_msg(compared > asked / 4, "%s: %zu of %zu addresses compared",
		      path, compared, asked);
	pda_elf_close(S, e);
}

START_TEST(test_inline_testdata)
{
	compare_addr2line("../../testdata/bin/inline", 0, 0, 4096);
	compare_addr2line("../../testdata/bin/demo", 0, 0, 4096);
}
END_TEST

START_TEST(test_inline_elfsyms)
{
	compare_addr2line(bin("elfsyms"), 0, 0, 4096);
}
END_TEST

START_TEST(test_inline_corpus)
{
	char path[CORPUS_PATH_MAX];
	uint64_t main_addr;

	corpus_path(path, "perfparser/cpp-inlining/cpp-inlining");
	/* a static binary: the program's own code, with DWARF, is near main */
	main_addr = sym_value(path, "main", NULL);
	compare_addr2line(path, main_addr, main_addr + 0x300, 4096);
}
END_TEST

/* The C++ capture's program: square_sum inlined into run at line 34. */
START_TEST(test_inline_chain)
{
	const char *path = "../../testdata/bin/inline";
	struct pda_elf *e = open_elf(path);
	uint64_t run, run_size, st, sz;
	struct pda_inline chain[8];
	size_t nr, found = 0;

	run = sym_value(path, "_ZN6pdtest11AccumulatorImE3runEm", &run_size);
	for (uint64_t a = run; a < run + run_size; a++) {
		ck_assert_int_eq(pda_elf_inlines(S, e, a, chain, 8, &nr), 0);
		ck_assert_uint_ge(nr, 1);
		ck_assert_str_eq(chain[nr - 1].func,
				 "_ZN6pdtest11AccumulatorImE3runEm");
		if (nr == 2) {
			ck_assert_str_eq(chain[0].func, "square_sum");
			ck_assert_uint_eq(chain[1].line, 34);
			ck_assert_ptr_nonnull(
				strstr(chain[1].file, "src/inline.cpp"));
			found++;
		}
	}
	ck_assert_uint_gt(found, 8);
	/* max keeps the innermost */
	ck_assert_int_eq(
		pda_elf_inlines(S, e, run + run_size / 2, chain, 1, &nr), 0);
	ck_assert_uint_eq(nr, 1);
	ck_assert_str_eq(chain[0].func, "square_sum");
	ck_assert_str_eq(name_at(e, run, &st, &sz),
			 "_ZN6pdtest11AccumulatorImE3runEm");
	ck_assert_str_eq(pda_demangle(S, "_ZN6pdtest11AccumulatorImE3runEm"),
			 "pdtest::Accumulator<unsigned long>::run");
	pda_elf_close(S, e);
}
END_TEST

/* ---- DWARF loaded ahead (pda_dwahead.c) ------------------------------ */

struct ahead_run {
	struct pda_dwahead *a;
	unsigned nr_runs;
};

static void *ahead_main(void *arg)
{
	struct ahead_run *r = arg;

	while (pda_dwahead_run(S, r->a))
		r->nr_runs++;
	return NULL;
}

/*
 * Loading path's DWARF ahead on another thread, while this one looks up
 * in a second handle of it, changes no answer: inline chains with
 * addr2line's names (which depend on the order of the lookups), source
 * lines and addr2line's symbols, asked in the same order of both.  A
 * queue closed before its turn leaves the handle untouched.
 */
static void check_ahead(const char *path)
{
	struct pda_elf *e = open_elf(path), *ref = open_elf(path);
	struct pda_inline got[16], want[16];
	struct ahead_run r = {NULL, 0};
	uint64_t start, end, step;
	size_t nr_got, nr_want, nr_addrs = 0;
	pthread_t t;

	text_range(path, &start, &end);
	step = (end - start) / 997 ? (end - start) / 997 : 1;
	ck_assert_int_eq(pda_dwahead_new(S, &r.a), 0);
	for (uint64_t a = start; a < end; a += step, nr_addrs++)
		pda_dwahead_add(S, r.a, e, a);
	pda_session_threads(S, true);
	ck_assert_int_eq(pthread_create(&t, NULL, ahead_main, &r), 0);
	/* meanwhile: the reference's answers, and the allocator shared */
	for (uint64_t a = start; a < end; a += step)
		ck_assert_int_eq(pda_elf_inlines_a2l(S, ref, a, want, 16,
						     &nr_want),
				 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	pda_dwahead_close(S, r.a);
	pda_session_threads(S, false);
	ck_assert_uint_ge(r.nr_runs, nr_addrs / 16);
	ck_assert_int_eq(e->dwarf_state, 1);
	ck_assert_ptr_nonnull(e->a2l);
	/* closed: nothing more is taken */
	pda_dwahead_add(S, r.a, e, start);
	ck_assert(!pda_dwahead_run(S, r.a));
	pda_dwahead_free(S, r.a);
	pda_elf_close(S, ref);
	ref = open_elf(path);
	for (uint64_t a = start; a < end; a += step) {
		const char *f1, *f2, *n1, *n2;
		unsigned l1, l2;
		uint64_t s1, s2;
		int rc1, rc2;

		ck_assert_int_eq(pda_elf_inlines_a2l(S, e, a, got, 16, &nr_got),
				 0);
		ck_assert_int_eq(pda_elf_inlines_a2l(S, ref, a, want, 16,
						     &nr_want),
				 0);
		ck_assert_uint_eq(nr_got, nr_want);
		for (size_t i = 0; i < nr_got; i++) {
			ck_assert_str_eq(got[i].func, want[i].func);
			ck_assert_ptr_eq(got[i].file, want[i].file);
			ck_assert_uint_eq(got[i].line, want[i].line);
		}
		rc1 = pda_elf_srcline(S, e, a, &f1, &l1);
		rc2 = pda_elf_srcline(S, ref, a, &f2, &l2);
		ck_assert_int_eq(rc1, rc2);
		ck_assert_ptr_eq(f1, f2);
		ck_assert_uint_eq(l1, l2);
		rc1 = pda_elf_symbol_a2l(S, e, a, &n1, &s1);
		rc2 = pda_elf_symbol_a2l(S, ref, a, &n2, &s2);
		ck_assert_int_eq(rc1, rc2);
		if (rc1 == 0) {
			ck_assert_ptr_eq(n1, n2);
			ck_assert_uint_eq(s1, s2);
		}
	}
	pda_elf_close(S, e);
	pda_elf_close(S, ref);
	/* closed before its turn: nothing loaded */
	e = open_elf(path);
	ck_assert_int_eq(pda_dwahead_new(S, &r.a), 0);
	pda_dwahead_add(S, r.a, e, start);
	pda_dwahead_close(S, r.a);
	ck_assert(!pda_dwahead_run(S, r.a));
	ck_assert_int_eq(e->dwarf_state, 0);
	pda_dwahead_free(S, r.a);
	pda_elf_close(S, e);
}

/* zpath: testdata/bin/inline with its DWARF compressed, in dir tmp. */
static void compressed_inline(char *zpath, const char *tmp)
{
	char cmd[3 * PMAX];

	et_path(zpath, "%s/inline-z", tmp);
	et_path(cmd,
		"objcopy --compress-debug-sections=zlib "
		"../../testdata/bin/inline '%s'",
		zpath);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
}

START_TEST(test_dwarf_ahead)
{
	char zpath[PMAX];
	char *tmp = et_tmpdir();

	check_ahead("../../testdata/bin/inline");
	check_ahead("../../testdata/bin/demo");
	/* compressed sections: the inflating libdw does ahead */
	compressed_inline(zpath, tmp);
	check_ahead(zpath);
	et_rmtree(tmp);
	free(tmp);
}
END_TEST

/* A handle of pda_elf_begin_copy on path's pda_elf: libdw opens its
 * DWARF (inflating compressed sections) without writing the image. */
static void check_begin_copy(const char *path, bool from_image)
{
	struct pda_elf *e, *img = NULL;
	const unsigned char *bytes;
	size_t size;
	Dwarf *dw;
	Elf *elf;

	ck_assert_int_eq(pda_elf_open(S, path, &e), 0);
	bytes = pda_elf_image(e, &size);
	ck_assert_ptr_nonnull(bytes);
	if (from_image)
		ck_assert_int_eq(
			pda_elf_open_image(S, "image", bytes, size, &img), 0);
	elf = pda_elf_begin_copy(img ? img : e);
	if (img && img->compressed) {
		/* no file to open again: none rather than a SIGSEGV */
		ck_assert_ptr_null(elf);
	} else {
		ck_assert_ptr_nonnull(elf);
		dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		ck_assert_ptr_nonnull(dw);
		dwarf_end(dw);
		elf_end(elf);
	}
	if (img)
		pda_elf_close(S, img);
	pda_elf_close(S, e);
}

START_TEST(test_begin_copy)
{
	char zpath[PMAX];
	char *tmp = et_tmpdir();
	struct pda_elf *e;

	check_begin_copy("../../testdata/bin/inline", false);
	check_begin_copy("../../testdata/bin/inline", true);
	/* compressed DWARF, as Go links it: libdw rewrites the headers of
	 * the sections it inflates, which the read-only mapping of an
	 * elf_memory image cannot take */
	compressed_inline(zpath, tmp);
	ck_assert_int_eq(pda_elf_open(S, zpath, &e), 0);
	ck_assert(e->compressed);
	pda_elf_close(S, e);
	check_begin_copy(zpath, false);
	check_begin_copy(zpath, true);
	et_rmtree(tmp);
	free(tmp);
}
END_TEST

/* ---- out of memory ---------------------------------------------------- */

/* Every allocation of open, symbols, inlines and srcline, failed in turn. */
START_TEST(test_nomem)
{
	const char *path = bin("elfsyms");
	uint64_t helper = sym_value(path, "local_helper", NULL);
	bool done = false;

	for (long n = 0; !done && n < 2000; n++) {
		struct pda_elf *e = NULL;
		struct pda_inline chain[8];
		const char *name, *file;
		uint64_t st, sz;
		size_t nr;
		unsigned line;
		int rc;

		failalloc_init(&fa, (unsigned long)n + 1, false);
		rc = pda_elf_open(S, path, &e);
		if (rc == 0) {
			rc = pda_elf_symbol(S, e, helper, &name, &st, &sz);
			ck_assert(rc == 0 || rc == PD_ERR_NOMEM);
			if (rc == 0)
				ck_assert_str_eq(name, "local_helper");
			rc = pda_elf_inlines(S, e, helper, chain, 8, &nr);
			ck_assert(rc == 0 || rc == PD_ERR_NOMEM);
			rc = pda_elf_srcline(S, e, helper, &file, &line);
			ck_assert(rc == 0 || rc == PD_ERR_NOMEM);
			/* after a failure, the same calls work */
			fa.fail_at = 0;
			ck_assert_int_eq(
				pda_elf_symbol(S, e, helper, &name, &st, &sz),
				0);
			ck_assert_str_eq(name, "local_helper");
			ck_assert_int_eq(
				pda_elf_srcline(S, e, helper, &file, &line), 0);
			pda_elf_close(S, e);
		} else {
			ck_assert_int_eq(rc, PD_ERR_NOMEM);
			ck_assert_ptr_null(e);
		}
		done = !fa.nr_failed;
	}
	fa.fail_at = 0;
	ck_assert(done);
}
END_TEST

Suite *elf_suite(void)
{
	Suite *s = suite_create("elf");
	TCase *tc = tcase_create("elf");
	TCase *tk;

	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, build_bins, remove_bins);
	tcase_add_checked_fixture(tc, session_setup, session_teardown);
	tcase_add_test(tc, test_open_errors);
	tcase_add_test(tc, test_build_id);
	tcase_add_test(tc, test_debuglink);
	tcase_add_loop_test(tc, test_offset_to_vaddr, 0, 2);
	tcase_add_loop_test(tc, test_symbols, 0, 4);
	tcase_add_loop_test(tc, test_plt, 0, 4);
	tcase_add_test(tc, test_minidebuginfo);
	tcase_add_test(tc, test_debug_file);
	tcase_add_test(tc, test_relocatable);
	tcase_add_loop_test(tc, test_perf61, 0, PERF61_FIRST_CORPUS);
	tcase_add_test(tc, test_inline_testdata);
	tcase_add_test(tc, test_inline_elfsyms);
	tcase_add_test(tc, test_inline_chain);
	tcase_add_test(tc, test_dwarf_ahead);
	tcase_add_test(tc, test_begin_copy);
	tcase_add_test(tc, test_nomem);
	suite_add_tcase(s, tc);
	tk = corpus_tcase(s, "elf");
	tcase_set_timeout(tk, 60);
	tcase_add_checked_fixture(tk, session_setup, session_teardown);
	corpus_add(tk, test_aarch64_minidebuginfo, 0, 1);
	corpus_add(tk, test_perf61, PERF61_FIRST_CORPUS,
		   sizeof(perf61_files) / sizeof(perf61_files[0]));
	corpus_add(tk, test_inline_corpus, 0, 1);
	return s;
}
