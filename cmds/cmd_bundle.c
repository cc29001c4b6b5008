/*
 * cmd_bundle.c - pdtool's capture bundles (issue 22): `pdtool archive`
 * writes one, every command reads one as its capture.
 *
 * A bundle (.pdz) is a tar, zstd-compressed as a whole (cmd_tarw.c), of:
 *
 *	MANIFEST		what it holds and what it lacks, and why
 *	perf.data		the capture
 *	.build-id/XX/REST/elf	each binary samples hit, by build-id (perf's
 *	.build-id/XX/REST/debug	 build-id cache layout), its debug file,
 *	.build-id/XX/REST/vdso	 the vdso
 *	root/PATH		a binary without a build-id, at its recorded
 *				path (a --symfs tree)
 *	jit/perf-PID.map	the JIT maps samples hit
 *	kallsyms		the recording host's /proc/kallsyms
 *
 * MANIFEST comes first, so that a reader tells a bundle from its first
 * block.  Reading one (cmd_bundle_open, from cmd_input_open): the whole
 * stream inflated into an unlinked temporary file, the tar extracted by
 * cmd_archive.c's rules into the run's private directory with no link,
 * device or FIFO allowed, the capture opened from the member's bytes in
 * memory; cmd_pda_opts() then gives the session the tree as --symfs,
 * --buildid-dir, --kallsyms and --jit-dir would, unless the user gave
 * those options.
 */
#include "pdtool.h"
#include "cmd_tar.h"
#include "pda_capture.h"
#include "pda_session.h"
#include "pda_strip.h"
#include "pdc_strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#define MANIFEST "MANIFEST"
#define MANIFEST_MAGIC "pdtool-bundle: 1\n"
#define CAPTURE "perf.data"
/* a member read into memory at most (binaries, debug files) */
#define MEMBER_MAX ((uint64_t)1 << 32)

struct cmd_bundle {
	struct cmd_bundle *next; /* ctx->bundles: every bundle opened */
	char *name;	      /* "BUNDLE:perf.data", the capture's name */
	const char *dir;      /* the extracted tree */
	const char *symfs;    /* dir/root when the bundle has one, or NULL */
	const char *kallsyms; /* dir/kallsyms, or NULL */
	const char *jit_dir;  /* dir/jit, or NULL */
};

/* ---- reading ------------------------------------------------------- */

int cmd_bundle_probe(int fd)
{
	unsigned char in[16384], out[512];
	ZSTD_outBuffer ob = {out, sizeof(out), 0};
	ZSTD_DCtx *z = ZSTD_createDCtx();
	off_t off = 0;
	bool ok = z != NULL, ended = false;

	/* a compressed block holds up to 128 KiB: the first 512 bytes may
	 * need the whole of the first one */
	while (ok && ob.pos < ob.size && off < (1 << 20)) {
		const ssize_t n = pread(fd, in, sizeof(in), off);
		ZSTD_inBuffer ib = {in, n > 0 ? (size_t)n : 0, 0};

		if (n <= 0) {
			ended = n == 0;
			break;
		}
		off += n;
		while (ok && ob.pos < ob.size && ib.pos < ib.size) {
			const size_t r = ZSTD_decompressStream(z, &ob, &ib);

			ok = !ZSTD_isError(r) && r != 0;
		}
	}
	ZSTD_freeDCtx(z);
	/* the stream ended, undamaged so far, before 512 bytes: cut */
	if (ok && ended && ob.pos < sizeof(out))
		return -1;
	/* a tar whose first member is the manifest */
	return ob.pos == sizeof(out) && cmd_tar_is_tar(out, ob.pos) &&
	       memcmp(out, MANIFEST, sizeof(MANIFEST)) == 0;
}

/* dir/name when it exists as type (S_IFREG, S_IFDIR), else NULL. */
static const char *member_path(const char *dir, const char *name,
			       mode_t type)
{
	char p[4096];
	struct stat sb;
	char *copy;

	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p) ||
	    lstat(p, &sb) < 0 || (sb.st_mode & S_IFMT) != type)
		return NULL;
	copy = strdup(p);
	return copy;
}

int cmd_bundle_open(struct pd_ctx *ctx, int fd, const char *path,
		    struct pd_open_opts *opts, struct pd_file **out)
{
	struct cmd_bundle *b = calloc(1, sizeof(*b));
	const unsigned char *buf;
	struct cmd_tar t;
	struct cmd_tar_entry e;
	size_t len;
	int rc;
	bool manifest = false;

	if (!b)
		die(ctx, "out of memory");
	/* the caller read its head ahead */
	if (lseek(fd, 0, SEEK_SET) < 0)
		die(ctx, "cannot read '%s': %s", path, strerror(errno));
	buf = cmd_input_spool_zstd(ctx, fd, path, &len);
	if (!buf || !cmd_tar_is_tar(buf, len))
		die(ctx, "'%s': a zstd-compressed file that is not a tar: not "
			 "a pdtool bundle",
		    path);
	b->dir = cmd_archive_tree(ctx, buf, len, path);
	b->symfs = member_path(b->dir, "root", S_IFDIR);
	b->kallsyms = member_path(b->dir, "kallsyms", S_IFREG);
	b->jit_dir = member_path(b->dir, "jit", S_IFDIR);
	/* the capture from the tar's bytes: the extracted copy is only
	 * what the layout needs */
	cmd_tar_init(&t, buf, len);
	while ((rc = cmd_tar_next(&t, &e)) > 0) {
		if (!strcmp(e.name, MANIFEST) && e.type == CMD_TAR_FILE)
			manifest = e.size >= sizeof(MANIFEST_MAGIC) - 1 &&
				   memcmp(e.data, MANIFEST_MAGIC,
					  sizeof(MANIFEST_MAGIC) - 1) == 0;
		if (!strcmp(e.name, CAPTURE) && e.type == CMD_TAR_FILE)
			break;
	}
	if (rc < 0)
		die(ctx, "'%s': %s", path, t.err);
	if (!manifest)
		die(ctx, "'%s': a tar whose MANIFEST is not a pdtool bundle's "
			 "(version 1)",
		    path);
	if (!rc)
		die(ctx, "'%s': a pdtool bundle without its capture ('%s')",
		    path, CAPTURE);
	b->next = ctx->bundles;
	ctx->bundles = b;
	ctx->bundle = b;
	{
		const size_t n = strlen(path) + sizeof(":" CAPTURE);

		b->name = malloc(n);
		if (!b->name)
			die(ctx, "out of memory");
		snprintf(b->name, n, "%s:%s", path, CAPTURE);
		opts->name = b->name;
	}
	return pd_file_open_mem(e.data, (size_t)e.size, opts, out);
}

void cmd_bundle_release(struct pd_ctx *ctx)
{
	struct cmd_bundle *b, *next;

	for (b = ctx->bundles; b; b = next) {
		next = b->next;
		free(b->name);
		free((void *)(uintptr_t)b->dir);
		free((void *)(uintptr_t)b->symfs);
		free((void *)(uintptr_t)b->kallsyms);
		free((void *)(uintptr_t)b->jit_dir);
		free(b);
	}
	ctx->bundles = NULL;
	ctx->bundle = NULL;
}

void cmd_bundle_opts(const struct pd_ctx *ctx, const struct cmd_symopts *o,
		     struct pda_opts *po)
{
	const struct cmd_bundle *b = ctx->bundle;

	if (!b)
		return;
	/* what the user names wins; the rest comes from the bundle */
	if (!o->symfs)
		po->symfs = b->symfs ? b->symfs : b->dir;
	if (!o->buildid_dir && !o->archive)
		po->buildid_dir = b->dir;
	if (!o->kallsyms && !o->vmlinux && b->kallsyms)
		po->kallsyms = b->kallsyms;
	if (!o->jit_dir && b->jit_dir)
		po->jit_dir = b->jit_dir;
	/* the bundle stands for the recording host: this one's kernel
	 * only when asked */
	po->use_host_kernel = o->host_kernel > 0;
}

/* ---- writing: pdtool archive --------------------------------------- */

const char cmd_archive_usage[] = "pdtool archive [OPTIONS] [FILE] [-o OUT]";
const char cmd_archive_summary[] =
	"pack a capture and the files its samples hit into one bundle";
const char cmd_archive_options[] =
	"  -i, --input FILE      the capture; the same as FILE\n"
	"  -o, --output OUT      the bundle (default: FILE.pdz)\n"
	"  -l, --level N         zstd level, 1 to 19 (default 9)\n"
	CMD_FIND_HELP
	CMD_SYMBOL_HELP
	"      --strip-to-symbols\n"
	"                        pack of each binary and debug file only\n"
	"                        its symbol tables, CFI, line tables and\n"
	"                        the code of the functions samples hit, of\n"
	"                        kallsyms the lines around their addresses\n"
	"      --strict          exit 1 when a binary samples hit is not\n"
	"                        packed\n"
	"  -v, --verbose         say what is packed\n"
	"  -h, --help            show this help\n";

enum { OPT_STRICT = 0x2000, OPT_STRIP };

/* The hits of kernel frames (the kernel's and modules'), by pointer. */
static const char KERNEL_HITS[] = "[kernel hits]";

/* The addresses samples hit in one DSO, for --strip-to-symbols. */
struct hits {
	const char *dso; /* the frames' pointer */
	uint64_t *addrs;
	size_t nr, alloc;
	bool sorted;
};

struct pack {
	struct pd_ctx *ctx;
	struct cmd_tarw *tw;
	const struct cmd_symopts *sym;
	struct pdc_strbuf *man; /* the manifest's lines */
	char **names;		/* members written, for duplicates */
	size_t nr_names, names_alloc;
	const char *symfs;	/* --symfs made absolute, or NULL */
	uint64_t nr_found, nr_missing, bytes;
	/* the source files of the frames samples hit (interned by the
	 * session: distinct pointers are distinct names) */
	const char **srcs;
	size_t nr_srcs, srcs_alloc;
	uint64_t nr_src_found, nr_src_missing;
	/* the first walk: what would be packed, for the manifest, which
	 * goes first; nothing is read or written */
	bool dry;
	/* --strip-to-symbols: the session that strips, the addresses */
	struct pda_session *strip;
	struct hits *hits;
	size_t nr_hits, hits_alloc;
	uint64_t nr_stripped, stripped_from;
};

static void man_add(struct pack *k, const char *fmt, ...) PD_PRINTF(2, 3);
static void man_add(struct pack *k, const char *fmt, ...)
{
	char line[8192];
	va_list ap;

	if (!k->dry)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pdc_strbuf_add(k->man, line, strlen(line));
}

/* Whether member name was written already (then true); else noted. */
static bool seen(struct pack *k, const char *name)
{
	char *copy;

	for (size_t i = 0; i < k->nr_names; i++)
		if (!strcmp(k->names[i], name))
			return true;
	if (k->nr_names == k->names_alloc) {
		size_t n = k->names_alloc ? 2 * k->names_alloc : 64;
		char **v = realloc(k->names, n * sizeof(*v));

		if (!v)
			die(k->ctx, "out of memory");
		k->names = v;
		k->names_alloc = n;
	}
	copy = strdup(name);
	if (!copy)
		die(k->ctx, "out of memory");
	k->names[k->nr_names++] = copy;
	return false;
}

static void add_bytes(struct pack *k, const char *member, const void *p,
		      uint64_t n, unsigned mode)
{
	if (seen(k, member) || k->dry)
		return;
	if (cmd_tarw_add(k->tw, member, p, n, mode, (int64_t)time(NULL)) < 0)
		die(k->ctx, "'%s': %s", member, k->tw->err);
	k->bytes += n;
	if (k->ctx->verbose)
		eprintf("pdtool %s: packed '%s' (%" PRIu64 " bytes)\n",
			k->ctx->cmd, member, n);
}

/* The file at path as member: false (with *why) when it cannot be read. */
static bool add_file(struct pack *k, const char *member, const char *path,
		     const char **why)
{
	struct stat sb;
	void *map;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		*why = fd < 0 ? strerror(errno) : "not a regular file";
		if (fd >= 0)
			close(fd);
		return false;
	}
	if ((uint64_t)sb.st_size > MEMBER_MAX) {
		close(fd);
		*why = "larger than 4 GiB";
		return false;
	}
	if (k->dry) {
		close(fd);
		return true;
	}
	map = sb.st_size ? mmap(NULL, (size_t)sb.st_size, PROT_READ,
				MAP_PRIVATE, fd, 0)
			 : NULL;
	close(fd);
	if (map == MAP_FAILED) {
		*why = strerror(errno);
		return false;
	}
	add_bytes(k, member, map, (uint64_t)sb.st_size,
		  (sb.st_mode & 0111) ? 0755 : 0644);
	if (map)
		munmap(map, (size_t)sb.st_size);
	return true;
}

/* The address frame fr hit in its DSO, noted for --strip-to-symbols. */
static int note_hit(struct pack *k, const struct pda_frame *fr)
{
	/* the kernel and its modules: one set, kallsyms' addresses */
	const char *dso = fr->flags & PDA_FRAME_KERNEL ? KERNEL_HITS : fr->dso;
	struct hits *h = NULL;

	for (size_t i = k->nr_hits; i > 0; i--)
		if (k->hits[i - 1].dso == dso) {
			h = &k->hits[i - 1];
			break;
		}
	if (!h) {
		if (k->nr_hits == k->hits_alloc) {
			const size_t n = k->hits_alloc ? 2 * k->hits_alloc : 16;
			struct hits *v = realloc(k->hits, n * sizeof(*v));

			if (!v)
				return PD_ERR_NOMEM;
			k->hits = v;
			k->hits_alloc = n;
		}
		h = &k->hits[k->nr_hits++];
		memset(h, 0, sizeof(*h));
		h->dso = dso;
	}
	if (h->nr && h->addrs[h->nr - 1] == fr->dso_addr)
		return 0; /* an inlined frame: the same address */
	if (h->nr == h->alloc) {
		const size_t n = h->alloc ? 2 * h->alloc : 64;
		uint64_t *v = realloc(h->addrs, n * sizeof(*v));

		if (!v)
			return PD_ERR_NOMEM;
		h->addrs = v;
		h->alloc = n;
	}
	h->addrs[h->nr++] = fr->dso_addr;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The addresses samples hit in DSO dso (as the session names it),
 * sorted: *nr of them, NULL when none. */
static const uint64_t *hits_of(struct pack *k, const char *dso, size_t *nr)
{
	for (size_t i = 0; i < k->nr_hits; i++) {
		struct hits *h = &k->hits[i];

		if (h->dso != dso && strcmp(h->dso, dso) != 0)
			continue;
		if (!h->sorted && h->nr > 1)
			qsort(h->addrs, h->nr, sizeof(*h->addrs), cmp_u64);
		h->sorted = true;
		*nr = h->nr;
		return h->addrs;
	}
	*nr = 0;
	return NULL;
}

/*
 * The ELF file at path as member, with --strip-to-symbols cut down to
 * what reading the capture needs (the functions at dso's hit addresses,
 * bounded by path's or sym's symbols); a file that cannot be stripped
 * goes whole.  false (with *why) when it cannot be read.
 */
static bool add_elf(struct pack *k, const char *member, const char *path,
		    const char *sym, const char *dso, const char **why)
{
	struct pda_strip st;
	const uint64_t *addrs;
	size_t nr;
	int rc;

	if (!k->strip || k->dry)
		return add_file(k, member, path, why);
	addrs = hits_of(k, dso, &nr);
	rc = pda_strip_elf(k->strip, path, sym, addrs, nr, &st);
	if (rc < 0) {
		if (rc == PD_ERR_NOMEM)
			die(k->ctx, "out of memory");
		warning(k->ctx, "'%s': packed whole: %s", path,
			pda_session_errmsg(k->strip));
		return add_file(k, member, path, why);
	}
	add_bytes(k, member, st.data, st.size, 0644);
	k->nr_stripped++;
	k->stripped_from += st.orig_size;
	if (k->ctx->verbose)
		eprintf("pdtool %s: '%s': %zu of %zu bytes kept, %u sections "
			"dropped, %" PRIu64 " bytes of code\n",
			k->ctx->cmd, path, st.size, st.orig_size,
			st.nr_dropped, st.code_kept);
	pda_strip_free(k->strip, &st);
	return true;
}

static void hex(char *out, const unsigned char *id, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", id[i]);
	out[2 * n] = '\0';
}

/* A path as a member under root/ (the bundle's --symfs tree), --symfs's
 * own prefix taken off: false when it climbs. */
static bool root_member(const struct pack *k, char *out, size_t size,
			const char *path)
{
	const char *p = path;
	const size_t n = k->symfs ? strlen(k->symfs) : 0;

	if (n && !strncmp(p, k->symfs, n) && p[n] == '/')
		p += n;
	while (*p == '/')
		p++;
	if (!*p || strstr(p, "/../") || !strncmp(p, "../", 3) ||
	    (strlen(p) >= 3 && !strcmp(p + strlen(p) - 3, "/..")) ||
	    !strcmp(p, ".."))
		return false;
	return snprintf(out, size, "root/%s", p) < (int)size;
}

static void pack_jit(struct pack *k, const struct pda_dso_files *f)
{
	const char *base = strrchr(f->dso, '/');
	const char *dir = k->sym->jit_dir ? k->sym->jit_dir : "/tmp";
	char path[4096], member[4096];
	const char *why = "not found";

	if (f->jitdump) {
		/* the jitdump the session read: a reader finds it in the
		 * bundle's jit/ (its --jit-dir) by its file name */
		base = strrchr(f->jitdump, '/');
		base = base ? base + 1 : f->jitdump;
		snprintf(member, sizeof(member), "jit/%s", base);
		if (add_file(k, member, f->jitdump, &why)) {
			man_add(k, "found: %s jitdump=%s samples=%" PRIu64 "\n",
				f->dso, member, f->nr_samples);
			man_add(k, "from: %s %s\n", member, f->jitdump);
			k->nr_found++;
			return;
		}
		man_add(k, "missing: %s ('%s': %s)\n", f->dso, f->jitdump,
			why);
		k->nr_missing++;
		return;
	}
	base = base ? base + 1 : f->dso;
	if (strncmp(base, "perf-", 5) != 0 ||
	    snprintf(path, sizeof(path), "%s/%s", dir, base) >=
		    (int)sizeof(path) ||
	    snprintf(member, sizeof(member), "jit/%s", base) >=
		    (int)sizeof(member)) {
		man_add(k, "missing: %s (not a perf-PID.map)\n", f->dso);
		k->nr_missing++;
		return;
	}
	if (add_file(k, member, path, &why)) {
		man_add(k, "found: %s jit=%s samples=%" PRIu64 "\n", f->dso,
			member, f->nr_samples);
		k->nr_found++;
		return;
	}
	man_add(k, "missing: %s ('%s': %s)\n", f->dso, path, why);
	k->nr_missing++;
}

static int pack_dso(void *arg, const struct pda_dso_files *f)
{
	struct pack *k = arg;
	char id[2 * 32 + 1], member[4096], dmember[4096];
	const char *why = NULL;
	bool have_bin = false, have_dbg = false;

	if (f->kernel)
		return 0; /* kallsyms, packed on its own */
	if (f->jit) {
		pack_jit(k, f);
		return 0;
	}
	if (!f->binary && !f->image && !f->debug) {
		man_add(k, "missing: %s (%s)\n", f->dso,
			f->why ? f->why : "not found");
		k->nr_missing++;
		return 0;
	}
	hex(id, f->build_id, f->build_id_size < 32 ? f->build_id_size : 32);
	/* a debug file by the build-id, the capture's or, where it has
	 * none, the binary's, which a reader adopts to look it up */
	if (f->build_id_size)
		snprintf(dmember, sizeof(dmember), ".build-id/%.2s/%s/debug",
			 id, id + 2);
	else
		dmember[0] = '\0';
	if (f->build_id_recorded) {
		snprintf(member, sizeof(member), ".build-id/%.2s/%s/%s", id,
			 id + 2, f->vdso ? "vdso" : "elf");
	} else if (f->vdso ||
		   !root_member(k, member, sizeof(member), f->dso)) {
		/* no build-id in the capture: where --symfs has it */
		man_add(k, "missing: %s (no build-id to file it under)\n",
			f->dso);
		k->nr_missing++;
		return 0;
	}
	if (f->image) {
		add_bytes(k, member, f->image, f->image_size, 0644);
		have_bin = true;
	} else if (f->binary) {
		have_bin = add_elf(k, member, f->binary, f->debug, f->dso,
				   &why);
	}
	if (f->debug && dmember[0])
		have_dbg = add_elf(k, dmember, f->debug, NULL, f->dso, &why);
	if (!have_bin && !have_dbg) {
		man_add(k, "missing: %s ('%s': %s)\n", f->dso,
			f->binary ? f->binary : f->debug, why ? why : "?");
		k->nr_missing++;
		return 0;
	}
	k->nr_found++;
	man_add(k, "found: %s build-id=%s%s%s%s%s samples=%" PRIu64 "\n",
		f->dso, f->build_id_size ? id : "none",
		have_bin ? " binary=" : "", have_bin ? member : "",
		have_dbg ? " debug=" : "", have_dbg ? dmember : "",
		f->nr_samples);
	if (f->binary && have_bin)
		man_add(k, "from: %s %s\n", member, f->binary);
	if (f->debug && have_dbg)
		man_add(k, "from: %s %s\n", dmember, f->debug);
	return 0;
}

struct kline {
	uint64_t addr;
	size_t line; /* its index in file order */
};

static int cmp_kline(const void *a, const void *b)
{
	const struct kline *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/* Lines kept around each kernel address hit, in address order: the
 * symbol holding it may follow symbols a reader skips, and its end is
 * where a later one starts. */
#define KALLSYMS_WINDOW 8

/*
 * kallsyms (text, len bytes) cut down, for --strip-to-symbols, to the
 * lines around the kernel addresses samples hit and the kernel's bounds
 * (_text, the reloc symbol, _stext, _etext, _end): into out; *kept and
 * *nr the lines kept and read.
 */
static void strip_kallsyms(struct pack *k, const char *text, size_t len,
			   struct pdc_strbuf *out, size_t *kept, size_t *nr)
{
	const uint64_t *hits;
	size_t nr_hits, n = 0, alloc = 0;
	struct kline *v = NULL;
	const char **starts = NULL;
	bool *keep;

	hits = hits_of(k, KERNEL_HITS, &nr_hits);
	for (const char *p = text; p < text + len;) {
		const char *eol = memchr(p, '\n', (size_t)(text + len - p));

		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 4096;
			v = realloc(v, alloc * sizeof(*v));
			starts = realloc(starts, (alloc + 1) * sizeof(*starts));
			if (!v || !starts)
				die(k->ctx, "out of memory");
		}
		v[n].addr = strtoull(p, NULL, 16);
		v[n].line = n;
		starts[n++] = p;
		p = eol ? eol + 1 : text + len;
	}
	keep = calloc(n + 1, sizeof(*keep));
	if (!keep || (n && !starts))
		die(k->ctx, "out of memory");
	for (size_t i = 0; i < n; i++) {
		static const char *const bounds[] = {" _text\n", " _stext\n",
						     " _etext\n", " _end\n"};
		const char *end = i + 1 < n ? starts[i + 1] : text + len;

		for (size_t b = 0; b < 4; b++) {
			const size_t bl = strlen(bounds[b]);

			if ((size_t)(end - starts[i]) > bl &&
			    !memcmp(end - bl, bounds[b], bl))
				keep[i] = true;
		}
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_kline);
	for (size_t h = 0; h < nr_hits; h++) {
		size_t lo = 0, hi = n;

		while (lo < hi) {
			const size_t mid = lo + (hi - lo) / 2;

			if (v[mid].addr <= hits[h])
				lo = mid + 1;
			else
				hi = mid;
		}
		/* lo: the first line past the address */
		hi = lo + KALLSYMS_WINDOW < n ? lo + KALLSYMS_WINDOW : n;
		lo = lo > KALLSYMS_WINDOW ? lo - KALLSYMS_WINDOW : 0;
		while (lo > 0 && v[lo - 1].addr == v[lo].addr)
			lo--;
		while (hi < n && hi > 0 && v[hi].addr == v[hi - 1].addr)
			hi++;
		for (size_t i = lo; i < hi; i++)
			keep[v[i].line] = true;
	}
	*kept = 0;
	for (size_t i = 0; i < n; i++)
		if (keep[i]) {
			const char *end = i + 1 < n ? starts[i + 1] : text + len;

			pdc_strbuf_add(out, starts[i], (size_t)(end - starts[i]));
			++*kept;
		}
	*nr = n;
	if (out->oom)
		die(k->ctx, "out of memory");
	free(keep);
	free(starts);
	free(v);
}

/* kallsyms: --kallsyms's file, else this host's when the capture is of
 * this host and kernel; the manifest says which, or why none. */
static void pack_kallsyms(struct pack *k, const struct pd_env *env,
			  const struct utsname *u, bool kernel_hit)
{
	const char *path = k->sym->kallsyms, *why = NULL;
	const bool same = env && env->hostname && env->os_release &&
			  !strcmp(env->hostname, u->nodename) &&
			  !strcmp(env->os_release, u->release);
	struct pdc_strbuf data;
	char line[4096];
	FILE *fp;
	bool zero = true;

	if (!kernel_hit) {
		man_add(k, "kallsyms: none (no sample in the kernel)\n");
		return;
	}
	if (!path && !same) {
		man_add(k,
			"kallsyms: none (recorded on '%s', kernel '%s'; this "
			"is '%s', '%s': give the recording host's with "
			"--kallsyms)\n",
			env && env->hostname ? env->hostname : "?",
			env && env->os_release ? env->os_release : "?",
			u->nodename, u->release);
		k->nr_missing++;
		return;
	}
	if (!path)
		path = "/proc/kallsyms";
	/* /proc files have no size: read line by line */
	pdc_strbuf_init(&data, NULL, NULL, 0);
	fp = fopen(path, "re");
	if (!fp) {
		man_add(k, "kallsyms: none ('%s': %s)\n", path,
			strerror(errno));
		k->nr_missing++;
		return;
	}
	while (fgets(line, sizeof(line), fp)) {
		if (strncmp(line, "0000000000000000 ", 17) != 0)
			zero = false;
		pdc_strbuf_add(&data, line, strlen(line));
	}
	if (data.oom)
		die(k->ctx, "'%s': out of memory", path);
	if (ferror(fp))
		why = strerror(errno);
	fclose(fp);
	if (why || zero) {
		man_add(k, "kallsyms: none ('%s': %s)\n", path,
			why ? why
			    : "every address is 0 (kernel.kptr_restrict: run "
			      "as root or set it to 0)");
		k->nr_missing++;
	} else if (k->strip) {
		struct pdc_strbuf cut;
		size_t kept, nr;

		pdc_strbuf_init(&cut, NULL, NULL, 0);
		strip_kallsyms(k, pdc_strbuf_str(&data), data.len, &cut,
			       &kept, &nr);
		add_bytes(k, "kallsyms", pdc_strbuf_str(&cut), cut.len, 0644);
		man_add(k,
			"kallsyms: kallsyms (from '%s'%s; %zu of %zu lines: "
			"those around the addresses samples hit)\n",
			path, same && !k->sym->kallsyms ? ", this host" : "",
			kept, nr);
		pdc_strbuf_release(&cut);
	} else {
		add_bytes(k, "kallsyms", pdc_strbuf_str(&data), data.len,
			  0644);
		man_add(k, "kallsyms: kallsyms (from '%s'%s)\n", path,
			same && !k->sym->kallsyms ? ", this host" : "");
	}
	pdc_strbuf_release(&data);
}

static int skip_quiet(void *arg, enum pda_capture_skip what, const char *why)
{
	(void)arg;
	(void)what;
	(void)why;
	return 0;
}

/* sample_fn: the source files of a stack's frames, each once (a memo
 * hit is a stack seen before), and with --strip-to-symbols the
 * addresses they hit */
static int sample_sources(void *arg, const struct pda_pipe_item *it)
{
	struct pack *k = arg;
	const struct pda_stack *st = it->stack;

	if (it->hit || !st)
		return 0;
	if (it->cookie)
		*it->cookie = 1;
	for (size_t i = 0; i < st->nr; i++) {
		const char *src = st->frames[i].srcfile;
		size_t j;

		if (k->strip && st->frames[i].dso &&
		    note_hit(k, &st->frames[i]) < 0)
			return PD_ERR_NOMEM;

		if (!src || src[0] != '/')
			continue;
		for (j = 0; j < k->nr_srcs && k->srcs[j] != src; j++)
			;
		if (j < k->nr_srcs)
			continue;
		if (k->nr_srcs == k->srcs_alloc) {
			size_t n = k->srcs_alloc ? 2 * k->srcs_alloc : 32;
			const char **v = realloc(k->srcs, n * sizeof(*v));

			if (!v)
				return PD_ERR_NOMEM;
			k->srcs = v;
			k->srcs_alloc = n;
		}
		k->srcs[k->nr_srcs++] = src;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The source files, under root/ where annotate looks inside --symfs:
 * --symfs's copy first when it has one, else this host's. */
static void pack_sources(struct pack *k)
{
	/* no source file: no array, which qsort must not see */
	if (k->dry && k->nr_srcs > 1)
		qsort(k->srcs, k->nr_srcs, sizeof(*k->srcs), cmp_str);
	for (size_t i = 0; i < k->nr_srcs; i++) {
		char member[4096], path[4096];
		const char *why = "not found", *from = k->srcs[i];
		bool ok = false;

		if (k->symfs && snprintf(path, sizeof(path), "%s%s", k->symfs,
					 k->srcs[i]) < (int)sizeof(path)) {
			from = path;
			ok = root_member(k, member, sizeof(member), path) &&
			     add_file(k, member, path, &why);
		}
		if (!ok) {
			from = k->srcs[i];
			ok = root_member(k, member, sizeof(member), from) &&
			     add_file(k, member, from, &why);
		}
		if (ok) {
			k->nr_src_found++;
			man_add(k, "source: %s\n", k->srcs[i]);
		} else {
			k->nr_src_missing++;
			man_add(k, "source-missing: %s (%s)\n", k->srcs[i], why);
		}
	}
}

/* The capture's bytes as the reader opens them from memory: inflated
 * when compressed whole with gzip, xz or bzip2. */
static const void *capture_bytes(struct pd_ctx *ctx, const char *path,
				 size_t *len)
{
	unsigned char head[16];
	struct stat sb;
	const void *buf;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &sb) < 0)
		die(ctx, "cannot open '%s': %s", path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		die(ctx, "'%s': not a regular file (pdtool archive reads a "
			 "capture twice: give a file)",
		    path);
	n = read(fd, head, sizeof(head));
	if (n > 0 && cmd_input_packed(head, (size_t)n)) {
		buf = cmd_input_spool(ctx, fd, path, head, (size_t)n, len);
	} else {
		*len = (size_t)sb.st_size;
		buf = *len ? mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0)
			   : NULL;
		if (buf == MAP_FAILED)
			die(ctx, "cannot map '%s': %s", path, strerror(errno));
	}
	close(fd);
	return buf;
}

static int any_kernel(void *arg, const struct pda_dso_files *f)
{
	(void)arg;
	return f->kernel ? 1 : 0;
}

/* Every file of s into k's tar (or, dry, into the manifest only). */
static void pack_all(struct pack *k, struct pda_session *s,
		     const struct pd_env *env, const struct utsname *u)
{
	int rc;

	for (size_t i = 0; i < k->nr_names; i++)
		free(k->names[i]);
	k->nr_names = 0;
	k->nr_found = k->nr_missing = k->bytes = 0;
	k->nr_src_found = k->nr_src_missing = 0;
	rc = pda_session_dso_files(s, pack_dso, k);
	if (rc < 0)
		die(k->ctx, "%s", pd_strerror(rc));
	pack_kallsyms(k, env, u,
		      pda_session_dso_files(s, any_kernel, NULL) == 1);
	pack_sources(k);
}

int cmd_archive(int argc, char **argv, struct pd_ctx *ctx)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"level", required_argument, NULL, 'l'},
		{"strict", no_argument, NULL, OPT_STRICT},
		{"strip-to-symbols", no_argument, NULL, OPT_STRIP},
		CMD_SYMBOL_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct cmd_opts p = {.flags = CMD_OPT_COMMON,
			     .own_shortopts = "o:l:",
			     .own_longopts = longopts};
	struct cmd_symopts sym;
	const char *path, *output = NULL;
	char *def_out = NULL, err[512] = "";
	struct pdc_strbuf man;
	struct pack k = {.ctx = ctx, .sym = &sym, .man = &man, .dry = true};
	struct cmd_tarw tw;
	struct pda_capture c;
	struct pda_session *s;
	const struct pd_env *env = NULL;
	struct utsname u;
	const void *cap;
	size_t cap_len;
	struct pd_file *f;
	bool strict = false, strip = false;
	int level = 9, c_, rc;
	FILE *out;

	memset(&sym, 0, sizeof(sym));
	cmd_opts_start(&p, ctx, argc, argv);
	while ((c_ = cmd_getopt(&p)) != -1) {
		const char *arg = optarg;

		switch (c_) {
		case 'o':
			output = arg;
			break;
		case 'l': {
			char *end;
			long v = strtol(arg, &end, 10);

			if (*end || end == arg || v < 1 || v > 19)
				usage_error(ctx, "--level '%s': 1 to 19", arg);
			level = (int)v;
			break;
		}
		case OPT_STRICT:
			strict = true;
			break;
		case OPT_STRIP:
			strip = true;
			break;
		default:
			cmd_symopt(ctx, &sym, c_, arg);
			break;
		}
	}
	path = cmd_opts_input(&p);
	if (!strcmp(path, "-"))
		usage_error(ctx, "a capture on standard input cannot be "
				 "packed: give a file");
	if (!output) {
		const size_t n = strlen(path) + sizeof(".pdz");

		def_out = malloc(n);
		if (!def_out)
			die(ctx, "out of memory");
		snprintf(def_out, n, "%s.pdz", path);
		output = def_out;
	}
	if (uname(&u) < 0)
		die(ctx, "uname: %s", strerror(errno));
	if (sym.symfs) {
		k.symfs = realpath(sym.symfs, NULL);
		if (!k.symfs)
			die(ctx, "--symfs '%s': %s", sym.symfs,
			    strerror(errno));
	}

	/* resolve every sample, so that the session knows the files it
	 * read for each binary they hit */
	f = ctx_open_twice(ctx, path);
	{
		/* srcline: the frames' source files, packed for annotate */
		PDA_OPTS(po, .srcline = true, .errbuf = err,
			 .errbuf_size = sizeof(err));
		PDA_CAPTURE_OPTS(co, .sample_fn = sample_sources, .memo = true,
				 .ip_stacks = true,
				 .skip_fn = skip_quiet, .arg = &k);

		cmd_pda_opts(ctx, &sym, &po);
		rc = pda_session_new(f, &po, &s);
		if (rc < 0)
			die(ctx, "'%s': %s", path,
			    err[0] ? err : pd_strerror(rc));
		if (strip)
			k.strip = s;
		rc = pda_capture_init(&c, f, s, &co);
		if (rc < 0)
			cmd_capture_die(ctx, path, &c, rc);
		rc = pda_capture_run(&c);
		if (rc < 0)
			cmd_capture_die(ctx, path, &c, rc);
	}
	pd_file_env(f, &env);
	cap = capture_bytes(ctx, path, &cap_len);

	pdc_strbuf_init(&man, NULL, NULL, 0);
	man_add(&k, "%s", MANIFEST_MAGIC);
	man_add(&k, "made-by: pdtool %s\n", pd_version());
	man_add(&k, "made-on: %s (kernel %s, %s)\n", u.nodename, u.release,
		u.machine);
	man_add(&k, "recorded-on: %s (kernel %s, %s)\n",
		env && env->hostname ? env->hostname : "?",
		env && env->os_release ? env->os_release : "?",
		env && env->arch ? env->arch : "?");
	if (sym.symfs)
		man_add(&k, "symfs: %s\n", sym.symfs);
	if (strip)
		man_add(&k, "stripped: symbols, CFI, line tables and the "
			    "code of the functions samples hit\n");
	man_add(&k, "capture: %s (from '%s')\n", CAPTURE, path);
	/* the manifest goes first (a reader tells a bundle by it), so a
	 * first walk lists what the second packs */
	pack_all(&k, s, env, &u);
	if (man.oom)
		die(ctx, "out of memory");

	out = ctx_open_output(ctx, output);
	if (cmd_tarw_open(&tw, out, level) < 0)
		die(ctx, "'%s': %s", output, tw.err);
	k.tw = &tw;
	k.dry = false;
	if (cmd_tarw_add(&tw, MANIFEST, pdc_strbuf_str(&man), man.len, 0644,
			 (int64_t)time(NULL)) < 0 ||
	    cmd_tarw_add(&tw, CAPTURE, cap, cap_len, 0644,
			 (int64_t)time(NULL)) < 0)
		die(ctx, "'%s': %s", output, tw.err);
	pack_all(&k, s, env, &u);
	if (cmd_tarw_close(&tw) < 0)
		die(ctx, "'%s': %s", output, tw.err);
	ctx_check_write(ctx, ferror(out) ? PD_ERR_IO : 0, output);
	ctx_close_output(ctx, out, output);

	if (strip)
		eprintf("pdtool %s: %" PRIu64 " ELF file%s stripped to "
			"symbols (%" PRIu64 " bytes before)\n",
			ctx->cmd, k.nr_stripped, PLURAL(k.nr_stripped),
			k.stripped_from);
	eprintf("pdtool %s: '%s': the capture (%zu bytes), %" PRIu64
		" binar%s and %" PRIu64 " source file%s (%" PRIu64
		" bytes); %" PRIu64 " binar%s and %" PRIu64
		" source file%s not packed (MANIFEST says why); %" PRIu64
		" bytes written\n",
		ctx->cmd, output, cap_len, k.nr_found,
		k.nr_found == 1 ? "y" : "ies", k.nr_src_found,
		PLURAL(k.nr_src_found), k.bytes, k.nr_missing,
		k.nr_missing == 1 ? "y" : "ies", k.nr_src_missing,
		PLURAL(k.nr_src_missing), tw.written);
	cmd_tarw_release(&tw);
	for (size_t i = 0; i < k.nr_names; i++)
		free(k.names[i]);
	free(k.names);
	free(k.srcs);
	for (size_t i = 0; i < k.nr_hits; i++)
		free(k.hits[i].addrs);
	free(k.hits);
	free((void *)(uintptr_t)k.symfs);
	pdc_strbuf_release(&man);
	pda_capture_release(&c);
	pda_session_free(s);
	pd_file_close(f);
	free(def_out);
	return strict && k.nr_missing ? 1 : 0;
}
