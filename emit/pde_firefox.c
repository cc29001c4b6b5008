/*
 * pde_firefox.c - a structured profile (pda_profile.h, as pda_collect
 * builds it) and its samples in time as the Firefox Profiler's
 * processed profile (profiler.firefox.com, docs-developer/
 * CHANGELOG-formats.md), pre-symbolized, so the profiler opens it
 * offline with names and a per-thread timeline.
 *
 * The version written is 58: the newest whose whole shape (the types of
 * src/types/profile.ts and the format changelog at the same revision)
 * could be checked field by field.  The profiler upgrades every older
 * processed profile to its own version as it loads it
 * (processed-profile-versioning), so a 58 opens in later profilers too;
 * writing a later number without its exact shape would skip the
 * upgraders that make it right.
 *
 * Version 58's layout, and where each table comes from:
 *   shared.stringArray  the profile's strings by id (id 0 is ""), then
 *                       the marker names this writer adds
 *   shared.sources      one per distinct source file of a function
 *   libs                one per profile mapping (id m: lib m - 1), with
 *                       the capture's build-id as codeId and breakpadId
 *   per thread          its own stackTable, frameTable, funcTable,
 *                       resourceTable and (empty) nativeSymbols, holding
 *                       only what its samples reach, indices renumbered
 *                       in profile order (a prefix stays before its
 *                       callees); its samples (stack, time in ms from
 *                       the first sample) and markers
 *   meta.categories     Other (grey: the default), User, Kernel, JIT;
 *                       each frame's category from its location's flags
 *
 * Inlined frames (PDA_LOC_INLINED) are frames of their own at their call
 * site's address with inlineDepth one more than the frame they were
 * inlined into, as the profiler's symbolication makes them.
 */
#include "pd_config.h"
#include "pdc_alloc.h"
#include "pdc_hash.h"
#include "pda_profile.h"
#include "pde.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* The format version written, and the Gecko format version of the same
 * revision (meta.version). */
#define FF_PROCESSED_VERSION 58
#define FF_GECKO_VERSION 31

enum { CAT_OTHER, CAT_USER, CAT_KERNEL, CAT_JIT };

/* A function as the profiler keys it: name, source and resource. */
struct ffunc {
	uint32_t name, file, mapping;
};

struct fent {
	struct ffunc k;
	uint32_t id;
};

struct ff {
	const struct pda_profile *p;
	const struct pde_firefox_opts *o;
	struct pd_alloc mem;
	size_t nr_strs, nr_stacks, nr_locs, nr_maps;
	/* global: per stack its inline depth; per location its function
	 * (an index into funcs); per string its source (or NONE) */
	uint32_t *depth, *loc_func, *str_source;
	struct ffunc *funcs;
	size_t nr_funcs, alloc_funcs;
	uint32_t *sources; /* string ids of the source files */
	size_t nr_sources;
	/* per thread: global index -> thread index (NONE: unused), and the
	 * global indices in thread order */
	uint32_t *stack_map, *loc_map, *func_map, *map_map;
	uint32_t *stacks, *locs, *tfuncs, *maps;
	size_t nr_tstacks, nr_tlocs, nr_tfuncs, nr_tmaps;
	uint32_t str_lost, str_offcpu;
};

static bool fent_eq(const void *item, const void *key)
{
	return memcmp(&((const struct fent *)item)->k, key,
		      sizeof(struct ffunc)) == 0;
}

static uint32_t loc_name(const struct pda_profile *p,
			 const struct pda_profile_loc *l)
{
	const struct pda_profile_func *f = pda_profile_func(p, l->func);

	return f && f->name ? f->name : l->label;
}

/* The global tables: functions by (name, file, mapping), sources, and
 * each stack's inline depth. */
static int build_global(struct ff *ff)
{
	const struct pda_profile *p = ff->p;
	struct pdc_hash h;
	int rc = 0;

	memset(&h, 0, sizeof(h));
	for (uint32_t s = 1; s < ff->nr_stacks; s++) {
		const struct pda_profile_stack *st = pda_profile_stack(p, s);
		const struct pda_profile_loc *l = pda_profile_loc(p, st->loc);

		ff->depth[s] = (l->flags & PDA_LOC_INLINED) && st->prefix
				       ? ff->depth[st->prefix] + 1
				       : 0;
	}
	for (size_t s = 0; s < ff->nr_strs; s++)
		ff->str_source[s] = NONE;
	for (uint32_t i = 1; i < ff->nr_locs && rc == 0; i++) {
		const struct pda_profile_loc *l = pda_profile_loc(p, i);
		const struct pda_profile_func *f = pda_profile_func(p, l->func);
		struct ffunc k = {loc_name(p, l), f ? f->file : 0, l->mapping};
		const uint64_t hash = pdc_hash_bytes(&k, sizeof(k));
		struct pdc_hash_slot *slot;
		struct fent *e;

		if (pdc_hash_reserve(&ff->mem, &h) < 0) {
			rc = PD_ERR_NOMEM;
			break;
		}
		slot = pdc_hash_probe(&h, hash, fent_eq, &k);
		if (slot->item) {
			ff->loc_func[i] = ((const struct fent *)slot->item)->id;
			continue;
		}
		if (PDC_GROW(&ff->mem, ff->funcs, ff->alloc_funcs,
			     ff->nr_funcs + 1, PDA_PROFILE_MAX_ITEMS) < 0) {
			rc = PD_ERR_NOMEM;
			break;
		}
		e = pdc_malloc(&ff->mem, sizeof(*e));
		if (!e) {
			rc = PD_ERR_NOMEM;
			break;
		}
		e->k = k;
		e->id = (uint32_t)ff->nr_funcs;
		ff->funcs[ff->nr_funcs++] = k;
		pdc_hash_fill(&h, slot, hash, e);
		ff->loc_func[i] = e->id;
		if (k.file && ff->str_source[k.file] == NONE) {
			ff->str_source[k.file] = (uint32_t)ff->nr_sources;
			ff->sources[ff->nr_sources++] = k.file;
		}
	}
	{
		size_t pos = 0;
		void *item;

		while ((item = pdc_hash_next(&h, &pos)))
			pdc_free(&ff->mem, item);
	}
	pdc_hash_release(&ff->mem, &h);
	return rc;
}

static int u32_cmp(const void *a, const void *b)
{
	const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Mark what thread t reaches, in profile order: a thread costs what its
 * samples reach, not the whole profile. */
static void thread_tables(struct ff *ff, const struct pde_ff_thread *t)
{
	const struct pda_profile *p = ff->p;

	ff->nr_tstacks = ff->nr_tlocs = ff->nr_tfuncs = ff->nr_tmaps = 0;
	for (size_t i = 0; i < t->nr_samples; i++)
		for (uint32_t s = t->samples[i].stack;
		     s && ff->stack_map[s] == NONE;
		     s = pda_profile_stack(p, s)->prefix) {
			ff->stack_map[s] = 0; /* reached; numbered below */
			ff->stacks[ff->nr_tstacks++] = s;
		}
	/* in id order: a prefix before its callees */
	qsort(ff->stacks, ff->nr_tstacks, sizeof(*ff->stacks), u32_cmp);
	for (size_t i = 0; i < ff->nr_tstacks; i++) {
		const uint32_t s = ff->stacks[i];
		uint32_t loc, fn, m;

		ff->stack_map[s] = (uint32_t)i;
		loc = pda_profile_stack(p, s)->loc;
		if (ff->loc_map[loc] != NONE)
			continue;
		ff->loc_map[loc] = (uint32_t)ff->nr_tlocs;
		ff->locs[ff->nr_tlocs++] = s; /* the first stack: its depth */
		fn = ff->loc_func[loc];
		if (ff->func_map[fn] != NONE)
			continue;
		ff->func_map[fn] = (uint32_t)ff->nr_tfuncs;
		ff->tfuncs[ff->nr_tfuncs++] = fn;
		m = ff->funcs[fn].mapping;
		if (m && ff->map_map[m] == NONE) {
			ff->map_map[m] = (uint32_t)ff->nr_tmaps;
			ff->maps[ff->nr_tmaps++] = m;
		}
	}
}

static void thread_reset(struct ff *ff)
{
	const struct pda_profile *p = ff->p;

	for (size_t i = 0; i < ff->nr_tstacks; i++)
		ff->stack_map[ff->stacks[i]] = NONE;
	for (size_t i = 0; i < ff->nr_tlocs; i++)
		ff->loc_map[pda_profile_stack(p, ff->locs[i])->loc] = NONE;
	for (size_t i = 0; i < ff->nr_tfuncs; i++)
		ff->func_map[ff->tfuncs[i]] = NONE;
	for (size_t i = 0; i < ff->nr_tmaps; i++)
		ff->map_map[ff->maps[i]] = NONE;
}

static unsigned loc_category(const struct pda_profile_loc *l)
{
	if (l->flags & PDA_LOC_JIT)
		return CAT_JIT;
	if (l->flags & PDA_LOC_KERNEL)
		return CAT_KERNEL;
	if (l->flags & PDA_LOC_USER)
		return CAT_USER;
	return CAT_OTHER;
}

/* ns since the first sample, in the format's milliseconds */
static double ms(const struct ff *ff, uint64_t t)
{
	return t >= ff->o->start_time ? (double)(t - ff->o->start_time) / 1e6
				      : 0.0;
}

static void u32_or_null(struct pde_json *j, uint32_t v)
{
	if (v == NONE)
		pde_json_null(j, NULL);
	else
		pde_json_u64(j, NULL, v);
}

/* A column of n nulls (or n copies of one number: v >= 0). */
static void const_column(struct pde_json *j, const char *key, size_t n,
			 int64_t v)
{
	pde_json_begin_array(j, key);
	for (size_t i = 0; i < n; i++) {
		if (v < 0)
			pde_json_null(j, NULL);
		else
			pde_json_i64(j, NULL, v);
	}
	pde_json_end_array(j);
}

static void write_stack_table(struct ff *ff, struct pde_json *j)
{
	const struct pda_profile *p = ff->p;

	pde_json_begin_object(j, "stackTable");
	pde_json_begin_array(j, "frame");
	for (size_t i = 0; i < ff->nr_tstacks; i++)
		pde_json_u64(j, NULL,
			     ff->loc_map[pda_profile_stack(p, ff->stacks[i])->loc]);
	pde_json_end_array(j);
	pde_json_begin_array(j, "prefix");
	for (size_t i = 0; i < ff->nr_tstacks; i++) {
		const uint32_t prefix = pda_profile_stack(p, ff->stacks[i])->prefix;

		u32_or_null(j, prefix ? ff->stack_map[prefix] : NONE);
	}
	pde_json_end_array(j);
	pde_json_u64(j, "length", ff->nr_tstacks);
	pde_json_end_object(j);
}

static void write_frame_table(struct ff *ff, struct pde_json *j)
{
	const struct pda_profile *p = ff->p;
	const size_t n = ff->nr_tlocs;

#define LOC(i) pda_profile_loc(p, pda_profile_stack(p, ff->locs[i])->loc)
	pde_json_begin_object(j, "frameTable");
	pde_json_begin_array(j, "address");
	for (size_t i = 0; i < n; i++) {
		const struct pda_profile_loc *l = LOC(i);

		/* a library-relative address only where the location holds
		 * one: an offset in its mapping's file */
		if ((l->flags & PDA_LOC_DSO_OFFSET) && l->mapping &&
		    l->address <= ((uint64_t)1 << 53))
			pde_json_u64(j, NULL, l->address);
		else
			pde_json_i64(j, NULL, -1);
	}
	pde_json_end_array(j);
	pde_json_begin_array(j, "inlineDepth");
	for (size_t i = 0; i < n; i++)
		pde_json_u64(j, NULL, ff->depth[ff->locs[i]]);
	pde_json_end_array(j);
	pde_json_begin_array(j, "category");
	for (size_t i = 0; i < n; i++)
		pde_json_u64(j, NULL, loc_category(LOC(i)));
	pde_json_end_array(j);
	const_column(j, "subcategory", n, 0);
	pde_json_begin_array(j, "func");
	for (size_t i = 0; i < n; i++)
		pde_json_u64(j, NULL,
			     ff->func_map[ff->loc_func[pda_profile_stack(
				     p, ff->locs[i])->loc]]);
	pde_json_end_array(j);
	const_column(j, "nativeSymbol", n, -1);
	const_column(j, "innerWindowID", n, -1);
	pde_json_begin_array(j, "line");
	for (size_t i = 0; i < n; i++)
		u32_or_null(j, LOC(i)->line ? LOC(i)->line : NONE);
	pde_json_end_array(j);
	const_column(j, "column", n, -1);
	pde_json_u64(j, "length", n);
	pde_json_end_object(j);
#undef LOC
}

static void write_func_table(struct ff *ff, struct pde_json *j)
{
	const size_t n = ff->nr_tfuncs;

	pde_json_begin_object(j, "funcTable");
	pde_json_begin_array(j, "name");
	for (size_t i = 0; i < n; i++)
		pde_json_u64(j, NULL, ff->funcs[ff->tfuncs[i]].name);
	pde_json_end_array(j);
	pde_json_begin_array(j, "isJS");
	for (size_t i = 0; i < n; i++)
		pde_json_bool(j, NULL, false);
	pde_json_end_array(j);
	pde_json_begin_array(j, "relevantForJS");
	for (size_t i = 0; i < n; i++)
		pde_json_bool(j, NULL, false);
	pde_json_end_array(j);
	pde_json_begin_array(j, "resource");
	for (size_t i = 0; i < n; i++) {
		const uint32_t m = ff->funcs[ff->tfuncs[i]].mapping;

		if (m)
			pde_json_u64(j, NULL, ff->map_map[m]);
		else
			pde_json_i64(j, NULL, -1);
	}
	pde_json_end_array(j);
	pde_json_begin_array(j, "source");
	for (size_t i = 0; i < n; i++) {
		const uint32_t file = ff->funcs[ff->tfuncs[i]].file;

		u32_or_null(j, file ? ff->str_source[file] : NONE);
	}
	pde_json_end_array(j);
	const_column(j, "lineNumber", n, -1);
	const_column(j, "columnNumber", n, -1);
	pde_json_u64(j, "length", n);
	pde_json_end_object(j);
}

static void write_resources(struct ff *ff, struct pde_json *j)
{
	const size_t n = ff->nr_tmaps;

	pde_json_begin_object(j, "resourceTable");
	pde_json_u64(j, "length", n);
	pde_json_begin_array(j, "lib");
	for (size_t i = 0; i < n; i++)
		pde_json_u64(j, NULL, ff->maps[i] - 1);
	pde_json_end_array(j);
	pde_json_begin_array(j, "name");
	for (size_t i = 0; i < n; i++)
		pde_json_u64(j, NULL,
			     pda_profile_mapping(ff->p, ff->maps[i])->name);
	pde_json_end_array(j);
	const_column(j, "host", n, -1);
	/* 1: a library */
	const_column(j, "type", n, 1);
	pde_json_end_object(j);
	pde_json_begin_object(j, "nativeSymbols");
	pde_json_begin_array(j, "libIndex");
	pde_json_end_array(j);
	pde_json_begin_array(j, "address");
	pde_json_end_array(j);
	pde_json_begin_array(j, "name");
	pde_json_end_array(j);
	pde_json_begin_array(j, "functionSize");
	pde_json_end_array(j);
	pde_json_u64(j, "length", 0);
	pde_json_end_object(j);
}

static void write_samples(struct ff *ff, struct pde_json *j,
			  const struct pde_ff_thread *t)
{
	pde_json_begin_object(j, "samples");
	pde_json_begin_array(j, "stack");
	for (size_t i = 0; i < t->nr_samples; i++) {
		const uint32_t s = t->samples[i].stack;

		u32_or_null(j, s ? ff->stack_map[s] : NONE);
	}
	pde_json_end_array(j);
	pde_json_begin_array(j, "time");
	for (size_t i = 0; i < t->nr_samples; i++)
		pde_json_double(j, NULL, ms(ff, t->samples[i].time));
	pde_json_end_array(j);
	pde_json_null(j, "weight");
	pde_json_str(j, "weightType", "samples");
	pde_json_u64(j, "length", t->nr_samples);
	pde_json_end_object(j);
}

static void write_markers(struct ff *ff, struct pde_json *j,
			  const struct pde_ff_thread *t)
{
	const size_t n = t->nr_markers;

	pde_json_begin_object(j, "markers");
	pde_json_begin_array(j, "data");
	for (size_t i = 0; i < n; i++) {
		const struct pde_ff_marker *m = &t->markers[i];

		pde_json_begin_object(j, NULL);
		if (m->kind == PDE_FF_LOST) {
			pde_json_str(j, "type", "LostSamples");
			pde_json_u64(j, "lost", m->value);
		} else {
			pde_json_str(j, "type", "OffCPU");
			pde_json_str(j, "how",
				     m->value ? "preempted" : "blocked");
		}
		pde_json_end_object(j);
	}
	pde_json_end_array(j);
	pde_json_begin_array(j, "name");
	for (size_t i = 0; i < n; i++)
		pde_json_u64(j, NULL,
			     t->markers[i].kind == PDE_FF_LOST ? ff->str_lost
							       : ff->str_offcpu);
	pde_json_end_array(j);
	pde_json_begin_array(j, "startTime");
	for (size_t i = 0; i < n; i++)
		pde_json_double(j, NULL, ms(ff, t->markers[i].start));
	pde_json_end_array(j);
	pde_json_begin_array(j, "endTime");
	for (size_t i = 0; i < n; i++) {
		if (t->markers[i].kind == PDE_FF_LOST)
			pde_json_null(j, NULL);
		else
			pde_json_double(j, NULL, ms(ff, t->markers[i].end));
	}
	pde_json_end_array(j);
	/* 0: an instant, 1: an interval */
	pde_json_begin_array(j, "phase");
	for (size_t i = 0; i < n; i++)
		pde_json_u64(j, NULL, t->markers[i].kind == PDE_FF_LOST ? 0 : 1);
	pde_json_end_array(j);
	const_column(j, "category", n, CAT_OTHER);
	pde_json_u64(j, "length", n);
	pde_json_end_object(j);
}

static void write_thread(struct ff *ff, struct pde_json *j,
			 const struct pde_ff_thread *t)
{
	char pid[16];

	/* as perf prints them: a pid or tid of -1 (a sample the kernel
	 * could not attribute) is -1, not 4294967295 */
	snprintf(pid, sizeof(pid), "%d", (int32_t)t->pid);
	thread_tables(ff, t);
	pde_json_begin_object(j, NULL);
	pde_json_str(j, "processType", "default");
	pde_json_u64(j, "processStartupTime", 0);
	pde_json_null(j, "processShutdownTime");
	pde_json_u64(j, "registerTime", 0);
	pde_json_null(j, "unregisterTime");
	pde_json_begin_array(j, "pausedRanges");
	pde_json_end_array(j);
	pde_json_bool(j, "showMarkersInTimeline", true);
	pde_json_str(j, "name", t->name ? t->name : "");
	if (t->process_name)
		pde_json_str(j, "processName", t->process_name);
	pde_json_bool(j, "isMainThread", t->pid == t->tid);
	pde_json_str(j, "pid", pid);
	pde_json_i64(j, "tid", (int32_t)t->tid);
	write_samples(ff, j, t);
	write_markers(ff, j, t);
	write_stack_table(ff, j);
	write_frame_table(ff, j);
	write_func_table(ff, j);
	write_resources(ff, j);
	pde_json_end_object(j);
	thread_reset(ff);
}

static void category(struct pde_json *j, const char *name, const char *color)
{
	pde_json_begin_object(j, NULL);
	pde_json_str(j, "name", name);
	pde_json_str(j, "color", color);
	pde_json_begin_array(j, "subcategories");
	pde_json_str(j, NULL, "Other");
	pde_json_end_array(j);
	pde_json_end_object(j);
}

/* A marker type as the profiler's marker schema describes it. */
struct schema {
	const char *name, *tooltip, *table, *chart, *description;
	const char *key, *label, *format; /* its one field */
};

static const struct schema schemas[] = {
	{"LostSamples", "Lost samples", "{marker.data.lost} samples lost",
	 "lost {marker.data.lost}",
	 "The kernel could not write these samples: its ring buffer was "
	 "full (perf's LOST and LOST_SAMPLES records)",
	 "lost", "Samples lost", "integer"},
	{"OffCPU", "Off CPU ({marker.data.how})", "off CPU, {marker.data.how}",
	 "{marker.data.how}",
	 "The thread was switched out, from a context switch out to the "
	 "next one in (perf record --switch-events)",
	 "how", "Switched out", "string"},
};

static void marker_schema(struct pde_json *j)
{
	static const char *const where[] = {"marker-chart", "marker-table",
					    "timeline-overview"};

	pde_json_begin_array(j, "markerSchema");
	for (size_t k = 0; k < sizeof(schemas) / sizeof(schemas[0]); k++) {
		const struct schema *sc = &schemas[k];

		pde_json_begin_object(j, NULL);
		pde_json_str(j, "name", sc->name);
		pde_json_str(j, "tooltipLabel", sc->tooltip);
		pde_json_str(j, "tableLabel", sc->table);
		pde_json_str(j, "chartLabel", sc->chart);
		pde_json_str(j, "description", sc->description);
		pde_json_begin_array(j, "display");
		for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++)
			pde_json_str(j, NULL, where[i]);
		pde_json_end_array(j);
		pde_json_begin_array(j, "fields");
		pde_json_begin_object(j, NULL);
		pde_json_str(j, "key", sc->key);
		pde_json_str(j, "label", sc->label);
		pde_json_str(j, "format", sc->format);
		pde_json_end_object(j);
		pde_json_end_array(j);
		pde_json_end_object(j);
	}
	pde_json_end_array(j);
}

static void write_meta(struct ff *ff, struct pde_json *j)
{
	const struct pde_firefox_opts *o = ff->o;

	pde_json_begin_object(j, "meta");
	pde_json_double(j, "interval", o->interval_ms > 0 ? o->interval_ms : 1);
	pde_json_double(j, "startTime", o->wall_start_ms);
	pde_json_u64(j, "profilingStartTime", 0);
	pde_json_double(j, "profilingEndTime", ms(ff, o->end_time));
	pde_json_u64(j, "processType", 0);
	pde_json_str(j, "product", o->product ? o->product : "perf.data");
	pde_json_str(j, "importedFrom", "pdtool export");
	pde_json_u64(j, "stackwalk", 1);
	pde_json_u64(j, "version", FF_GECKO_VERSION);
	pde_json_u64(j, "preprocessedProfileVersion", FF_PROCESSED_VERSION);
	if (o->oscpu)
		pde_json_str(j, "oscpu", o->oscpu);
	pde_json_str(j, "platform", "X11");
	if (o->nr_cpus)
		pde_json_u64(j, "logicalCPUs", o->nr_cpus);
	if (o->cpu_name)
		pde_json_str(j, "CPUName", o->cpu_name);
	if (o->arguments)
		pde_json_str(j, "arguments", o->arguments);
	pde_json_bool(j, "symbolicated", true);
	pde_json_bool(j, "symbolicationNotSupported", true);
	pde_json_bool(j, "usesOnlyOneStackType", true);
	pde_json_bool(j, "sourceCodeIsNotOnSearchfox", true);
	pde_json_begin_array(j, "categories");
	category(j, "Other", "grey");
	category(j, "User", "yellow");
	category(j, "Kernel", "orange");
	category(j, "JIT", "green");
	pde_json_end_array(j);
	pde_json_begin_object(j, "sampleUnits");
	pde_json_str(j, "time", "ms");
	pde_json_str(j, "eventDelay", "ms");
	pde_json_str(j, "threadCPUDelta", "ns");
	pde_json_end_object(j);
	marker_schema(j);
	pde_json_end_object(j);
}

/* Breakpad's id for an ELF build-id: its first 16 bytes as a GUID (the
 * first three fields byte-swapped), then an age of 0. */
static void breakpad_id(const char *hex, char *out, size_t size)
{
	static const int order[16] = {3, 2, 1, 0, 5, 4, 7, 6,
				      8, 9, 10, 11, 12, 13, 14, 15};
	const size_t len = strlen(hex);

	out[0] = '\0';
	if (len < 32 || size < 34)
		return;
	for (int i = 0; i < 16; i++) {
		const char *b = hex + 2 * order[i];

		for (int k = 0; k < 2; k++) {
			const char c = b[k];

			out[2 * i + k] =
				c >= 'a' && c <= 'f' ? (char)(c - 'a' + 'A') : c;
		}
	}
	out[32] = '0';
	out[33] = '\0';
}

static void write_libs(struct ff *ff, struct pde_json *j)
{
	const struct pde_firefox_opts *o = ff->o;

	pde_json_begin_array(j, "libs");
	for (uint32_t m = 1; m < ff->nr_maps; m++) {
		const char *path = pda_profile_str(
			ff->p, pda_profile_mapping(ff->p, m)->name, NULL);
		const char *base = strrchr(path, '/');
		const char *id = m < o->nr_build_ids && o->build_ids &&
						 o->build_ids[m]
					 ? o->build_ids[m]
					 : "";
		char bp[40];

		base = base && base[1] ? base + 1 : path;
		breakpad_id(id, bp, sizeof(bp));
		pde_json_begin_object(j, NULL);
		pde_json_str(j, "arch", o->arch ? o->arch : "");
		pde_json_str(j, "name", base);
		pde_json_str(j, "path", path);
		pde_json_str(j, "debugName", base);
		pde_json_str(j, "debugPath", path);
		pde_json_str(j, "breakpadId", bp);
		if (*id)
			pde_json_str(j, "codeId", id);
		else
			pde_json_null(j, "codeId");
		pde_json_end_object(j);
	}
	pde_json_end_array(j);
}

static void write_shared(struct ff *ff, struct pde_json *j)
{
	size_t len;

	pde_json_begin_object(j, "shared");
	pde_json_begin_array(j, "stringArray");
	for (uint32_t s = 0; s < ff->nr_strs; s++) {
		const char *str = pda_profile_str(ff->p, s, &len);

		pde_json_strn(j, NULL, str, len);
	}
	pde_json_str(j, NULL, "LostSamples");
	pde_json_str(j, NULL, "OffCPU");
	pde_json_end_array(j);
	pde_json_begin_object(j, "sources");
	pde_json_u64(j, "length", ff->nr_sources);
	const_column(j, "uuid", ff->nr_sources, -1);
	pde_json_begin_array(j, "filename");
	for (size_t i = 0; i < ff->nr_sources; i++)
		pde_json_u64(j, NULL, ff->sources[i]);
	pde_json_end_array(j);
	pde_json_end_object(j);
	pde_json_end_object(j);
}

static void ff_release(struct ff *ff)
{
	uint32_t **arrays[] = {&ff->depth,    &ff->loc_func, &ff->str_source,
			       &ff->sources,  &ff->stack_map, &ff->loc_map,
			       &ff->func_map, &ff->map_map,  &ff->stacks,
			       &ff->locs,     &ff->tfuncs,   &ff->maps};

	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		pdc_free(&ff->mem, *arrays[i]);
	pdc_free(&ff->mem, ff->funcs);
}

static uint32_t *array(struct ff *ff, size_t n, bool none)
{
	uint32_t *a = pdc_malloc(&ff->mem, (n ? n : 1) * sizeof(*a));

	if (a && none)
		for (size_t i = 0; i < n; i++)
			a[i] = NONE;
	return a;
}

int pde_firefox(FILE *out, const struct pda_profile *p,
		const struct pde_firefox_opts *opts)
{
	struct ff ff;
	struct pde_json j;
	int rc;

	memset(&ff, 0, sizeof(ff));
	ff.p = p;
	ff.o = opts;
	if (opts->alloc)
		ff.mem = *opts->alloc;
	ff.nr_strs = pda_profile_nr_strs(p);
	ff.nr_stacks = pda_profile_nr_stacks(p);
	ff.nr_locs = pda_profile_nr_locs(p);
	ff.nr_maps = pda_profile_nr_mappings(p);
	ff.str_lost = (uint32_t)ff.nr_strs;
	ff.str_offcpu = (uint32_t)ff.nr_strs + 1;
	ff.depth = array(&ff, ff.nr_stacks, false);
	ff.loc_func = array(&ff, ff.nr_locs, false);
	ff.str_source = array(&ff, ff.nr_strs, true);
	ff.sources = array(&ff, ff.nr_locs, false);
	ff.stack_map = array(&ff, ff.nr_stacks, true);
	ff.stacks = array(&ff, ff.nr_stacks, false);
	ff.loc_map = array(&ff, ff.nr_locs, true);
	ff.locs = array(&ff, ff.nr_locs, false);
	ff.func_map = array(&ff, ff.nr_locs, true);
	ff.tfuncs = array(&ff, ff.nr_locs, false);
	ff.map_map = array(&ff, ff.nr_maps, true);
	ff.maps = array(&ff, ff.nr_maps, false);
	if (!ff.depth || !ff.loc_func || !ff.str_source || !ff.sources ||
	    !ff.stack_map || !ff.stacks || !ff.loc_map || !ff.locs ||
	    !ff.func_map || !ff.tfuncs || !ff.map_map || !ff.maps) {
		ff_release(&ff);
		return PD_ERR_NOMEM;
	}
	ff.depth[0] = 0;
	rc = build_global(&ff);
	if (rc < 0) {
		ff_release(&ff);
		return rc;
	}
	pde_json_init(&j, out, false);
	pde_json_begin_object(&j, NULL);
	write_meta(&ff, &j);
	write_libs(&ff, &j);
	write_shared(&ff, &j);
	pde_json_begin_array(&j, "threads");
	for (size_t i = 0; i < opts->nr_threads; i++)
		write_thread(&ff, &j, &opts->threads[i]);
	pde_json_end_array(&j);
	pde_json_end_object(&j);
	pde_json_newline(&j);
	ff_release(&ff);
	return ferror(out) ? PD_ERR_IO : 0;
}
