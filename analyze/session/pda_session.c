/*
 * pda_session.c - the analysis session: its lifetime and options, and
 * pda_sample_stack(), which turns a sample's callchain into
 * named frames.
 *
 * A callchain is walked as perf's thread__resolve_callchain_sample walks
 * it (tools/perf/util/machine.c): leaf first, PERF_CONTEXT_* markers
 * switch the cpumode of the addresses that follow (user until the first
 * marker), a marker perf does not know discards the whole chain.  Every
 * address, return addresses included, is looked up as it is: perf 6.1
 * does not subtract 1 from return addresses for symbols, inline frames
 * or source lines (checked on testdata/fp.perf.data: `perf script -F
 * ip,sym,srcline` names 0x2724a in libc libc-start.c:74, the line of
 * 0x2724a, where 0x27249 is line 58).  A `--call-graph dwarf` sample's
 * user frames come after the callchain's (its kernel part), from the
 * unwinder (pda_unwind_int.h), as thread__resolve_callchain puts them; those
 * are return addresses less 1 already, as perf's unwinders give them, and
 * get their inlined frames (machine.c unwind_entry), which callchain
 * addresses get only with inline_callchain.  The guest markers, which
 * perf 6.1 rejects, switch to guest modes here: guest frames are flagged
 * and left unresolved (guest machines are not followed).
 *
 * Each (DSO, address) is resolved once: the frames it gives (inlined
 * ones first) are kept in a hash table, in the arena, with a direct-mapped
 * cache in front of it (a callchain's addresses repeat from sample to
 * sample).  In front of both, a direct-mapped cache takes an address in a
 * process's (or the kernel's) maps straight to its map and frames, for as
 * long as those maps do not change (their generation, pda_maps.gen).  A
 * sample's process is looked up once, at its first user address, and its
 * frames are written into the stack in place.
 */
#include "pda_unwind_int.h"
#include "pda_stack_int.h"

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STACK_MAX ((size_t)1 << 20) /* frames in one resolved stack */
/* the callchain walk's cache hit, inlined even where GCC would call it:
 * the call was a fifth of a frame's cost (GCC, clang) */
#define HOT_INLINE inline __attribute__((always_inline))
#define INLINE_MAX 64		    /* inline depth kept per address */
#define MISSING_MAX ((size_t)1 << 20)

/* ---- the session --------------------------------------------------- */

static int fail_new(const struct pda_opts *opts, int err, const char *fmt, ...)
	PD_PRINTF(3, 4);

static int fail_new(const struct pda_opts *opts, int err, const char *fmt, ...)
{
	va_list ap;

	if (opts && PDC_OPTS_HAS(opts, struct pda_opts, errbuf_size) &&
	    opts->errbuf && opts->errbuf_size) {
		va_start(ap, fmt);
		vsnprintf(opts->errbuf, opts->errbuf_size, fmt, ap);
		va_end(ap);
	}
	return err;
}

static const char *arena_strdup(struct pda_session *s, const char *str)
{
	size_t len;
	char *p;

	if (!str)
		return NULL;
	len = strlen(str);
	p = pda_arena_alloc(s, len + 1);
	if (p)
		memcpy(p, str, len + 1);
	return p;
}

/* Copy the string options; make symfs absolute.  0, NOMEM, NOTFOUND. */
static int setup_paths(struct pda_session *s, const struct pda_opts *in)
{
	struct pda_opts *o = &s->opts;
	char real[PDA_PATH_MAX];
	const char *env;

	o->symfs = arena_strdup(s, in->symfs);
	o->buildid_dir = arena_strdup(s, in->buildid_dir);
	o->kallsyms = arena_strdup(s, in->kallsyms);
	o->vmlinux = arena_strdup(s, in->vmlinux);
	o->jit_dir = arena_strdup(s, in->jit_dir);
	if ((in->symfs && !o->symfs) || (in->buildid_dir && !o->buildid_dir) ||
	    (in->kallsyms && !o->kallsyms) || (in->vmlinux && !o->vmlinux) ||
	    (in->jit_dir && !o->jit_dir))
		return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
	if (in->nr_search_paths) {
		const char **v = pda_arena_alloc(
			s, in->nr_search_paths * sizeof(*v));

		if (!v)
			return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
		for (size_t i = 0; i < in->nr_search_paths; i++) {
			if (!realpath(in->search_paths[i], real))
				return pda_set_err(
					s, PD_ERR_NOTFOUND,
					"search path '%s': no such directory",
					in->search_paths[i]);
			v[i] = arena_strdup(s, real);
			if (!v[i])
				return pda_set_err(s, PD_ERR_NOMEM,
						   "out of memory");
		}
		o->search_paths = v;
	}
	if (o->symfs && *o->symfs) {
		if (!realpath(o->symfs, real))
			return pda_set_err(s, PD_ERR_NOTFOUND,
					   "symfs '%s': no such directory",
					   o->symfs);
		s->dsos.symfs = arena_strdup(s, real);
		if (!s->dsos.symfs)
			return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
	}
	if (o->buildid_dir) {
		s->dsos.buildid_dir = o->buildid_dir;
	} else if (pda_host_files(s) && (env = getenv("PERF_BUILDID_DIR")) &&
		   *env) {
		/* perf's own override of ~/.debug: the same cache for both */
		s->dsos.buildid_dir = arena_strdup(s, env);
		if (!s->dsos.buildid_dir)
			return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
	} else if (pda_host_files(s) && (env = getenv("HOME")) && *env) {
		snprintf(real, sizeof(real), "%s/.debug", env);
		s->dsos.buildid_dir = arena_strdup(s, real);
		if (!s->dsos.buildid_dir)
			return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
	}
	return 0;
}

int pda_session_new(struct pd_file *f, const struct pda_opts *opts,
		    struct pda_session **out)
{
	static const struct pda_opts defaults = {.sz = sizeof(defaults)};
	struct pda_opts in = {0};
	struct pd_alloc alloc = {0};
	struct pda_session *s;
	int rc;

	if (out)
		*out = NULL;
	if (!opts)
		opts = &defaults;
	if (!f || !out)
		return fail_new(opts, PD_ERR_API, "no file or no out pointer");
	if (pdc_opts_copy(&in, sizeof(in), opts) < 0)
		return fail_new(opts, PD_ERR_API,
				"bad pda_opts: size %zu, or an option this "
				"version lacks set",
				opts->sz);
	if (in.alloc)
		alloc = *in.alloc;
	s = pdc_zalloc(&alloc, sizeof(*s));
	if (!s)
		return fail_new(opts, PD_ERR_NOMEM, "out of memory");
	s->alloc = alloc;
	pdc_intern_init(&s->intern, 0, 0, 0);
	if (pthread_mutex_init(&s->mt.lock, NULL) != 0) {
		pdc_free(&alloc, s);
		return fail_new(opts, PD_ERR_NOMEM, "out of memory");
	}
	if (pthread_mutex_init(&s->mt.intern_lock, NULL) != 0) {
		pthread_mutex_destroy(&s->mt.lock);
		pdc_free(&alloc, s);
		return fail_new(opts, PD_ERR_NOMEM, "out of memory");
	}
	s->f = f;
	s->opts = in;
	s->opts.errbuf = NULL;
	s->opts.errbuf_size = 0;
	rc = setup_paths(s, &in);
	if (rc == 0 && (rc = pda_machine_init(s)) < 0)
		pda_set_err(s, rc, "out of memory");
	if (rc == 0 && (rc = pda_machine_absorb_env(s)) < 0)
		pda_set_err(s, rc, "reading the build-id table: %s",
			    pd_strerror(rc));
	if (rc == 0)
		rc = pda_unwinder_new(s, in.unwinder, &s->unwinder);
	if (rc < 0) {
		fail_new(opts, rc, "%s", s->errmsg);
		pda_session_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void pda_session_free(struct pda_session *s)
{
	if (!s)
		return;
	pda_dpkg_ahead_join(s); /* it reads copies: before the DSOs go */
	pda_unwinder_free(s, s->unwinder);
	pda_dsos_release(s);
	pda_machine_release(s);
	pdc_hash_release(&s->alloc, &s->addr_cache);
	pdc_hash_release(&s->alloc, &s->first);
	pda_free(s, s->first_v);
	pda_free(s, s->first_front);
	pda_dwahead_free(s, s->dwahead);
	pdc_intern_release(&s->intern, &s->alloc);
	pdc_intern_release(&s->demangled, &s->alloc);
	pda_free(s, s->missing);
	pda_free(s, s->unres);
	pda_free(s, s->inl);
	pdc_arena_release(&s->arena, &s->alloc);
	pthread_mutex_destroy(&s->mt.lock);
	pthread_mutex_destroy(&s->mt.intern_lock);
	pda_free(s, s);
}

int pda_session_feed(struct pda_session *s, const struct pd_rec *rec)
{
	int rc = pda_machine_feed(s, rec);

	if (rc < 0)
		return pda_set_err(s, rc, "%s record at offset 0x%llx: %s",
				   pd_rec_type_name(rec->type),
				   (unsigned long long)rec->offset,
				   pd_strerror(rc));
	return 0;
}

/* ---- resolving addresses ------------------------------------------- */

struct addr_ent {
	const struct pda_dso_ent *dso;
	uint64_t addr;
	bool inl; /* inlined frames expanded */
	size_t nr;
	struct pda_frame frames[]; /* ip and dso are set per use */
};

struct addr_key {
	const struct pda_dso_ent *dso;
	uint64_t addr;
	bool inl;
};

static bool addr_eq(const void *item, const void *key)
{
	const struct addr_ent *e = item;
	const struct addr_key *k = key;

	return e->dso == k->dso && e->addr == k->addr && e->inl == k->inl;
}

static uint64_t addr_hash(const struct addr_key *k)
{
	return pdc_hash_u64(k->addr ^
			    pdc_hash_u64((uintptr_t)k->dso + k->inl));
}

/*
 * Where resolving an address keeps what it makes, beside its binary's
 * own state: the session's arena, demangling table and inline scratch,
 * or those of a thread resolving some binaries' first uses while the
 * session's thread resolves the others' (pda_first_replay).
 */
struct res_own {
	struct pdc_arena *arena;
	struct pdc_intern *demangled;
	struct pda_inline **inl;
	size_t *inl_alloc;
};

static struct res_own session_own(struct pda_session *s)
{
	return (struct res_own){&s->arena, &s->demangled, &s->inl,
				&s->inl_alloc};
}

static struct addr_ent *new_ent(struct pda_session *s,
				const struct res_own *o,
				const struct addr_key *k, size_t nr)
{
	struct addr_ent *e;

	e = pdc_arena_alloc(o->arena, &s->alloc,
			    sizeof(*e) + nr * sizeof(e->frames[0]));
	if (!e)
		return NULL;
	memset(e, 0, sizeof(*e) + nr * sizeof(e->frames[0]));
	e->dso = k->dso;
	e->addr = k->addr;
	e->inl = k->inl;
	e->nr = nr;
	return e;
}

/* What the session keeps of a name demangled: the answer, by the
 * name (the entry's string). */
struct dem_ent {
	const char *dem;
	char str[];
};

/*
 * The replay names each address's function at its first lookup: the
 * same few thousand names tens of thousands of times.  Each is
 * demangled once, its answer kept by the name.  NULL on NOMEM.
 */
static const char *demangle(struct pda_session *s, const struct res_own *o,
			    const char *name)
{
	struct dem_ent *e;
	void *entry;

	if (s->opts.no_demangle)
		return name;
	if (!o->demangled->hdr_size) /* a zeroed table has no header */
		pdc_intern_init(o->demangled, offsetof(struct dem_ent, str),
				0, 0);
	if (pdc_intern_add(o->demangled, &s->alloc, name, strlen(name),
			   &entry) < 0)
		return NULL;
	e = entry;
	if (!e->dem)
		e->dem = pda_demangle(s, name);
	return e->dem;
}

/*
 * The frame of file offset off in d, whose binary was not found, from
 * the symbols a simpleperf capture recorded for it (pda_spsym.c); *ent
 * NULL when it recorded none for d.  0 or PD_ERR_NOMEM.
 */
static int resolve_recorded(struct pda_session *s, const struct res_own *o,
			    struct pda_dso_ent *d, const struct addr_key *k,
			    struct addr_ent **ent)
{
	const struct pda_spsyms *t;
	const struct pda_spsym *sym;
	uint64_t vaddr;

	*ent = NULL;
	if (pda_spsyms_get(s, d, &t) < 0)
		return PD_ERR_NOMEM;
	if (!t)
		return 0;
	vaddr = pda_spsyms_vaddr(t, k->addr);
	sym = pda_spsyms_find(t, vaddr);
	*ent = new_ent(s, o, k, 1);
	if (!*ent)
		return PD_ERR_NOMEM;
	(*ent)->frames[0].dso_addr = vaddr;
	if (!sym) {
		(*ent)->frames[0].flags = PDA_FRAME_NO_SYMBOL;
		return 0;
	}
	(*ent)->frames[0].sym = demangle(s, o, sym->name);
	if (!(*ent)->frames[0].sym)
		return PD_ERR_NOMEM;
	(*ent)->frames[0].sym_off = vaddr - sym->start;
	(*ent)->frames[0].sym_size = sym->end - sym->start;
	return 0;
}

/*
 * vaddr's source line in e, as perf 6.1's addr2line answers: the line
 * table's row (the innermost line, as perf shows), else with
 * srcline_a2l the STT_FILE of the symbol addr2line picks, line 0, and
 * *no_src where it picks one without a file ("??:?").  *file NULL: no
 * line.  0 or PD_ERR_NOMEM.
 */
static int elf_srcline(struct pda_session *s, struct pda_elf *e,
		       uint64_t vaddr, const char **file, unsigned *line,
		       bool *no_src)
{
	int rc = pda_elf_srcline(s, e, vaddr, file, line);

	if (rc == PD_ERR_NOMEM)
		return rc;
	if (rc < 0) {
		*file = NULL;
		*line = 0;
	}
	if (rc < 0 && s->opts.srcline_a2l) {
		rc = pda_elf_file_a2l(s, e, vaddr, file);
		if (rc == PD_ERR_NOMEM)
			return rc;
		*no_src = rc == 0 && !*file;
	}
	return 0;
}

/*
 * The frames of file offset off in d: inlined functions first, then the
 * function holding them.  NULL on NOMEM.
 */
static struct addr_ent *resolve_file(struct pda_session *s,
				     const struct res_own *o,
				     struct pda_dso_ent *d,
				     const struct addr_key *k)
{
	struct pda_elf *e;
	const char *name, *file = NULL, *own;
	uint64_t vaddr, start, size;
	struct pda_inline *inl = NULL;
	size_t nr_inl = 0;
	unsigned line = 0;
	bool no_src = false, object = false;
	struct addr_ent *ent;
	int rc;

	if (pda_dso_load(s, d) < 0)
		return NULL;
	e = d->d.elf;
	if (d->d.state != PDA_DSO_FOUND) {
		if (resolve_recorded(s, o, d, k, &ent) < 0)
			return NULL;
		if (ent)
			return ent;
	}
	if (d->d.state != PDA_DSO_FOUND || !e ||
	    pda_elf_offset_to_vaddr(e, k->addr, &vaddr) < 0) {
		ent = new_ent(s, o, k, 1);
		if (ent) {
			ent->frames[0].dso_addr = k->addr;
			ent->frames[0].flags = PDA_FRAME_NO_SYMBOL;
		}
		return ent;
	}
	rc = pda_elf_symbol_typed(s, e, vaddr, &name, &start, &size, &object);
	if (rc == PD_ERR_NOMEM)
		return NULL;
	if (rc < 0) {
		ent = new_ent(s, o, k, 1);
		if (!ent)
			return NULL;
		/* perf 6.1 prints "dso[addr]" for it: the file offset where
		 * it loaded no symbol table from the file, else vaddr */
		ent->frames[0].dso_addr =
			pda_elf_has_symbols(e) ? vaddr : k->addr;
		ent->frames[0].flags = PDA_FRAME_NO_SYMBOL;
		/* no symbol of perf's covers it, but addr2line still looks
		 * it up: DWARF's line, or the symbol before it (no file:
		 * perf prints no source line) */
		if (s->opts.srcline &&
		    elf_srcline(s, e, vaddr, &ent->frames[0].srcfile,
				&ent->frames[0].line, &no_src) < 0)
			return NULL;
		if (no_src)
			ent->frames[0].flags |= PDA_FRAME_NO_SRCLINE;
		return ent;
	}
	if (k->inl) {
		if (PDA_GROW(s, *o->inl, *o->inl_alloc, INLINE_MAX,
			     INLINE_MAX) < 0)
			return NULL;
		inl = *o->inl;
		/* with --srcline perf's addr2line has been asked for the
		 * address's line before its inlines (tests/golden/fold's
		 * --inline --srcline stacks show it): that first answer is
		 * the one whose names differ (pda_elf_inlines_a2l) */
		if (s->opts.srcline &&
		    pda_elf_inlines_a2l(s, e, vaddr, inl, INLINE_MAX,
					&nr_inl) < 0)
			return NULL;
		if (pda_elf_inlines_a2l(s, e, vaddr, inl, INLINE_MAX,
					&nr_inl) < 0)
			return NULL;
	}
	if (s->opts.srcline && (!k->inl || nr_inl == 0) &&
	    elf_srcline(s, e, vaddr, &file, &line, &no_src) < 0)
		return NULL;
	if (k->inl && nr_inl == 0) {
		/* perf still asks addr2line, which names the address after
		 * bfd's pick of the symbols there */
		const char *a2l;
		uint64_t a2l_start;

		rc = pda_elf_symbol_a2l(s, e, vaddr, &a2l, &a2l_start);
		if (rc == PD_ERR_NOMEM)
			return NULL;
		if (rc == 0 && a2l_start == start)
			name = a2l;
	}
	if (!k->inl || nr_inl == 0) {
		ent = new_ent(s, o, k, 1);
		if (!ent)
			return NULL;
		ent->frames[0].sym = demangle(s, o, name);
		if (!ent->frames[0].sym)
			return NULL;
		ent->frames[0].srcfile = file;
		ent->frames[0].line = file ? line : 0;
		if (no_src)
			ent->frames[0].flags |= PDA_FRAME_NO_SRCLINE;
		if (object)
			ent->frames[0].flags |= PDA_FRAME_OBJECT;
		ent->frames[0].dso_addr = vaddr;
		ent->frames[0].sym_off = vaddr - start;
		ent->frames[0].sym_size = size;
		return ent;
	}
	/*
	 * perf's append_inlines: where DWARF describes the address, every
	 * frame, the out-of-line function's too, takes the name addr2line
	 * gives it (DWARF's), demangled: "__libc_start_main_impl" where
	 * .symtab prefers its alias "__libc_start_main@@GLIBC_2.34".
	 */
	ent = new_ent(s, o, k, nr_inl);
	if (!ent)
		return NULL;
	own = demangle(s, o, name);
	if (!own)
		return NULL;
	for (size_t i = 0; i < nr_inl; i++) {
		struct pda_frame *fr = &ent->frames[i];

		fr->sym = demangle(s, o, inl[i].func);
		if (!fr->sym)
			return NULL;
		fr->flags = i + 1 < nr_inl ? PDA_FRAME_INLINED : 0;
		if (strcmp(own, fr->sym) != 0)
			fr->flags |= PDA_FRAME_DWARF_NAMED;
		fr->dso_addr = vaddr;
		fr->sym_off = vaddr - start;
		fr->sym_size = size;
		if (s->opts.srcline) {
			fr->srcfile = inl[i].file;
			fr->line = inl[i].file ? inl[i].line : 0;
		}
	}
	return ent;
}

static struct addr_ent *resolve_kernel(struct pda_session *s,
				       const struct res_own *o,
				       struct pda_dso_ent *d,
				       const struct addr_key *k, bool module)
{
	struct addr_ent *ent;
	const char *name = NULL;
	uint64_t start = 0, size = 0;
	int rc;

	if (pda_dso_load(s, d) < 0)
		return NULL;
	ent = new_ent(s, o, k, 1);
	if (!ent)
		return NULL;
	ent->frames[0].dso_addr = k->addr;
	if (d->ksyms) {
		/* the kernel moves with KASLR, modules are where they are */
		uint64_t a = module ? k->addr : k->addr + (uint64_t)d->kdelta;
		const struct pda_ksym *ks = pda_ksyms_find(d->ksyms, a);

		if (ks && !ks->module == !module) {
			name = pda_intern(s, ks->name, strlen(ks->name));
			if (!name)
				return NULL;
			start = ks->start;
			size = ks->end - ks->start;
			ent->frames[0].dso_addr = a;
		}
	} else if (d->d.elf && !module) {
		uint64_t a = k->addr + (uint64_t)d->kdelta;

		rc = pda_elf_symbol(s, d->d.elf, a, &name, &start, &size);
		if (rc == PD_ERR_NOMEM)
			return NULL;
		if (rc == 0)
			ent->frames[0].dso_addr = a;
	}
	if (!name) {
		ent->frames[0].flags = PDA_FRAME_NO_SYMBOL;
		return ent;
	}
	ent->frames[0].sym = name;
	ent->frames[0].sym_off = ent->frames[0].dso_addr - start;
	ent->frames[0].sym_size = size;
	return ent;
}

static struct addr_ent *resolve_jit(struct pda_session *s,
				    const struct res_own *o,
				    struct pda_dso_ent *d,
				    const struct addr_key *k)
{
	const struct pda_jitsym *js = NULL;
	struct addr_ent *ent;

	if (pda_dso_load(s, d) < 0)
		return NULL;
	ent = new_ent(s, o, k, 1);
	if (!ent)
		return NULL;
	ent->frames[0].dso_addr = k->addr;
	ent->frames[0].flags = PDA_FRAME_JIT;
	if (d->jit)
		js = pda_jitmap_find(d->jit, k->addr);
	if (!js) {
		ent->frames[0].flags |= PDA_FRAME_NO_SYMBOL;
		return ent;
	}
	ent->frames[0].sym = demangle(s, o, js->name);
	if (!ent->frames[0].sym)
		return NULL;
	ent->frames[0].sym_off = k->addr - js->start;
	ent->frames[0].sym_size = js->end - js->start;
	return ent;
}

/*
 * Shards on threads (pda_session_shards): a binary's first use, its load
 * (files searched, debuginfod asked, under --debuginfod-max too, and the
 * warnings of both) and its symbols read, happens in the order a run in
 * one would have it.  A shard meeting a binary no shard has used waits,
 * under s->shard_lock, until every shard before it is done or one of them
 * uses the binary: the shard using a binary first is then always the
 * first one not done, reading in the file's order, as the run in one.
 */
static void shard_turn(struct pda_session *s, struct pda_view *v,
		       const struct pda_dso_ent *d)
{
	struct timespec t0, t1;

	if (d->used || v->rank <= s->shard_low)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!d->used && v->rank > s->shard_low)
		pthread_cond_wait(&s->shard_turn, &s->shard_lock);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	v->nr_waits++;
	v->wait_ms += (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000 +
				 (t1.tv_nsec - t0.tv_nsec) / 1000000);
}

/* d's first use done (s->shard_lock held where shards are on): those
 * waiting for it go on. */
static void dso_used(struct pda_session *s, struct pda_dso_ent *d)
{
	d->used = true;
	if (s->shards_on)
		pthread_cond_broadcast(&s->shard_turn);
}

/* The frames of k in d, resolved (not cached), what it makes in o's.
 * NULL on NOMEM. */
static struct addr_ent *resolve_new(struct pda_session *s,
				    const struct res_own *o,
				    struct pda_dso_ent *d,
				    const struct addr_key *k,
				    enum pda_map_kind kind)
{
	switch (d->kind) {
	case PDA_DSO_FILE:
	case PDA_DSO_VDSO:
		return resolve_file(s, o, d, k);
	case PDA_DSO_KERNEL:
		return resolve_kernel(s, o, d, k, kind == PDA_MAP_MODULE);
	case PDA_DSO_JIT:
		return resolve_jit(s, o, d, k);
	default:
		return NULL;
	}
}

/* lookup() past its front: the cache, else resolved and added (a shard
 * thread's under the session's shard lock). */
static struct addr_ent *lookup_miss(struct pda_session *s,
				    struct pda_view *v,
				    struct pda_dso_ent *d, uint64_t addr,
				    enum pda_map_kind kind, bool inl)
{
	struct addr_key k = {d, addr, inl};
	const uint64_t hash = addr_hash(&k);
	const struct res_own own = session_own(s);
	struct addr_ent *ent;

	ent = pdc_hash_find(&s->addr_cache, hash, addr_eq, &k);
	if (ent)
		return ent;
	if (!d->used && s->shards_on && v->rank > s->shard_low) {
		shard_turn(s, v, d);
		/* another shard may have resolved it meanwhile */
		ent = pdc_hash_find(&s->addr_cache, hash, addr_eq, &k);
		if (ent)
			return ent;
	}
	ent = resolve_new(s, &own, d, &k, kind);
	if (!ent || pdc_hash_add(&s->alloc, &s->addr_cache, hash, ent) < 0)
		return NULL;
	if (!d->used)
		dso_used(s, d);
	return ent;
}

/* The cached frames of (d, addr), resolving them the first time. */
static const struct addr_ent *lookup(struct pda_session *s,
				     struct pda_view *v,
				     struct pda_dso_ent *d, uint64_t addr,
				     enum pda_map_kind kind, bool inl)
{
	const struct addr_ent **front =
		&v->addr_front[(addr ^ (uintptr_t)d >> 4 ^ inl) &
			       (PDA_ADDR_FRONT - 1)];
	struct addr_ent *ent;

	if (*front && (*front)->addr == addr && (*front)->dso == d &&
	    (*front)->inl == inl)
		return *front;
	if (s->shards_on) {
		pthread_mutex_lock(&s->shard_lock);
		ent = lookup_miss(s, v, d, addr, kind, inl);
		pthread_mutex_unlock(&s->shard_lock);
	} else {
		ent = lookup_miss(s, v, d, addr, kind, inl);
	}
	if (ent)
		*front = ent;
	return ent;
}

struct walk {
	struct pda_view *v; /* the resolving thread's state */
	struct pda_stack *st;
	const struct pd_sample *sample;
	struct pda_unwind_job *job; /* the unwind begun elsewhere, or NULL */
	const struct pda_unwound *pre; /* the unwind done before, or NULL */
	struct pda_maps *umaps; /* the sample's process's, once looked up */
	const struct pda_map *map; /* of the last address resolved, or NULL */
	bool unresolved;
	bool inl_callchain; /* inlined frames on callchain addresses */
};

/* Room for nr more frames in w's stack.  0 or PD_ERR_NOMEM. */
static inline int reserve(struct pda_session *s, struct walk *w, size_t nr)
{
	struct pda_stack *st = w->st;

	if (st->alloc - st->nr >= nr)
		return 0;
	return PDA_GROW(s, st->frames, st->alloc, st->nr + nr, STACK_MAX);
}

/* Count the frame just written at the top of w's stack. */
static inline void pushed(struct walk *w)
{
	const struct pda_frame *fr = &w->st->frames[w->st->nr++];

	if (fr->flags & (PDA_FRAME_NO_SYMBOL | PDA_FRAME_NO_MAP)) {
		w->unresolved = true;
		w->v->nr_frames_unresolved++;
	}
	w->v->nr_frames++;
}

static int push(struct pda_session *s, struct walk *w,
		const struct pda_frame *fr)
{
	if (reserve(s, w, 1) < 0)
		return PD_ERR_NOMEM;
	w->st->frames[w->st->nr] = *fr;
	pushed(w);
	return 0;
}

/* Note d in the memo's record, once per list (the callers count each
 * binary once a sample). */
static void memo_note(struct pda_view *v, struct pda_dso_ent *d, bool unres)
{
	struct pda_memo_rec *r = v->memo_rec;
	unsigned *nr = unres ? &r->nr_unres : &r->nr_dsos;

	if (*nr == PDA_MEMO_MAX_DSOS) {
		r->overflow = true;
		return;
	}
	(unres ? r->unres : r->dsos)[(*nr)++] = d;
}

/* A shard view's counts for d (NULL: no memory for them, uncounted;
 * v->nomem then fails the resolution: view_failed). */
static struct pda_dso_count *view_count(struct pda_view *v,
					const struct pda_dso_ent *d)
{
	size_t n;
	struct pda_dso_count *dc;

	if (d->idx < v->nr_dc)
		return &v->dc[d->idx];
	/* a binary made after the view: rare (the first pass made the
	 * sampled ones), so grown by one step */
	n = (size_t)d->idx + 64;
	dc = pda_realloc(v->s, v->dc, n * sizeof(*dc));
	if (!dc) {
		v->nomem = true;
		return NULL;
	}
	for (size_t i = v->nr_dc; i < n; i++)
		dc[i] = (struct pda_dso_count){UINT64_MAX, UINT64_MAX, 0, 0};
	v->dc = dc;
	v->nr_dc = n;
	return &dc[d->idx];
}

/* rc of a shard view's resolution, or PD_ERR_NOMEM (said) where a count
 * of a binary was lost on the way (view_count): the binaries' counts
 * are reported (unresolved ones, diagnose), and a silent loss would
 * report them wrong. */
static int view_failed(struct pda_session *s, struct pda_view *v, int rc)
{
	if (!v->nomem)
		return rc;
	return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
}

/* count_in() for a shard view: its own counts of d.  Apart (cold): the
 * session's view, every sample of a run in one, stays inline. */
static __attribute__((noinline, cold)) void
count_in_view(struct pda_view *v, struct pda_dso_ent *d, bool unres)
{
	struct pda_dso_count *c = view_count(v, d);
	uint64_t *seq, *nr;

	if (!c)
		return;
	seq = unres ? &c->unres_seq : &c->sample_seq;
	nr = unres ? &c->nr_unresolved : &c->nr_samples;
	if (*seq != v->sample_seq) {
		*seq = v->sample_seq;
		(*nr)++;
		if (v->memo_rec)
			memo_note(v, d, unres);
	}
}

/* Count d once for v's sample: in its samples, or (unres) in those with
 * an unresolved frame of its (pda_dso_diagnose's weight). */
static HOT_INLINE void count_in_k(struct pda_view *v, struct pda_dso_ent *d,
				  bool unres, bool shard)
{
	uint64_t *seq = unres ? &d->unres_seq : &d->sample_seq;
	uint64_t *nr = unres ? &d->d.nr_unresolved : &d->d.nr_samples;

	if (shard) {
		count_in_view(v, d, unres);
	} else if (*seq != v->sample_seq) {
		*seq = v->sample_seq;
		(*nr)++;
		if (v->memo_rec)
			memo_note(v, d, unres);
	}
}

/* count_in_k() where v may be a shard view or the session's. */
static HOT_INLINE void count_in(struct pda_view *v, struct pda_dso_ent *d,
				bool unres)
{
	count_in_k(v, d, unres, v->dc != NULL);
}

static HOT_INLINE void count_dso(struct pda_view *v, struct pda_dso_ent *d)
{
	if (d)
		count_in(v, d, false);
}

/* Count the frame just written at the top of w's stack, pushed for
 * binary d (NULL: none): the unresolved weight by binary too
 * (pda_dso_diagnose). */
static inline void pushed_in(struct walk *w, struct pda_dso_ent *d)
{
	if ((w->st->frames[w->st->nr].flags & PDA_FRAME_NO_SYMBOL) && d)
		count_in(w->v, d, true);
	pushed(w);
}

/*
 * perf records the kernel map as [_text, _etext), but on the recording
 * host it reads /proc/kcore, whose maps also cover init text and the
 * rest of the image: so an address past the recorded map that kallsyms
 * still places in the kernel (below its last non-module symbol) is the
 * kernel's.
 */
static const struct pda_map *kernel_image(struct pda_session *s,
					  struct pda_view *v, uint64_t ip)
{
	struct pda_machine *m = &s->machine;
	const struct pda_dso_ent *d = m->kimage.dso;
	int rc;

	if (m->kimage.kind != PDA_MAP_KERNEL || !d || ip < m->kimage.start)
		return NULL;
	if (s->shards_on) {
		pthread_mutex_lock(&s->shard_lock);
		if (!m->kimage.dso->used)
			shard_turn(s, v, m->kimage.dso);
		rc = pda_dso_load(s, m->kimage.dso);
		if (!m->kimage.dso->used)
			dso_used(s, m->kimage.dso);
		pthread_mutex_unlock(&s->shard_lock);
	} else {
		rc = pda_dso_load(s, m->kimage.dso);
	}
	if (rc < 0 || !d->ksyms ||
	    ip + (uint64_t)d->kdelta >= d->ksyms->kernel_end)
		return NULL;
	return &m->kimage;
}

/* The maps an address in cpumode (user or kernel) is looked up in. */
static HOT_INLINE struct pda_maps *space_maps(struct pda_session *s,
					      struct walk *w, unsigned cpumode)
{
	if (cpumode == PD_MISC_KERNEL)
		return w->v->at ? w->v->at->kmaps : &s->machine.kmaps;
	if (!w->umaps)
		w->umaps = w->v->at ? w->v->at->umaps
				 : pda_machine_maps(s, w->sample->pid);
	return w->umaps;
}

static const struct pda_map *find_map(struct pda_session *s, struct walk *w,
				      unsigned cpumode, uint64_t ip)
{
	struct pda_maps *maps = space_maps(s, w, cpumode);
	const struct pda_map *map;

	if (cpumode == PD_MISC_KERNEL) {
		map = pda_maps_find(maps, ip);
		return map ? map : kernel_image(s, w->v, ip);
	}
	return maps ? pda_maps_find(maps, ip) : NULL;
}

/* The space an address is in: perf's machine__addr_cpumode, with the
 * kernel starting at its map, else at 2^63. */
static unsigned addr_cpumode(const struct pda_session *s, uint64_t ip)
{
	const struct pda_machine *m = &s->machine;
	uint64_t kstart =
		m->kimage.kind == PDA_MAP_KERNEL ? m->kimage.start : 1ull << 63;

	return ip >= kstart ? PD_MISC_KERNEL : PD_MISC_USER;
}

/* What ip in map is looked up as (the kinds lookup() takes). */
static uint64_t map_addr(const struct pda_map *map, uint64_t ip)
{
	/* JIT code uses absolute addresses, the kernel's symbols are at
	 * the addresses pgoff gives */
	return map->kind == PDA_MAP_JIT ? ip : map->pgoff + (ip - map->start);
}

/* Whether frames at ip in map get their inlined functions: perf runs
 * addr2line only on DSOs with a file name (srcline.c dso__name):
 * "[vdso]" keeps perf's own symbol choice ("__vdso_clock_gettime", not
 * addr2line's "clock_gettime"). */
static bool map_inl(const struct pda_map *map, bool inl)
{
	return inl && map->name && map->name[0] != '[';
}

/*
 * perf's map__size() of map: end - start, but the kernel's map, once
 * perf has read kallsyms, ends where the last kernel (not module)
 * symbol does (in the map's addresses: less the KASLR delta).
 */
static uint64_t map_size(const struct pda_map *map)
{
	const struct pda_dso_ent *d = map->dso;

	if (map->kind == PDA_MAP_KERNEL && d && d->ksyms &&
	    d->ksyms->kernel_end - (uint64_t)d->kdelta > map->start)
		return d->ksyms->kernel_end - (uint64_t)d->kdelta - map->start;
	return map->end - map->start;
}

bool pda_jit_short_name(const char *dso, char *buf, size_t size)
{
	char *end;
	long tid;

	if (strncmp(dso, "/tmp/perf-", 10) != 0)
		return false;
	tid = strtol(dso + 10, &end, 10);
	if (end == dso + 10 || tid < INT_MIN || tid > INT_MAX)
		return false;
	snprintf(buf, size, "[JIT] tid %d", (int)tid);
	return true;
}

/*
 * Whether map's addresses show relative to the file, as perf's map_ip():
 * a file's and the vdso's, and memfd code's, which pdtool looks up in
 * perf-PID.map as JIT code but perf 6.1 maps as a file it cannot find.
 */
static bool file_relative(const struct pda_map *map)
{
	static const char memfd[] = "/memfd:";

	return map->kind == PDA_MAP_FILE || map->kind == PDA_MAP_VDSO ||
	       (map->kind == PDA_MAP_JIT &&
		!strncmp(map->name, memfd, sizeof(memfd) - 1));
}

/* Push ent's frames for ip in map. */
static int push_ent(struct pda_session *s, struct walk *w, uint64_t ip,
		    const struct pda_map *map, const struct addr_ent *ent,
		    unsigned flags)
{
	struct pda_dso_ent *d = map->dso;
	const bool rel = file_relative(map);

	if (reserve(s, w, ent->nr) < 0)
		return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < ent->nr; i++) {
		struct pda_frame *f = &w->st->frames[w->st->nr];

		*f = ent->frames[i];
		f->ip = ip;
		f->map_ip = rel ? map->pgoff + (ip - map->start) : ip;
		/* memfd code perf-PID.map names nothing in: perf's "dso[addr]"
		 * of a file it cannot find, the file offset */
		if (rel && map->kind == PDA_MAP_JIT &&
		    (f->flags & PDA_FRAME_NO_SYMBOL))
			f->dso_addr = f->map_ip;
		f->dso = map->name;
		f->map_size = map_size(map);
		f->flags |= flags |
			    (map->kind == PDA_MAP_MODULE ? PDA_FRAME_MODULE : 0);
		pushed_in(w, d);
	}
	return 0;
}

/* push_ent() of ic's one frame, as it pushed it before. */
static inline int push_one(struct pda_session *s, struct walk *w,
			   const struct pda_ip_ent *ic)
{
	if (reserve(s, w, 1) < 0)
		return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
	w->st->frames[w->st->nr] = ic->fr;
	pushed_in(w, ic->map->dso);
	return 0;
}

/* resolve_ip() past its cache (ic: the entry to fill, or NULL). */
static int resolve_ip_miss(struct pda_session *s, struct walk *w,
			   uint64_t ip, unsigned cpumode, bool fallback,
			   bool inl, struct pda_ip_ent *ic)
{
	struct pda_frame fr = {0};
	const struct pda_map *map = NULL;
	const struct addr_ent *ent;
	const unsigned space = cpumode; /* the one ic was picked for */
	uint64_t addr;
	int rc;

	fr.ip = ip;
	fr.map_ip = ip;
	w->map = NULL;
	switch (cpumode) {
	case PD_MISC_GUEST_KERNEL:
		fr.flags = PDA_FRAME_KERNEL | PDA_FRAME_GUEST;
		break;
	case PD_MISC_GUEST_USER:
		fr.flags = PDA_FRAME_GUEST;
		break;
	case PD_MISC_KERNEL:
	case PD_MISC_USER:
		map = find_map(s, w, cpumode, ip);
		/*
		 * the sample's own ip: perf (thread__find_map_fb) tries the
		 * space the address belongs to when that is the other one
		 */
		if (!map && fallback && addr_cpumode(s, ip) != cpumode) {
			map = find_map(s, w, addr_cpumode(s, ip), ip);
			if (map)
				cpumode = addr_cpumode(s, ip);
		}
		/* nor is it "no map" here */
		if (!map && !w->umaps &&
		    (cpumode == PD_MISC_USER ||
		     (fallback && addr_cpumode(s, ip) == PD_MISC_USER)))
			return PD_ERR_NOMEM;
		if (cpumode == PD_MISC_KERNEL)
			fr.flags = PDA_FRAME_KERNEL;
		break;
	default:
		/* hypervisor and unknown: no maps */
		break;
	}
	if (!map) {
		fr.flags |= PDA_FRAME_NO_MAP | PDA_FRAME_NO_SYMBOL;
		return push(s, w, &fr);
	}
	fr.dso = map->name;
	fr.map_size = map_size(map);
	w->map = map;
	switch (map->kind) {
	case PDA_MAP_ANON:
		fr.dso_addr = ip;
		fr.flags |= PDA_FRAME_NO_SYMBOL;
		return push(s, w, &fr);
	case PDA_MAP_KSYM:
		fr.sym = map->sym;
		fr.map_ip = ip - map->start;
		fr.dso_addr = ip;
		fr.sym_off = ip - map->start;
		fr.sym_size = map->end - map->start;
		return push(s, w, &fr);
	case PDA_MAP_JIT:
	case PDA_MAP_KERNEL:
	case PDA_MAP_MODULE:
	case PDA_MAP_FILE:
	case PDA_MAP_VDSO:
	default:
		addr = map_addr(map, ip);
		break;
	}
	count_dso(w->v, map->dso);
	ent = lookup(s, w->v, map->dso, addr, map->kind, map_inl(map, inl));
	if (!ent)
		return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
	/* only where the map is of the space ic was picked for: a map
	 * there is found without a fallback, whatever the other space
	 * holds, so a hit is the same with or without one */
	if (ic && cpumode == space) {
		ic->ip = ip;
		ic->inl = inl;
		ic->maps = space_maps(s, w, cpumode);
		ic->gen = ic->maps->gen;
		ic->map = map;
		ic->ent = ent;
		ic->one = false;
	}
	rc = push_ent(s, w, ip, map, ent, fr.flags);
	if (rc == 0 && ic && cpumode == space && ent->nr == 1) {
		ic->fr = w->st->frames[w->st->nr - 1];
		ic->one = true;
	}
	return rc;
}

/* Resolve ip in cpumode and push its frames, inlined ones too when inl.
 * Inline: the cache hit is the path of nearly every callchain entry. */
static HOT_INLINE int resolve_ip(struct pda_session *s, struct walk *w,
			     uint64_t ip, unsigned cpumode, bool fallback,
			     bool inl, bool shard)
{
	/* not w->v in a run in one (stack_walk's shard false): the
	 * session's own, at a fixed offset, and no shard's counts to test
	 * for in the hit path of every callchain entry */
	struct pda_view *const v = shard ? w->v : &s->view;
	struct pda_ip_ent *ic = NULL;
	struct pda_maps *maps;

	/* a sample's own ip (fallback) too: an entry is made only for a
	 * map found in the space asked for (resolve_ip_miss), where the
	 * fallback to the other space is never tried (annotate resolved
	 * every sample's leaf past it: a fifth of its instructions) */
	if (cpumode == PD_MISC_USER || cpumode == PD_MISC_KERNEL) {
		/* NULL: no memory for the process's maps (E5); a fallback
		 * may still find the address in the kernel's */
		maps = space_maps(s, w, cpumode);
		if (!maps && !fallback)
			return PD_ERR_NOMEM;
		if (maps)
			ic = &v->ip_front[(ip ^ ip >> 12 ^
					   (uintptr_t)maps >> 6 ^ inl) &
					  (PDA_IP_FRONT - 1)];
		if (ic && ic->ip == ip && ic->maps == maps &&
		    ic->gen == maps->gen && ic->inl == inl) {
			w->map = ic->map;
			if (ic->map->dso)
				count_in_k(v, ic->map->dso, false, shard);
			if (ic->one)
				return push_one(s, w, ic);
			return push_ent(s, w, ip, ic->map, ic->ent,
					cpumode == PD_MISC_KERNEL
						? PDA_FRAME_KERNEL
						: 0);
		}
	}
	return resolve_ip_miss(s, w, ip, cpumode, fallback, inl, ic);
}

/* The user frames of a `--call-graph dwarf` sample, from the unwinder. */
static int unwind_user(struct pda_session *s, struct walk *w)
{
	const uint64_t *ips;
	size_t nr;
	int rc;

	if (w->pre) {
		ips = w->pre->ips;
		nr = w->pre->nr;
		rc = 0;
	} else if (w->job)
		rc = pda_unwind_finish(s, s->unwinder, w->job, &ips, &nr);
	else
		rc = pda_unwind_sample(s, s->unwinder, w->sample,
				       pda_machine_maps(s, w->sample->pid),
				       space_maps(s, w, PD_MISC_USER), &ips,
				       &nr);
	if (rc < 0)
		return pda_set_err(s, rc, "unwinding: %s", pd_strerror(rc));
	/* perf expands inlined frames on these (machine.c unwind_entry) */
	for (size_t i = 0; i < nr && rc == 0; i++)
		rc = resolve_ip(s, w, ips[i], PD_MISC_USER, false,
				!s->opts.no_inline, w->v->dc != NULL);
	return rc;
}

/*
 * arm64 -g: before the first frame-pointer caller (next) of the leaf at
 * pc, the caller perf 6.1 recovers from the sampled LR
 * (machine.c thread__resolve_callchain_sample, callee order), when it
 * differs from next.  perf does so only for frame-pointer callchains, not
 * DWARF or LBR ones.
 */
static int leaf_caller(struct pda_session *s, struct walk *w, uint64_t pc,
		       uint64_t next)
{
	const uint64_t not_fp = PD_SAMPLE_STACK_USER | PD_SAMPLE_BRANCH_STACK;
	uint64_t caller;
	int rc;

	if ((w->sample->mask & not_fp) ||
	    !(w->sample->mask & PD_SAMPLE_REGS_USER))
		return 0;
	/* the unwinder's state is the session's: one shard at a time */
	if (s->shards_on)
		pthread_mutex_lock(&s->shard_lock);
	rc = pda_unwind_leaf_caller(s, s->unwinder, w->sample,
				    pda_machine_maps(s, w->sample->pid),
				    space_maps(s, w, PD_MISC_USER), pc, &caller);
	if (s->shards_on)
		pthread_mutex_unlock(&s->shard_lock);
	if (rc < 0)
		return pda_set_err(s, rc, "unwinding: %s", pd_strerror(rc));
	if (!caller || caller == next)
		return 0;
	return resolve_ip(s, w, caller, PD_MISC_USER, false, w->inl_callchain,
			  w->v->dc != NULL);
}

void pda_stack_release(struct pda_session *s, struct pda_stack *st)
{
	if (!st)
		return;
	if (s)
		pda_free(s, st->frames);
	st->frames = NULL;
	st->nr = st->alloc = 0;
}

int pda_sample_stack(struct pda_session *s, const struct pd_sample *sample,
		     struct pda_stack *st)
{
	return pda_sample_stack_job(s, &s->view, sample, st, NULL, NULL);
}

/* stack_walk() for a shard view (shard) or the session's: made twice,
 * inline, each without the other's tests. */
static HOT_INLINE int stack_walk_k(struct pda_session *s, struct pda_view *v,
				   const struct pd_sample *sample,
				   struct pda_stack *st,
				   struct pda_unwind_job *job,
				   const struct pda_unwound *pre,
				   struct pda_maps *umaps, bool shard)
{
	struct walk w = {v,     st,    sample, job,
			 pre,   umaps, NULL,   false,
			 !s->opts.no_inline && s->opts.inline_callchain};
	const struct pd_u64s *cc = &sample->callchain;
	struct pda_lbr_walk lw;
	int rc = 0;

	st->nr = 0;
	w.v->sample_seq++;
	if (!(sample->mask & PD_SAMPLE_CALLCHAIN)) {
		unsigned cpumode = sample->misc & PD_MISC_CPUMODE_MASK;

		if (cpumode == PD_MISC_CPUMODE_UNKNOWN)
			cpumode = PD_MISC_USER;
		if (sample->mask & PD_SAMPLE_IP)
			rc = resolve_ip(s, &w, sample->ip, cpumode, true,
					w.inl_callchain, shard);
	} else if (pda_lbr_begin(sample, &lw)) {
		uint64_t ip;
		unsigned cpumode;

		while (rc == 0 && pda_lbr_next(&lw, &ip, &cpumode))
			rc = resolve_ip(s, &w, ip, cpumode, false,
					w.inl_callchain, shard);
	} else {
		unsigned cpumode = PD_MISC_USER;

		for (uint64_t i = 0; i < cc->nr && rc == 0; i++) {
			uint64_t ip = pd_u64s_get(cc, i);

			if (ip < PD_CONTEXT_MAX) {
				if (i >= 2 && cpumode == PD_MISC_USER &&
				    pd_u64s_get(cc, i - 2) == PD_CONTEXT_USER)
					rc = leaf_caller(s, &w, pd_u64s_get(cc, i - 1),
							 ip);
				if (rc == 0)
					rc = resolve_ip(s, &w, ip, cpumode, false,
							w.inl_callchain, shard);
				continue;
			}
			switch (ip) {
			case PD_CONTEXT_HV:
				cpumode = PD_MISC_HYPERVISOR;
				continue;
			case PD_CONTEXT_KERNEL:
				cpumode = PD_MISC_KERNEL;
				continue;
			case PD_CONTEXT_USER:
				cpumode = PD_MISC_USER;
				continue;
			case PD_CONTEXT_GUEST:
			case PD_CONTEXT_GUEST_KERNEL:
				cpumode = PD_MISC_GUEST_KERNEL;
				continue;
			case PD_CONTEXT_GUEST_USER:
				cpumode = PD_MISC_GUEST_USER;
				continue;
			case PD_CONTEXT_USER_DEFERRED:
				/* the user part comes in a CALLCHAIN_DEFERRED
				 * record, not followed: the chain ends here */
				i = cc->nr;
				continue;
			default:
				/* perf: "invalid callchain context", the
				 * chain is dropped */
				pda_logf(s, PD_LOG_DEBUG,
					 "invalid callchain context %lld",
					 (long long)ip);
				st->nr = 0;
				w.unresolved = false;
				i = cc->nr;
				continue;
			}
		}
	}
	/* perf's thread__resolve_callchain, callee order: the callchain
	 * (the kernel part), then the unwound user stack */
	if (rc == 0 && pda_sample_unwinds(sample))
		rc = unwind_user(s, &w);
	if (rc < 0) {
		st->nr = 0;
		return rc;
	}
	w.v->nr_samples++;
	if (w.unresolved)
		w.v->nr_samples_unresolved++;
	return 0;
}

static int stack_walk(struct pda_session *s, struct pda_view *v,
		      const struct pd_sample *sample, struct pda_stack *st,
		      struct pda_unwind_job *job,
		      const struct pda_unwound *pre, struct pda_maps *umaps)
{
	/* s->view alone has no counts of its own (dc) */
	if (v->dc)
		return view_failed(s, v,
				   stack_walk_k(s, v, sample, st, job, pre,
						umaps, true));
	return stack_walk_k(s, &s->view, sample, st, job, pre, umaps, false);
}

int pda_sample_stack_job(struct pda_session *s, struct pda_view *v,
			 const struct pd_sample *sample, struct pda_stack *st,
			 struct pda_unwind_job *job, struct pda_maps *umaps)
{
	return stack_walk(s, v, sample, st, job, NULL, umaps);
}

int pda_sample_stack_unwound(struct pda_session *s, struct pda_view *v,
			     const struct pd_sample *sample,
			     struct pda_stack *st, struct pda_maps *umaps,
			     const struct pda_unwound *pre)
{
	return stack_walk(s, v, sample, st, NULL, pre, umaps);
}

int pda_sample_unwind(struct pda_session *s, const struct pd_sample *sample,
		      struct pda_unwind_job *job, struct pda_maps *umaps,
		      struct pda_unwound *out)
{
	int rc;

	if (job)
		rc = pda_unwind_finish(s, s->unwinder, job, &out->ips,
				       &out->nr);
	else
		rc = pda_unwind_sample(s, s->unwinder, sample,
				       pda_machine_maps(s, sample->pid),
				       umaps, &out->ips, &out->nr);
	if (rc < 0)
		return pda_set_err(s, rc, "unwinding: %s", pd_strerror(rc));
	return 0;
}

/* ---- first uses of a two-pass run's unwound addresses --------------- */

/* An address an unwound frame is looked up at, and its first use. */
struct first_ent {
	struct addr_key k;
	struct pda_dso_ent *dso; /* k.dso, to load */
	enum pda_map_kind kind;
	uint64_t time, seq; /* the sample's place in time */
	uint32_t frame;	    /* and the frame's in it */
};

static bool first_eq(const void *item, const void *key)
{
	return addr_eq(&((const struct first_ent *)item)->k, key);
}

static bool first_before(const struct first_ent *e, uint64_t time,
			 uint64_t seq, uint32_t frame)
{
	if (e->time != time)
		return e->time < time;
	if (e->seq != seq)
		return e->seq < seq;
	return e->frame < frame;
}

int pda_first_ahead_open(struct pda_session *s)
{
	/* the kernel's symbols too, which the first kernel frame loads */
	pda_kernel_ahead_open(s);
	if (s->dwahead) {
		pda_dwahead_open(s->dwahead);
		return 0;
	}
	return pda_dwahead_new(s, &s->dwahead);
}

bool pda_first_ahead(struct pda_session *s)
{
	return pda_kernel_ahead_run(s) ||
	       (s->dwahead && pda_dwahead_run(s, s->dwahead));
}

/* Queue e's first use's DWARF to be loaded ahead, where its binary is
 * loaded already (the unwinder loads what it unwinds through; loading is
 * the session thread's, in sample order). */
static void note_ahead(struct pda_session *s, const struct first_ent *e)
{
	struct pda_elf *elf = e->dso->d.elf;
	uint64_t vaddr;

	if (e->dso->kind == PDA_DSO_FILE && e->dso->d.state == PDA_DSO_FOUND &&
	    elf && pda_elf_offset_to_vaddr(elf, e->k.addr, &vaddr) == 0)
		pda_dwahead_add(s, s->dwahead, elf, vaddr);
}

/*
 * An ip of an unwound frame in maps, while maps->gen was gen, and the
 * entry of its address (NULL: no addr2line there).  Successive samples
 * unwind through the same return addresses of the same process: a hit
 * takes the map lookup, the key's hash and the table's search away.
 */
struct first_front {
	const struct pda_maps *maps; /* NULL: empty */
	uint64_t gen, ip;
	struct first_ent *e;
};

/* The entry for ip in map (NULL: no addr2line there), added if new. */
static int first_ent_of(struct pda_session *s, const struct pda_map *map,
			uint64_t ip, struct first_ent **out)
{
	const bool inl = !s->opts.no_inline;
	struct first_ent *e;
	struct addr_key k;
	uint64_t hash;

	*out = NULL;
	if (!map || map->kind == PDA_MAP_ANON || map->kind == PDA_MAP_KSYM ||
	    !map_inl(map, inl))
		return 0; /* no addr2line: the order does not matter */
	k.dso = map->dso;
	k.addr = map_addr(map, ip);
	k.inl = true;
	hash = addr_hash(&k);
	e = pdc_hash_find(&s->first, hash, first_eq, &k);
	if (!e) {
		e = pda_arena_alloc(s, sizeof(*e));
		if (!e || pdc_hash_add(&s->alloc, &s->first, hash, e) < 0 ||
		    PDA_GROW(s, s->first_v, s->first_alloc, s->first_nr + 1,
			     SIZE_MAX / 16) < 0)
			return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
		s->first_v[s->first_nr++] = e;
		e->k = k;
		e->dso = map->dso;
		e->kind = map->kind;
		/* not yet used: the caller's use is the first */
		e->time = UINT64_MAX;
		e->seq = UINT64_MAX;
		e->frame = UINT32_MAX;
		if (s->dwahead)
			note_ahead(s, e);
	}
	*out = e;
	return 0;
}

int pda_first_note(struct pda_session *s, struct pda_maps *umaps,
		   const struct pda_unwound *u, uint64_t time, uint64_t seq)
{
	/* gen 0 is not unique to one content of the maps: no front */
	const bool front = umaps && umaps->gen;
	int rc;

	if (!umaps)
		return 0;
	if (front && !s->first_front) {
		s->first_front = pda_zalloc(
			s, PDA_FIRST_FRONT * sizeof(*s->first_front));
		if (!s->first_front)
			return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < u->nr; i++) {
		const uint64_t ip = u->ips[i];
		struct first_front *f = NULL;
		struct first_ent *e;

		if (front) {
			f = &s->first_front[(ip ^ ip >> 12 ^
					     (uintptr_t)umaps >> 6) &
					    (PDA_FIRST_FRONT - 1)];
			if (f->ip == ip && f->maps == umaps &&
			    f->gen == umaps->gen) {
				e = f->e;
				goto found;
			}
		}
		rc = first_ent_of(s, pda_maps_find(umaps, ip), ip, &e);
		if (rc < 0)
			return rc;
		if (f) {
			f->maps = umaps;
			f->gen = umaps->gen;
			f->ip = ip;
			f->e = e;
		}
found:
		if (!e || first_before(e, time, seq, (uint32_t)i))
			continue;
		e->time = time;
		e->seq = seq;
		e->frame = (uint32_t)i;
	}
	return 0;
}

static int cmp_first(const void *a, const void *b)
{
	const struct first_ent *x = *(const struct first_ent *const *)a;
	const struct first_ent *y = *(const struct first_ent *const *)b;

	if (first_before(x, y->time, y->seq, y->frame))
		return -1;
	return first_before(y, x->time, x->seq, x->frame);
}

/*
 * Sort v[0..nr) by first use.  Samples are unwound in time order, so
 * that their addresses came (v's order) sorted but for the few whose
 * first use an earlier sample met later (two in the bench's 33k): those
 * are moved back into place, and only an input far from sorted pays a
 * full sort.
 */
static void sort_first(struct first_ent **v, size_t nr)
{
	size_t budget = nr * 4;

	for (size_t i = 1; i < nr; i++) {
		struct first_ent *e = v[i];
		size_t j = i;

		while (j && first_before(e, v[j - 1]->time, v[j - 1]->seq,
					 v[j - 1]->frame)) {
			if (!budget--) {
				qsort(v, nr, sizeof(*v), cmp_first);
				return;
			}
			v[j] = v[j - 1];
			j--;
		}
		v[j] = e;
	}
}

/* Fewer first uses than this replay on the session's thread alone: the
 * thread's start and the split cost more than they save. */
#define SPLIT_MIN 1024

/* What a first use costs the split (split_plan), in quarters of one in
 * a binary without DWARF (cc1plus's at the bench's, 1.7k instructions):
 * one in a DWARF binary walks its inline chain (libc's, 12.9k); each
 * the other thread resolves the session's thread adds to the cache
 * after (about 0.4k). */
#define COST_PLAIN 4
#define COST_DWARF 32
#define COST_ADD 1

/* Who replays a first use (struct replay_plan). */
enum { SIDE_MINE, SIDE_OTHER, SIDE_DONE };

/* A binary's first uses (split_plan): how many, the first's place. */
struct side_count {
	struct pda_dso_ent *d;
	size_t nr, first;
	bool pure;  /* pda_elf_lookups_pure: its first uses go either way */
	bool other; /* all of them on the other thread */
};

static int cmp_side_count(const void *a, const void *b)
{
	const struct side_count *x = *(const struct side_count *const *)a;
	const struct side_count *y = *(const struct side_count *const *)b;

	if (x->nr != y->nr)
		return x->nr > y->nr ? -1 : 1;
	return x->d->idx < y->d->idx ? -1 : x->d->idx > y->d->idx;
}

/* Whether d's lookups may run on another thread: files found and
 * loaded, whose lookups read their own files' state (pda_dso_load then
 * loads nothing), and the session's shared parts under their locks
 * (pda_intern, the allocator, the log). */
static bool side_may(const struct pda_dso_ent *d)
{
	return d->kind == PDA_DSO_FILE && d->d.state == PDA_DSO_FOUND &&
	       d->d.elf;
}

/* A first use's place in [0, nr), by its 4 KB page: the addresses of a
 * function fall on one side, its name demangled there only (each side
 * keeps its own table). */
static size_t page_share(const struct first_ent *e, size_t nr)
{
	const uint64_t h = pdc_hash_u64(e->k.addr >> 12 ^
					(uint64_t)e->dso->idx << 44);

	return (size_t)(((h & UINT32_MAX) * nr) >> 32);
}

/*
 * Who replays each of v[0..nr) (who[i], SIDE_*): a binary's names depend
 * on the order of its own first uses only (pda_dwarf.c a2l_name), so a
 * binary may go to the other thread whole, and one without DWARF
 * (pda_elf_lookups_pure) in part, its first uses dealt by page.  A binary
 * not pure yet has its first first use looked up here (what it loads,
 * and says, in its place; SIDE_DONE).  The whole ones go biggest first
 * to the lighter side, then the pure ones' first uses even the sides.
 * *split false where nothing goes to the other thread.  0 or NOMEM.
 */
static int split_plan(struct pda_session *s, struct first_ent *const *v,
		      size_t nr, unsigned char *who, struct pda_log_hold *h,
		      bool *split)
{
	const size_t nd = s->dsos.nr_all;
	struct side_count *c = pda_zalloc(s, nd * sizeof(*c));
	struct side_count **by = pda_malloc(s, nd * sizeof(*by));
	size_t mine = 0, other = 0, pure = 0, n = 0, take;
	int rc = 0;

	*split = false;
	if (!c || !by)
		goto out; /* no split: no harm */
	for (size_t i = 0; i < nr; i++) {
		struct pda_dso_ent *d = v[i]->dso;

		who[i] = SIDE_MINE;
		if (!side_may(d)) {
			mine += COST_PLAIN;
		} else if (!c[d->idx].nr++) {
			c[d->idx].d = d;
			c[d->idx].first = i;
			by[n++] = &c[d->idx];
		}
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct side_count *b = by[i];

		if (!pda_elf_lookups_pure(b->d->d.elf)) {
			const struct first_ent *f = v[b->first];

			h->at = b->first;
			who[b->first] = SIDE_DONE;
			if (!lookup(s, &s->view, f->dso, f->k.addr, f->kind,
				    true))
				rc = PD_ERR_NOMEM;
			b->nr--;
			mine += COST_PLAIN;
		}
		b->pure = pda_elf_lookups_pure(b->d->d.elf);
	}
	qsort(by, n, sizeof(*by), cmp_side_count);
	for (size_t i = 0; i < n; i++) {
		if (by[i]->pure) {
			pure += by[i]->nr;
		} else if (other < mine) {
			by[i]->other = true;
			other += by[i]->nr * COST_DWARF;
			mine += by[i]->nr * COST_ADD;
		} else {
			mine += by[i]->nr * COST_DWARF;
		}
	}
	/* the pure ones' share that evens the sides: other + take * PLAIN
	 * = mine + (pure - take) * PLAIN + take * ADD */
	take = mine + pure * COST_PLAIN > other
		       ? (mine + pure * COST_PLAIN - other) /
				 (2 * COST_PLAIN - COST_ADD)
		       : 0;
	if (take > pure)
		take = pure;
	for (size_t i = 0; i < nr; i++) {
		const struct side_count *b = &c[v[i]->dso->idx];

		if (who[i] != SIDE_MINE || !b->nr)
			continue;
		if (b->other || (b->pure && page_share(v[i], pure) < take))
			who[i] = SIDE_OTHER;
	}
	*split = rc == 0 && (other || take);
out:
	pda_free(s, by);
	pda_free(s, c);
	return rc;
}

/* The other thread's part of a split replay: first uses of its binaries
 * (their places in s->first_v, in order), their frames, and what
 * resolving them makes beside their binaries' state. */
struct replay_side {
	struct pda_session *s;
	struct first_ent *const *v;
	size_t *at;
	struct addr_ent **ents;
	size_t nr;
	struct pdc_arena arena;
	struct pdc_intern demangled;
	struct pda_inline *inl;
	size_t inl_alloc;
	struct pda_log_hold hold;
};

static void *replay_side_main(void *arg)
{
	struct replay_side *b = arg;
	const struct res_own own = {&b->arena, &b->demangled, &b->inl,
				    &b->inl_alloc};

	/* failing, its messages are said at once (out of order) */
	pda_log_hold(b->s, &b->hold);
	for (size_t i = 0; i < b->nr; i++) {
		const struct first_ent *e = b->v[b->at[i]];

		b->hold.at = b->at[i];
		b->ents[i] = resolve_new(b->s, &own, e->dso, &e->k, e->kind);
		if (!b->ents[i])
			break; /* NOMEM: the rest NULL (zeroed) */
	}
	pda_log_hold(b->s, NULL);
	return NULL;
}

/*
 * pda_first_replay() on two threads, v sorted: the other thread resolves
 * the first uses split_plan() gives it while this one looks up the rest;
 * the messages of both are said in v's order, the other's frames added
 * to the cache after.  1 where it does not split (one thread replays it
 * all then), else 0 or NOMEM (said).
 */
static int replay_split(struct pda_session *s, struct first_ent *const *v,
			size_t nr)
{
	struct replay_side b = {.s = s, .v = v};
	struct pda_log_hold hold = {0};
	unsigned char *who;
	bool split = false;
	pthread_t t;
	int rc = 1;

	if (!s->mt.on ||
	    nr < (s->opts.replay_split_min ? s->opts.replay_split_min
					   : SPLIT_MIN))
		return 1;
	/* SIDE_MINE (0) where split_plan() gives up before it says */
	who = pda_zalloc(s, nr);
	b.at = pda_malloc(s, nr * sizeof(*b.at));
	b.ents = pda_zalloc(s, nr * sizeof(*b.ents));
	if (!who || !b.at || !b.ents || !pda_log_hold(s, &hold))
		goto out;
	/* what split_plan() looked up is held: the rest here too, even
	 * where it did not split, so that all is said in order */
	rc = split_plan(s, v, nr, who, &hold, &split);
	/* those resolved before (none at the bench's) stay as they are: a
	 * lookup would find them and name nothing */
	for (size_t i = 0; i < nr && split; i++)
		if (who[i] == SIDE_OTHER &&
		    !pdc_hash_find(&s->addr_cache, addr_hash(&v[i]->k),
				   addr_eq, &v[i]->k))
			b.at[b.nr++] = i;
	if (b.nr && pthread_create(&t, NULL, replay_side_main, &b) != 0) {
		/* this thread looks them up */
		b.nr = 0;
		for (size_t i = 0; i < nr; i++)
			if (who[i] == SIDE_OTHER)
				who[i] = SIDE_MINE;
	}
	/* the cache's finds here meet no entry of the other's first uses */
	for (size_t i = 0; i < nr && rc == 0; i++) {
		if (who[i] != SIDE_MINE)
			continue;
		hold.at = i;
		if (!lookup(s, &s->view, v[i]->dso, v[i]->k.addr, v[i]->kind,
			    true))
			rc = PD_ERR_NOMEM;
	}
	if (b.nr)
		pthread_join(t, NULL);
	for (size_t i = 0; i < b.nr && rc == 0; i++) {
		struct addr_ent *ent = b.ents[i];
		struct pda_dso_ent *d = v[b.at[i]]->dso;

		if (!ent || pdc_hash_add(&s->alloc, &s->addr_cache,
					 addr_hash(&v[b.at[i]]->k), ent) < 0)
			rc = PD_ERR_NOMEM;
		else if (!d->used)
			dso_used(s, d);
	}
	pda_log_hold(s, NULL);
	pda_log_release(s, &hold, &b.hold);
	if (rc < 0)
		pda_set_err(s, rc, "out of memory");
out:
	pdc_arena_adopt(&s->arena, &b.arena);
	pdc_intern_release(&b.demangled, &s->alloc);
	pda_free(s, b.inl);
	pda_free(s, b.at);
	pda_free(s, b.ents);
	pda_free(s, who);
	return rc;
}

int pda_first_replay(struct pda_session *s)
{
	struct first_ent **v = s->first_v;
	const size_t nr = s->first_nr;
	int rc;

	if (s->dwahead)
		pda_dwahead_close(s, s->dwahead);
	sort_first(v, nr);
	rc = replay_split(s, v, nr);
	for (size_t i = 0; i < nr && rc > 0; i++)
		if (!lookup(s, &s->view, v[i]->dso, v[i]->k.addr, v[i]->kind,
			    true))
			rc = pda_set_err(s, PD_ERR_NOMEM, "out of memory");
	if (rc > 0)
		rc = 0;
	pda_free(s, v);
	s->first_v = NULL;
	s->first_nr = s->first_alloc = 0;
	pda_free(s, s->first_front);
	s->first_front = NULL;
	pdc_hash_release(&s->alloc, &s->first);
	return rc;
}

int pda_sample_stack_rec(struct pda_session *s, struct pda_view *v,
			 const struct pd_sample *sample, struct pda_stack *st,
			 struct pda_maps *umaps, struct pda_memo_rec *rec)
{
	const uint64_t frames = v->nr_frames;
	const uint64_t unres = v->nr_frames_unresolved;
	const uint64_t samples_unres = v->nr_samples_unresolved;
	int rc;

	rec->nr_dsos = rec->nr_unres = 0;
	rec->overflow = false;
	v->memo_rec = rec;
	rc = pda_sample_stack_job(s, v, sample, st, NULL, umaps);
	v->memo_rec = NULL;
	rec->nr_frames = v->nr_frames - frames;
	rec->nr_frames_unresolved = v->nr_frames_unresolved - unres;
	rec->unresolved = v->nr_samples_unresolved != samples_unres;
	return rc;
}

static __attribute__((noinline, cold)) int
replay_view(struct pda_view *v, const struct pda_memo_counts *c,
	    struct pda_dso_ent *const *dsos, uint64_t n);

void pda_memo_replay(struct pda_session *s, const struct pda_memo_counts *c,
		     struct pda_dso_ent *const *dsos)
{
	pda_memo_replay_n(&s->view, c, dsos, 1);
}

int pda_memo_replay_n(struct pda_view *v, const struct pda_memo_counts *c,
		      struct pda_dso_ent *const *dsos, uint64_t n)
{
	/* as pda_sample_stack_job() counts a sample it resolves, n times
	 * (each sample's seq: the last one's is what stays) */
	/* in locals: the stores to the binaries may alias v's fields */
	const uint64_t seq = v->sample_seq + n;
	const unsigned nr_dsos = c->nr_dsos, nr = nr_dsos + c->nr_unres;

	v->sample_seq = seq;
	v->nr_frames += c->nr_frames * n;
	v->nr_frames_unresolved += c->nr_frames_unresolved * n;
	v->nr_samples += n;
	if (c->unresolved)
		v->nr_samples_unresolved += n;
	if (v->dc)
		return replay_view(v, c, dsos, n);
	for (unsigned i = 0; i < nr_dsos; i++) {
		dsos[i]->sample_seq = seq;
		dsos[i]->d.nr_samples += n;
	}
	for (unsigned i = nr_dsos; i < nr; i++) {
		dsos[i]->unres_seq = seq;
		dsos[i]->d.nr_unresolved += n;
	}
	return 0;
}

/* pda_memo_replay_n()'s binaries for a shard view: its own counts.
 * Apart (cold): inline, its registers cost every replay of a run in one. */
static __attribute__((noinline, cold)) int
replay_view(struct pda_view *v, const struct pda_memo_counts *c,
	    struct pda_dso_ent *const *dsos, uint64_t n)
{
	for (unsigned i = 0; i < c->nr_dsos + c->nr_unres; i++) {
		struct pda_dso_count *dc = view_count(v, dsos[i]);

		if (dc && i < c->nr_dsos) {
			dc->sample_seq = v->sample_seq;
			dc->nr_samples += n;
		} else if (dc) {
			dc->unres_seq = v->sample_seq;
			dc->nr_unresolved += n;
		}
	}
	return view_failed(v->s, v, 0);
}

/* Whether callchain addresses get their inlined frames. */
static bool inl_callchain(const struct pda_session *s)
{
	return !s->opts.no_inline && s->opts.inline_callchain;
}

/* pda_sample_leaf() in the process maps umaps (NULL: the sample's, at
 * its state), and the map ip is in (NULL: none). */
static int sample_leaf(struct pda_session *s, struct pda_view *v,
		       const struct pd_sample *sample, struct pda_maps *umaps,
		       bool inl, struct pda_stack *st, struct pda_dso **dso,
		       const struct pda_map **map)
{
	struct walk w = {v, st, sample, NULL, NULL, umaps, NULL, false, inl};
	unsigned cpumode = sample->misc & PD_MISC_CPUMODE_MASK;
	int rc = 0;

	st->nr = 0;
	*dso = NULL;
	*map = NULL;
	w.v->sample_seq++;
	if (cpumode == PD_MISC_CPUMODE_UNKNOWN)
		cpumode = PD_MISC_USER;
	if (sample->mask & PD_SAMPLE_IP)
		rc = resolve_ip(s, &w, sample->ip, cpumode, true,
				w.inl_callchain, v->dc != NULL);
	if (rc < 0) {
		st->nr = 0;
		return rc;
	}
	if (w.map && w.map->dso)
		*dso = &w.map->dso->d;
	*map = w.map;
	return 0;
}

int pda_sample_leaf(struct pda_session *s, const struct pd_sample *sample,
		    struct pda_stack *st, struct pda_dso **dso)
{
	const struct pda_map *map;

	return sample_leaf(s, &s->view, sample, NULL, inl_callchain(s), st,
			   dso, &map);
}

int pda_sample_leaf_n(struct pda_session *s, const struct pd_sample *sample,
		      struct pda_stack *st, struct pda_dso **dso, uint64_t n)
{
	struct pda_view *v = &s->view;
	const uint64_t frames = v->nr_frames;
	const uint64_t unres = v->nr_frames_unresolved;
	const struct pda_map *map;
	struct pda_memo_rec rec;
	struct pda_memo_counts c;
	struct pda_dso_ent *dsos[2 * PDA_MEMO_MAX_DSOS];
	int rc;

	if (n <= 1)
		return pda_sample_leaf(s, sample, st, dso);
	rec.nr_dsos = rec.nr_unres = 0;
	rec.overflow = false;
	v->memo_rec = &rec;
	rc = sample_leaf(s, v, sample, NULL, inl_callchain(s), st, dso, &map);
	v->memo_rec = NULL;
	/* each of a group fails as the first did (the caller stops) */
	if (rc < 0)
		return rc;
	for (uint64_t i = 1; rec.overflow && i < n && rc == 0; i++)
		rc = sample_leaf(s, v, sample, NULL, inl_callchain(s), st, dso,
				 &map);
	if (rec.overflow)
		return rc;
	/* the rest counted as the first: the pipeline's memo replay, but
	 * a leaf counts no sample (sample_leaf() does not) */
	c.nr_frames = (uint32_t)(v->nr_frames - frames);
	c.nr_frames_unresolved = (uint32_t)(v->nr_frames_unresolved - unres);
	c.unresolved = 0;
	c.nr_dsos = (uint8_t)rec.nr_dsos;
	c.nr_unres = (uint8_t)rec.nr_unres;
	memcpy(dsos, rec.dsos, rec.nr_dsos * sizeof(dsos[0]));
	memcpy(dsos + rec.nr_dsos, rec.unres, rec.nr_unres * sizeof(dsos[0]));
	pda_memo_replay_n(v, &c, dsos, n - 1);
	v->nr_samples -= n - 1;
	return 0;
}

/* perf's map__map_ip() of ip in map: identity in the kernel's map, a
 * JIT's and anonymous memory (perf's identity__map_ip maps); the offset
 * in a module's or a KSYMBOL's map (perf's pgoff is 0 there: ours is the
 * start, which kallsyms keys by); in a file's, the offset plus its
 * pgoff. */
static uint64_t perf_map_ip(const struct pda_map *map, uint64_t ip)
{
	if (!map || map->kind == PDA_MAP_KERNEL || map->kind == PDA_MAP_JIT ||
	    map->kind == PDA_MAP_ANON)
		return ip;
	if (map->kind == PDA_MAP_MODULE || map->kind == PDA_MAP_KSYM)
		return ip - map->start;
	return ip - map->start + map->pgoff;
}

int pda_addr_leaf(struct pda_session *s, const struct pd_sample *sample,
		  struct pda_stack *st, struct pda_dso **dso, uint64_t *al_addr)
{
	uint64_t start;

	return pda_addr_leaf_map(s, sample, st, dso, al_addr, &start);
}

/* pda_addr_leaf() in the process maps umaps (as sample_leaf), giving
 * the map that holds the address (NULL: none). */
static int addr_leaf(struct pda_session *s, struct pda_view *v,
		     const struct pd_sample *sample, struct pda_maps *umaps,
		     bool inl, struct pda_stack *st, struct pda_dso **dso,
		     uint64_t *al_addr, const struct pda_map **out)
{
	const uint64_t frames = v->nr_frames;
	const uint64_t unres = v->nr_frames_unresolved;
	const struct pda_map *map = NULL;
	struct pda_dso_ent *d;
	int rc = sample_leaf(s, v, sample, umaps, inl, st, dso, &map);

	if (rc < 0)
		map = NULL;
	*al_addr = perf_map_ip(map, sample->ip);
	*out = map;

	v->nr_frames = frames;
	v->nr_frames_unresolved = unres;
	/* the one binary it counted, its map's (its inlined frames are
	 * the same map's), once for the new sample_seq; d is its first
	 * member */
	d = *dso ? (struct pda_dso_ent *)(void *)*dso : NULL;
	if (d && !v->dc) {
		if (d->sample_seq == v->sample_seq)
			d->d.nr_samples--;
		if (d->unres_seq == v->sample_seq)
			d->d.nr_unresolved--;
	} else if (d) {
		struct pda_dso_count *c = view_count(v, d);

		if (c && c->sample_seq == v->sample_seq)
			c->nr_samples--;
		if (c && c->unres_seq == v->sample_seq)
			c->nr_unresolved--;
		rc = view_failed(s, v, rc);
	}
	return rc;
}

int pda_addr_leaf_map(struct pda_session *s, const struct pd_sample *sample,
		      struct pda_stack *st, struct pda_dso **dso,
		      uint64_t *al_addr, uint64_t *map_start)
{
	const struct pda_map *map;
	int rc = addr_leaf(s, &s->view, sample, NULL, inl_callchain(s), st,
			   dso, al_addr, &map);

	*map_start = map ? map->start : 0;
	return rc;
}

int pda_ip_leaf(struct pda_session *s, struct pda_view *v,
		const struct pd_sample *sample, struct pda_maps *umaps,
		struct pda_stack *st)
{
	const struct pda_map *map;
	struct pda_dso *dso;
	uint64_t al_addr;

	/* perf's addr_location: the symbol table's, no inlined frame */
	return addr_leaf(s, v, sample, umaps, false, st, &dso, &al_addr,
			 &map);
}

int pda_addr_leaf_id(struct pda_session *s, const struct pd_sample *sample,
		     struct pda_stack *st, struct pda_dso **dso,
		     uint64_t *al_addr, struct pda_map_id *id)
{
	const struct pda_map *map;
	int rc = addr_leaf(s, &s->view, sample, NULL, inl_callchain(s), st,
			   dso, al_addr, &map);

	memset(id, 0, sizeof(*id));
	if (!map)
		return rc;
	id->found = true;
	id->prot = map->prot;
	id->flags = map->flags;
	/* perf's dso id is its first MMAP2's; anonymous memory has none */
	if (map->dso && map->dso->has_ino) {
		id->maj = map->dso->maj;
		id->min = map->dso->min;
		id->ino = map->dso->ino;
		id->ino_generation = map->dso->ino_generation;
	}
	return rc;
}

/* ---- statistics ---------------------------------------------------- */

static int cmp_missing(const void *a, const void *b)
{
	const struct pda_missing_dso *x = a, *y = b;

	if (x->nr_samples != y->nr_samples)
		return x->nr_samples > y->nr_samples ? -1 : 1;
	return strcmp(x->dso, y->dso);
}

static int cmp_unresolved(const void *a, const void *b)
{
	const struct pda_missing_dso *x = a, *y = b;

	if (x->nr_unresolved != y->nr_unresolved)
		return x->nr_unresolved > y->nr_unresolved ? -1 : 1;
	return cmp_missing(a, b);
}

/* pda_stats's lists from one walk of the DSOs: every binary with
 * unresolved frames (unresolved_dsos), and of those the ones not found
 * (missing), which the coverage line names. */
static void dso_lists(struct pda_session *s)
{
	static const char *const none[] = {NULL};
	struct pda_dso_ent *d;
	size_t nr = 0, nr_missing = 0;

	pda_dpkg_ahead_join(s);
	for (d = s->dsos.all; d; d = d->next_all) {
		struct pda_missing_dso *m;

		if (!d->d.nr_unresolved && !(d->kcheck && d->d.nr_samples) &&
		    !(d->d.state == PDA_DSO_MISSING && d->d.nr_samples))
			continue;
		if (PDA_GROW(s, s->unres, s->unres_alloc, nr + 1,
			     MISSING_MAX) < 0)
			break; /* a shorter list beats none */
		m = &s->unres[nr];
		m->dso = d->d.name;
		m->nr_samples = d->d.nr_samples;
		m->nr_unresolved = d->d.nr_unresolved;
		m->tried = d->d.tried ? (const char *const *)d->d.tried : none;
		m->why = d->d.why ? d->d.why : "not found";
		if (pda_dso_diagnose(s, d, m) < 0)
			break;
		nr++;
		if (d->d.state != PDA_DSO_MISSING || !d->d.nr_samples)
			continue;
		if (PDA_GROW(s, s->missing, s->missing_alloc, nr_missing + 1,
			     MISSING_MAX) < 0)
			break;
		s->missing[nr_missing++] = *m;
	}
	if (nr_missing)
		qsort(s->missing, nr_missing, sizeof(*s->missing),
		      cmp_missing);
	if (nr)
		qsort(s->unres, nr, sizeof(*s->unres), cmp_unresolved);
	s->stats.nr_missing = nr_missing;
	s->stats.missing = s->missing;
	s->stats.nr_unresolved_dsos = nr;
	s->stats.unresolved_dsos = s->unres;
}

struct pda_view *pda_view_new(struct pda_session *s)
{
	struct pda_view *v = pda_zalloc(s, sizeof(*v));

	if (!v)
		return NULL;
	v->s = s;
	/* every binary the first pass made, and room: not NULL */
	v->nr_dc = s->dsos.nr_all + 1;
	v->dc = pda_malloc(s, v->nr_dc * sizeof(*v->dc));
	if (!v->dc) {
		pda_free(s, v);
		return NULL;
	}
	for (size_t i = 0; i < v->nr_dc; i++)
		v->dc[i] = (struct pda_dso_count){UINT64_MAX, UINT64_MAX, 0, 0};
	return v;
}

void pda_view_free(struct pda_session *s, struct pda_view *v)
{
	struct pda_view *to = &s->view;

	if (!v)
		return;
	if (v->nr_waits)
		pda_logf(s, PD_LOG_DEBUG,
			 "shard %u: %llu waits (%llu ms) for the shards before "
			 "it to use a binary first",
			 v->rank, (unsigned long long)v->nr_waits,
			 (unsigned long long)v->wait_ms);
	to->nr_samples += v->nr_samples;
	to->nr_frames += v->nr_frames;
	to->nr_frames_unresolved += v->nr_frames_unresolved;
	to->nr_samples_unresolved += v->nr_samples_unresolved;
	for (struct pda_dso_ent *d = s->dsos.all; d; d = d->next_all) {
		if (d->idx >= v->nr_dc)
			continue;
		d->d.nr_samples += v->dc[d->idx].nr_samples;
		d->d.nr_unresolved += v->dc[d->idx].nr_unresolved;
	}
	if (v->atc.ok)
		pda_at_put(s, &v->atc.at);
	pda_free(s, v->dc);
	pda_free(s, v);
}

void pda_view_rank(struct pda_view *v, unsigned rank)
{
	v->rank = rank;
}

void pda_view_enter(struct pda_session *s, struct pda_view *v)
{
	if (s->shards_on)
		pthread_setspecific(s->view_key, v);
}

void pda_session_shard_done(struct pda_session *s, unsigned rank)
{
	if (!s->shards_on)
		return;
	pthread_mutex_lock(&s->shard_lock);
	s->shards_done |= UINT64_C(1) << rank;
	while (s->shard_low < 64 && (s->shards_done >> s->shard_low & 1))
		s->shard_low++;
	pthread_cond_broadcast(&s->shard_turn);
	pthread_mutex_unlock(&s->shard_lock);
}

void pda_session_shard_wait(struct pda_session *s, unsigned rank)
{
	if (!s->shards_on)
		return;
	pthread_mutex_lock(&s->shard_lock);
	while (rank > s->shard_low)
		pthread_cond_wait(&s->shard_turn, &s->shard_lock);
	pthread_mutex_unlock(&s->shard_lock);
}

int pda_session_shards(struct pda_session *s, bool on)
{
	if (on == s->shards_on)
		return 0;
	if (on && pthread_mutex_init(&s->shard_lock, NULL) != 0)
		return PD_ERR_NOMEM;
	if (on && pthread_cond_init(&s->shard_turn, NULL) != 0) {
		pthread_mutex_destroy(&s->shard_lock);
		return PD_ERR_NOMEM;
	}
	if (on && pthread_key_create(&s->view_key, NULL) != 0) {
		pthread_cond_destroy(&s->shard_turn);
		pthread_mutex_destroy(&s->shard_lock);
		return PD_ERR_NOMEM;
	}
	s->shards_done = 0;
	s->shard_low = 0;
	s->shards_on = on;
	s->machine.shared = on;
	s->machine.lock = on ? &s->shard_lock : NULL;
	/* what the shards do outside shard_lock (their pipelines' and
	 * stacks' allocations, debug lines, interned names) is the
	 * session's too: the caller's hooks and log, which need not be
	 * thread-safe, called one at a time, as while the pipeline's
	 * threads unwind (no pipeline unwinds beside shards: pda_capture's
	 * second_shards) */
	if (on && !s->mt.on) {
		pda_session_threads(s, true);
		s->shards_mt = true;
	} else if (!on && s->shards_mt) {
		pda_session_threads(s, false);
		s->shards_mt = false;
	}
	if (!on) {
		pthread_key_delete(s->view_key);
		pthread_cond_destroy(&s->shard_turn);
		pthread_mutex_destroy(&s->shard_lock);
	}
	return 0;
}

const struct pda_stats *pda_session_stats(struct pda_session *s)
{
	dso_lists(s);
	s->stats.nr_samples = s->view.nr_samples;
	s->stats.nr_frames = s->view.nr_frames;
	s->stats.nr_frames_unresolved = s->view.nr_frames_unresolved;
	s->stats.nr_samples_unresolved = s->view.nr_samples_unresolved;
	pda_unwind_stats(s, s->unwinder, &s->stats.unwind);
	pda_debuginfod_stats(s, &s->stats.debuginfod);
	return &s->stats;
}

int pda_session_dso_files(struct pda_session *s,
			  int (*fn)(void *arg, const struct pda_dso_files *),
			  void *arg)
{
	/* s->dsos.all is newest first: the walk gives them oldest first */
	size_t n = 0, i;
	struct pda_dso_ent *d, **v;
	int rc = 0;

	for (d = s->dsos.all; d; d = d->next_all)
		n++;
	v = pda_malloc(s, (n ? n : 1) * sizeof(*v));
	if (!v)
		return PD_ERR_NOMEM;
	i = n;
	for (d = s->dsos.all; d; d = d->next_all)
		v[--i] = d;
	for (i = 0; i < n && rc == 0; i++) {
		const struct pda_elf *bin, *dbg;
		struct pda_dso_files f;

		d = v[i];
		if (!d->d.nr_samples)
			continue;
		memset(&f, 0, sizeof(f));
		bin = d->d.state == PDA_DSO_FOUND ? d->d.elf : NULL;
		dbg = d->d.state == PDA_DSO_FOUND ? d->d.debug : NULL;
		f.dso = d->d.name;
		f.kernel = d->kind == PDA_DSO_KERNEL || d->d.kernel;
		f.vdso = d->kind == PDA_DSO_VDSO;
		f.jit = d->kind == PDA_DSO_JIT;
		f.jitdump = d->jitdump_from;
		f.build_id = d->d.build_id;
		f.build_id_size = d->d.build_id_size;
		f.build_id_recorded = f.build_id_size != 0;
		if (!f.build_id_size && bin)
			pda_elf_build_id(bin, &f.build_id, &f.build_id_size);
		/* an image in memory is named "[...]" (host_vdso), a
		 * file by its path */
		if (bin && pda_elf_path(bin)[0] == '[')
			f.image = pda_elf_image(bin, &f.image_size);
		else if (bin)
			f.binary = pda_elf_path(bin);
		f.debug = dbg ? pda_elf_path(dbg) : NULL;
		f.why = d->d.state == PDA_DSO_FOUND ? NULL
			: d->d.why		    ? d->d.why
						    : "not looked up";
		f.nr_samples = d->d.nr_samples;
		rc = fn(arg, &f);
	}
	pda_free(s, v);
	return rc;
}
