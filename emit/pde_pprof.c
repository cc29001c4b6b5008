/*
 * pde_pprof.c - a structured profile (pda_profile.h, as pda_collect
 * builds it) as pprof's profile.proto (github.com/google/pprof,
 * proto/profile.proto), uncompressed: the caller gzips it.
 *
 * The encoder is our own, not libprotobuf-c: the format is six message
 * types of varints, length-delimited strings and packed varint arrays,
 * which a few dozen lines write, where protobuf-c would add a generated
 * .pb-c.c, protoc-c at build time and a runtime library for the same
 * bytes.  Everything is written leaf message first into byte buffers,
 * each nested message whole before its length prefix, so no second pass
 * is needed.
 *
 * Mapping of the tables:
 *   strings    the profile's string ids as they are (id 0 is ""), then
 *              the strings this writer makes (sample types, comments)
 *   functions  one per profile function, same ids
 *   mappings   one per profile mapping, same ids: start 0, offset 0 and
 *              limit past the highest file offset its locations hold,
 *              since their addresses are offsets in the file
 *              (PDA_LOC_DSO_OFFSET), so pprof's address-to-offset
 *              arithmetic gives the offset back
 *   locations  one per run of frames at one address: the inlined frames
 *              (PDA_LOC_INLINED) leaf first and the function they were
 *              inlined into last, as profile.proto's Line list says
 *   samples    one per profile row, locations leaf first, one value per
 *              column
 */
#include "pd_config.h"
#include "pdc_alloc.h"
#include "pdc_arena.h"
#include "pdc_hash.h"
#include "pda_profile.h"
#include "pde.h"

#include <stdlib.h>
#include <string.h>

/* profile.proto's field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	MAPPING_ID = 1,
	MAPPING_MEMORY_START = 2,
	MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9,
	MAPPING_HAS_INLINE_FRAMES = 10,
	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	LINE_LINE = 2,
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
};

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

/* A growing byte buffer; oom sticks, so calls need no checks between. */
struct pb {
	const struct pd_alloc *a;
	unsigned char *p;
	size_t len, alloc;
	bool oom;
};

#define PB_MAX ((size_t)1 << 40)

static void pb_raw(struct pb *b, const void *p, size_t n)
{
	if (b->oom || !n)
		return;
	if (PDC_GROW(b->a, b->p, b->alloc, b->len + n, PB_MAX) < 0) {
		b->oom = true;
		return;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	do {
		tmp[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	pb_raw(b, tmp, n);
}

static void pb_key(struct pb *b, unsigned field, unsigned wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

/* A scalar field; proto3 leaves zeros out. */
static void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, WIRE_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct pb *b, unsigned field, const void *p, size_t n)
{
	pb_key(b, field, WIRE_LEN);
	pb_varint(b, n);
	pb_raw(b, p, n);
}

/* sub as a nested message of dst, then sub emptied for reuse */
static void pb_sub(struct pb *dst, unsigned field, struct pb *sub)
{
	dst->oom |= sub->oom;
	pb_bytes(dst, field, sub->p, sub->len);
	sub->len = 0;
}

/* an int64 value: pprof's values are signed; a sum past it saturates */
static uint64_t int64_of(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : v;
}

/* ---- the strings this writer adds ------------------------------------ */

struct extra_strs {
	const struct pd_alloc *a;
	char **s;
	size_t nr, alloc;
	uint32_t base;		/* the profile's string count */
	bool oom;
};

static uint32_t extra_add(struct extra_strs *x, const char *a, const char *b)
{
	const size_t la = strlen(a), lb = b ? strlen(b) : 0;
	char *s;

	if (x->oom || PDC_GROW(x->a, x->s, x->alloc, x->nr + 1, 1u << 20) < 0 ||
	    !(s = pdc_malloc(x->a, la + lb + 1))) {
		x->oom = true;
		return 0;
	}
	memcpy(s, a, la);
	if (lb)
		memcpy(s + la, b, lb);
	s[la + lb] = '\0';
	x->s[x->nr] = s;
	return x->base + (uint32_t)x->nr++;
}

static void extra_free(struct extra_strs *x)
{
	for (size_t i = 0; i < x->nr; i++)
		pdc_free(x->a, x->s[i]);
	pdc_free(x->a, x->s);
}

/* ---- locations: runs of inlined frames ------------------------------- */

struct run {
	uint32_t id;		/* pprof location id */
	uint32_t nr;
	uint32_t locs[];	/* profile locations, leaf first */
};

struct run_key {
	const uint32_t *locs;
	uint32_t nr;
};

static bool run_eq(const void *item, const void *key)
{
	const struct run *r = item;
	const struct run_key *k = key;

	return r->nr == k->nr &&
	       memcmp(r->locs, k->locs, k->nr * sizeof(*k->locs)) == 0;
}

struct pprof {
	const struct pda_profile *p;
	const struct pde_pprof_opts *o;
	const struct pd_alloc *a;
	struct pdc_hash runs;
	struct pdc_arena arena;
	struct pb locs_msg;	/* the Location messages, in id order */
	struct pb sub, line;
	uint32_t nr_runs;
	uint64_t *limits;	/* per mapping: past its highest offset */
	unsigned char *map_flags; /* per mapping: MF_* */
};

enum {
	MF_FUNCS = 1,		/* every location has a function */
	MF_NO_FUNC = 2,		/* one has none */
	MF_FILES = 4,
	MF_LINES = 8,
	MF_INLINE = 16,
};

static void note_mapping(struct pprof *pp, const struct pda_profile_loc *l,
			 bool inlined)
{
	unsigned char *f;
	const struct pda_profile_func *fn;

	if (!l->mapping)
		return;
	f = &pp->map_flags[l->mapping];
	fn = pda_profile_func(pp->p, l->func);
	*f |= fn ? MF_FUNCS : MF_NO_FUNC;
	if (fn && fn->file)
		*f |= MF_FILES;
	if (l->line)
		*f |= MF_LINES;
	if (inlined)
		*f |= MF_INLINE;
	if ((l->flags & PDA_LOC_DSO_OFFSET) && l->address >= pp->limits[l->mapping])
		pp->limits[l->mapping] = l->address + 1;
}

/* The Location message of run (leaf first), with id. */
static void put_location(struct pprof *pp, uint32_t id, const uint32_t *locs,
			 uint32_t nr)
{
	const struct pda_profile_loc *outer = pda_profile_loc(pp->p, locs[nr - 1]);

	pb_uint(&pp->sub, LOCATION_ID, id);
	pb_uint(&pp->sub, LOCATION_MAPPING_ID, outer->mapping);
	pb_uint(&pp->sub, LOCATION_ADDRESS, outer->address);
	for (uint32_t i = 0; i < nr; i++) {
		const struct pda_profile_loc *l = pda_profile_loc(pp->p, locs[i]);

		note_mapping(pp, l, nr > 1);
		if (!l->func)
			continue;
		pb_uint(&pp->line, LINE_FUNCTION_ID, l->func);
		pb_uint(&pp->line, LINE_LINE, l->line);
		pb_sub(&pp->sub, LOCATION_LINE, &pp->line);
	}
	pb_sub(&pp->locs_msg, PROFILE_LOCATION, &pp->sub);
}

/* The pprof location of run locs[0 .. nr) (leaf first), made when new. */
static int run_id(struct pprof *pp, const uint32_t *locs, uint32_t nr,
		  uint32_t *id)
{
	const struct run_key k = {locs, nr};
	const uint64_t h = pdc_hash_bytes(locs, nr * sizeof(*locs));
	struct pdc_hash_slot *slot;
	struct run *r;

	if (pdc_hash_reserve(pp->a, &pp->runs) < 0)
		return PD_ERR_NOMEM;
	slot = pdc_hash_probe(&pp->runs, h, run_eq, &k);
	if (slot->item) {
		*id = ((const struct run *)slot->item)->id;
		return 0;
	}
	r = pdc_arena_alloc(&pp->arena, pp->a, sizeof(*r) + nr * sizeof(*locs));
	if (!r)
		return PD_ERR_NOMEM;
	r->id = ++pp->nr_runs;
	r->nr = nr;
	memcpy(r->locs, locs, nr * sizeof(*locs));
	pdc_hash_fill(&pp->runs, slot, h, r);
	put_location(pp, r->id, locs, nr);
	*id = r->id;
	return pp->locs_msg.oom ? PD_ERR_NOMEM : 0;
}

/*
 * The Sample message of row into msg: its stack (root first in stack[])
 * as pprof locations leaf first, each run of inlined frames with the
 * frame they were inlined into as one.
 */
static int put_sample(struct pprof *pp, struct pb *msg,
		      const struct pda_profile_sample *row, uint32_t *stack,
		      uint32_t *leaf_first, struct pb *ids)
{
	const size_t nr = pda_profile_stack_locs(pp->p, row->stack, stack);
	const unsigned cols = pda_profile_nr_columns(pp->p);
	size_t n = 0;

	for (size_t i = nr; i-- > 0;)
		leaf_first[n++] = stack[i];
	for (size_t i = 0; i < n;) {
		size_t j = i;
		uint32_t id;
		int rc;

		/* the inlined frames, then the one they are inlined into */
		while (j + 1 < n &&
		       (pda_profile_loc(pp->p, leaf_first[j])->flags &
			PDA_LOC_INLINED))
			j++;
		rc = run_id(pp, &leaf_first[i], (uint32_t)(j - i + 1), &id);
		if (rc < 0)
			return rc;
		pb_varint(ids, id);
		i = j + 1;
	}
	pb_bytes(msg, SAMPLE_LOCATION_ID, ids->p, ids->len);
	msg->oom |= ids->oom;
	ids->len = 0;
	for (unsigned c = 0; c < cols; c++)
		pb_varint(ids, int64_of(row->values[c]));
	pb_bytes(msg, SAMPLE_VALUE, ids->p, ids->len);
	msg->oom |= ids->oom;
	ids->len = 0;
	return 0;
}

/* ValueType of column c: "EVENT_samples"/"count", "EVENT_period" and
 * the period's unit: nanoseconds for the clock events, else "count". */
static void put_value_type(struct pprof *pp, struct extra_strs *x,
			   struct pb *dst, unsigned field, unsigned c)
{
	const struct pda_profile_column *col = pda_profile_column(pp->p, c);
	const char *ev = pda_profile_str(pp->p, col->event, NULL);
	const char *unit = pda_profile_str(pp->p, col->unit, NULL);
	const bool period = strcmp(unit, "period") == 0;
	const bool clock = strncmp(ev, "cpu-clock", 9) == 0 ||
			   strncmp(ev, "task-clock", 10) == 0;
	char name[256];

	snprintf(name, sizeof(name), "%s_%s", *ev ? ev : "event", unit);
	pb_uint(&pp->sub, VALUE_TYPE_TYPE, extra_add(x, name, NULL));
	pb_uint(&pp->sub, VALUE_TYPE_UNIT,
		extra_add(x, period && clock ? "nanoseconds" : "count", NULL));
	pb_sub(dst, field, &pp->sub);
}

static void put_mappings(struct pprof *pp, struct extra_strs *x,
			 struct pb *out)
{
	const struct pde_pprof_opts *o = pp->o;

	for (uint32_t id = 1; id < pda_profile_nr_mappings(pp->p); id++) {
		const struct pda_profile_mapping *m = pda_profile_mapping(pp->p, id);
		const unsigned f = pp->map_flags[id];
		const char *bid = id < o->nr_build_ids ? o->build_ids[id] : NULL;

		pb_uint(&pp->sub, MAPPING_ID, id);
		/* file offsets as addresses: start 0, offset 0 */
		pb_uint(&pp->sub, MAPPING_MEMORY_LIMIT, pp->limits[id]);
		pb_uint(&pp->sub, MAPPING_FILENAME, m->name);
		if (bid && *bid)
			pb_uint(&pp->sub, MAPPING_BUILD_ID, extra_add(x, bid, NULL));
		pb_uint(&pp->sub, MAPPING_HAS_FUNCTIONS,
			(f & MF_FUNCS) && !(f & MF_NO_FUNC));
		pb_uint(&pp->sub, MAPPING_HAS_FILENAMES, !!(f & MF_FILES));
		pb_uint(&pp->sub, MAPPING_HAS_LINE_NUMBERS, !!(f & MF_LINES));
		pb_uint(&pp->sub, MAPPING_HAS_INLINE_FRAMES,
			!!(f & MF_INLINE) || o->inline_frames);
		pb_sub(out, PROFILE_MAPPING, &pp->sub);
	}
}

static void put_functions(struct pprof *pp, struct pb *out)
{
	for (uint32_t id = 1; id < pda_profile_nr_funcs(pp->p); id++) {
		const struct pda_profile_func *f = pda_profile_func(pp->p, id);

		pb_uint(&pp->sub, FUNCTION_ID, id);
		pb_uint(&pp->sub, FUNCTION_NAME, f->name);
		pb_uint(&pp->sub, FUNCTION_SYSTEM_NAME, f->name);
		pb_uint(&pp->sub, FUNCTION_FILENAME, f->file);
		pb_sub(out, PROFILE_FUNCTION, &pp->sub);
	}
}

static void put_strings(struct pprof *pp, const struct extra_strs *x,
			struct pb *out)
{
	for (uint32_t id = 0; id < pda_profile_nr_strs(pp->p); id++) {
		size_t len;
		const char *s = pda_profile_str(pp->p, id, &len);

		pb_bytes(out, PROFILE_STRING_TABLE, s, len);
	}
	for (size_t i = 0; i < x->nr; i++)
		pb_bytes(out, PROFILE_STRING_TABLE, x->s[i], strlen(x->s[i]));
}

/* The samples into out, the locations into pp->locs_msg. */
static int put_samples(struct pprof *pp, struct pb *out)
{
	size_t depth = 1;
	uint32_t *stack, *leaf_first;
	struct pb ids = {.a = pp->a};
	int rc = 0;

	for (size_t i = 0; i < pda_profile_nr_samples(pp->p); i++) {
		const struct pda_profile_stack *s =
			pda_profile_stack(pp->p, pda_profile_sample(pp->p, i)->stack);

		if (s && s->depth > depth)
			depth = s->depth;
	}
	stack = pdc_malloc(pp->a, 2 * depth * sizeof(*stack));
	if (!stack)
		return PD_ERR_NOMEM;
	leaf_first = stack + depth;
	for (size_t i = 0; rc == 0 && i < pda_profile_nr_samples(pp->p); i++) {
		struct pb msg = {.a = pp->a};

		rc = put_sample(pp, &msg, pda_profile_sample(pp->p, i), stack,
				leaf_first, &ids);
		if (rc == 0) {
			pb_sub(out, PROFILE_SAMPLE, &msg);
			if (out->oom)
				rc = PD_ERR_NOMEM;
		}
		pdc_free(pp->a, msg.p);
	}
	pdc_free(pp->a, ids.p);
	pdc_free(pp->a, stack);
	return rc;
}

int pde_pprof(FILE *out, const struct pda_profile *p,
	      const struct pde_pprof_opts *o)
{
	static const struct pde_pprof_opts none;
	const struct pd_alloc *a;
	const size_t nr_maps = pda_profile_nr_mappings(p);
	const unsigned cols = pda_profile_nr_columns(p);
	struct pprof pp = {.p = p};
	struct extra_strs x = {0};
	struct pb msg = {0}, samples = {0};
	int rc = PD_ERR_NOMEM;

	if (!o)
		o = &none;
	a = o->alloc;
	pp.o = o;
	pp.a = a;
	pp.locs_msg.a = pp.sub.a = pp.line.a = msg.a = samples.a = a;
	x.a = a;
	x.base = (uint32_t)pda_profile_nr_strs(p);
	pp.limits = pdc_zalloc(a, nr_maps * sizeof(*pp.limits));
	pp.map_flags = pdc_zalloc(a, nr_maps);
	if (!pp.limits || !pp.map_flags)
		goto out;
	rc = put_samples(&pp, &samples);
	if (rc < 0)
		goto out;
	for (unsigned c = 0; c < cols; c++)
		put_value_type(&pp, &x, &msg, PROFILE_SAMPLE_TYPE, c);
	pb_raw(&msg, samples.p, samples.len);
	put_mappings(&pp, &x, &msg);
	pb_raw(&msg, pp.locs_msg.p, pp.locs_msg.len);
	put_functions(&pp, &msg);
	pb_uint(&msg, PROFILE_DURATION_NANOS, int64_of(o->duration_nanos));
	if (o->period_type_column < cols) {
		put_value_type(&pp, &x, &msg, PROFILE_PERIOD_TYPE,
			       o->period_type_column);
		/* default_sample_type: the same column's type string,
		 * the one put_value_type() just added */
		pb_uint(&msg, PROFILE_DEFAULT_SAMPLE_TYPE, x.base + x.nr - 2);
	}
	for (size_t i = 0; i < o->nr_comments; i++)
		pb_uint(&msg, PROFILE_COMMENT, extra_add(&x, o->comments[i], NULL));
	/* the string table last: every id above is known by now */
	put_strings(&pp, &x, &msg);
	rc = msg.oom || x.oom || pp.sub.oom || pp.line.oom || pp.locs_msg.oom
		     ? PD_ERR_NOMEM
		     : 0;
	if (rc == 0 && msg.len && fwrite(msg.p, 1, msg.len, out) != msg.len)
		rc = PD_ERR_IO;
	if (rc == 0 && ferror(out))
		rc = PD_ERR_IO;
out:
	pdc_hash_release(a, &pp.runs);
	pdc_arena_release(&pp.arena, a);
	pdc_free(a, pp.locs_msg.p);
	pdc_free(a, pp.sub.p);
	pdc_free(a, pp.line.p);
	pdc_free(a, pp.limits);
	pdc_free(a, pp.map_flags);
	pdc_free(a, msg.p);
	pdc_free(a, samples.p);
	extra_free(&x);
	return rc;
}
