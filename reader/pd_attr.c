/*
 * pd_attr.c - perf_event_attr decoding at every size and in either byte
 * order, the event list, the id -> event table and perf's default names.
 * format.md §3 (attrs section) and §5.1 (HEADER_ATTR).
 */
#include "pd_int.h"

#include <stdio.h>

/* Offsets of perf_event_attr fields; each ABI version appends. */
#define ATTR_SIZE_VER0 64
#define ATTR_SIZE_KNOWN 136 /* up to config3 */
/*
 * O5: sample ids in all, whatever the events: HEADER_ATTR records (in a
 * pipe, or inflated from zstd chunks) each add an event with its ids,
 * and 65,536 events of 8,000 ids each would hold 4 GiB.  4M ids (32 MiB,
 * and a 128 MiB table) are far more than perf writes: one per event and
 * CPU, or per event and thread.
 */
#define MAX_IDS (1u << 22)
#define MAX_EVSELS (1u << 16)

/* pd_evsel exposes const views of memory the file owns */
static void *owned(const void *p)
{
	union {
		const void *c;
		void *m;
	} u = { p };

	return u.m;
}

static uint64_t rev_bits64(uint64_t v)
{
	uint64_t r = 0;

	for (int i = 0; i < 64; i++) {
		r = (r << 1) | (v & 1);
		v >>= 1;
	}
	return r;
}

/*
 * A big-endian compiler allocates the attr bitfield from the most
 * significant bit: field bit b sits at bit 63-b of the (byte-swapped)
 * word.  Reversing the word puts every one-bit flag back in place; the one
 * multi-bit field, precise_ip, comes out with its two bits reversed.
 */
static uint64_t attr_flags_from_be(uint64_t v)
{
	uint64_t r = rev_bits64(v);
	uint64_t pip = (r >> 15) & 3;

	pip = ((pip & 1) << 1) | (pip >> 1);
	return (r & ~(3ull << 15)) | (pip << 15);
}

int pd_attr_decode(struct pd_file *f, const unsigned char *p, size_t avail,
		   uint64_t off, struct pd_attr *attr, size_t *attr_size)
{
	const int sw = f->swap;
	unsigned char buf[ATTR_SIZE_KNOWN];
	uint32_t size;
	uint64_t flags;

	if (avail < 8)
		return PD_CORRUPT(f, "attr at offset 0x%llx: %zu bytes, need 8",
				  (unsigned long long)off, avail);
	size = pd_load_u32(p + 4, sw);
	if (size == 0)
		size = ATTR_SIZE_VER0; /* perf before 2.6.33 wrote 0 */
	if (size < ATTR_SIZE_VER0)
		return PD_CORRUPT(f, "attr at offset 0x%llx: size %u < %u",
				  (unsigned long long)off, size,
				  ATTR_SIZE_VER0);
	if (size > avail)
		return PD_CORRUPT(f,
				  "attr at offset 0x%llx: size %u exceeds the "
				  "%zu bytes available",
				  (unsigned long long)off, size, avail);
	/* A newer, larger attr is read up to what we know (R5). */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, p, size < sizeof(buf) ? size : sizeof(buf));

	memset(attr, 0, sizeof(*attr));
	attr->type = pd_load_u32(buf + 0, sw);
	attr->size = pd_load_u32(buf + 4, sw);
	attr->config = pd_load_u64(buf + 8, sw);
	attr->sample_period = pd_load_u64(buf + 16, sw);
	attr->sample_type = pd_load_u64(buf + 24, sw);
	attr->read_format = pd_load_u64(buf + 32, sw);
	flags = pd_load_u64(buf + 40, sw);
	if (f->hdr.big_endian)
		flags = attr_flags_from_be(flags);
	attr->flags = flags;
	attr->wakeup_events = pd_load_u32(buf + 48, sw);
	attr->bp_type = pd_load_u32(buf + 52, sw);
	attr->config1 = pd_load_u64(buf + 56, sw);
	attr->config2 = pd_load_u64(buf + 64, sw);
	attr->branch_sample_type = pd_load_u64(buf + 72, sw);
	attr->sample_regs_user = pd_load_u64(buf + 80, sw);
	attr->sample_stack_user = pd_load_u32(buf + 88, sw);
	attr->clockid = (int32_t)pd_load_u32(buf + 92, sw);
	attr->sample_regs_intr = pd_load_u64(buf + 96, sw);
	attr->aux_watermark = pd_load_u32(buf + 104, sw);
	attr->sample_max_stack = pd_load_u16(buf + 108, sw);
	attr->aux_sample_size = pd_load_u32(buf + 112, sw);
	attr->aux_action = pd_load_u32(buf + 116, sw);
	/* aux_start_paused, aux_pause, aux_resume: one-bit fields too */
	if (f->hdr.big_endian)
		attr->aux_action = (uint32_t)(rev_bits64(attr->aux_action) >> 32);
	attr->sig_data = pd_load_u64(buf + 120, sw);
	attr->config3 = pd_load_u64(buf + 128, sw);
	*attr_size = size;
	return 0;
}

/*
 * Where the id sits: a SAMPLE has it at u64 index id_pos from the start;
 * a sample_id_all trailer has it at is_pos u64s from the end.  Same rules
 * as the kernel's perf_event__id_header_size and perf's evsel__calc_id_pos.
 */
static void evsel_calc_layout(struct pd_evsel *e)
{
	const uint64_t st = e->attr.sample_type;
	int pos = 0;
	size_t trailer = 0;

	e->id_pos = -1;
	e->is_pos = -1;
	if (st & PD_SAMPLE_IDENTIFIER) {
		e->id_pos = 0;
	} else if (st & PD_SAMPLE_ID) {
		pos = (st & PD_SAMPLE_IP ? 1 : 0) + (st & PD_SAMPLE_TID ? 1 : 0) +
		      (st & PD_SAMPLE_TIME ? 1 : 0) +
		      (st & PD_SAMPLE_ADDR ? 1 : 0);
		e->id_pos = pos;
	}
	if (st & PD_SAMPLE_IDENTIFIER) {
		e->is_pos = 1;
	} else if (st & PD_SAMPLE_ID) {
		pos = 1 + (st & PD_SAMPLE_CPU ? 1 : 0) +
		      (st & PD_SAMPLE_STREAM_ID ? 1 : 0);
		e->is_pos = pos;
	}
	trailer += st & PD_SAMPLE_TID ? 8 : 0;
	trailer += st & PD_SAMPLE_TIME ? 8 : 0;
	trailer += st & PD_SAMPLE_ID ? 8 : 0;
	trailer += st & PD_SAMPLE_STREAM_ID ? 8 : 0;
	trailer += st & PD_SAMPLE_CPU ? 8 : 0;
	trailer += st & PD_SAMPLE_IDENTIFIER ? 8 : 0;
	e->id_hdr_size = PD_ATTR_HAS(&e->attr, sample_id_all) ? trailer : 0;
	/* format.md §8: IDENTIFIER to PERIOD, 8 bytes each */
	e->sample_head = 8 * (size_t)__builtin_popcountll(
				     st & (PD_SAMPLE_IDENTIFIER | PD_SAMPLE_IP |
					   PD_SAMPLE_TID | PD_SAMPLE_TIME |
					   PD_SAMPLE_ADDR | PD_SAMPLE_ID |
					   PD_SAMPLE_STREAM_ID | PD_SAMPLE_CPU |
					   PD_SAMPLE_PERIOD));
}

static uint64_t hash_id(uint64_t id)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdull;
	id ^= id >> 33;
	return id;
}

static void id_table_put(struct pd_file *f, uint64_t id, uint32_t evsel_idx);

/* Room for `more` ids without growing again (so inserting cannot fail). */
static int id_table_reserve(struct pd_file *f, size_t more)
{
	struct pd_id_slot *old = f->id_table;
	size_t old_cap = f->id_cap;
	size_t cap = old_cap ? old_cap : 64;

	while ((f->id_count + more) * 2 > cap)
		cap *= 2;
	if (cap == old_cap)
		return 0;

	f->id_table = pd_zalloc(&f->mem, cap * sizeof(*f->id_table));
	if (!f->id_table) {
		f->id_table = old;
		return PD_ERR_NOMEM;
	}
	f->id_cap = cap;
	f->id_count = 0;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].evsel)
			id_table_put(f, old[i].id, old[i].evsel - 1);
	pd_free(&f->mem, old);
	return 0;
}

/* Insert into a table with room reserved: never allocates. */
static void id_table_put(struct pd_file *f, uint64_t id, uint32_t evsel_idx)
{
	size_t i;

	i = hash_id(id) & (f->id_cap - 1);
	while (f->id_table[i].evsel) {
		if (f->id_table[i].id == id) {
			/* perf keeps the last; so do we */
			f->id_table[i].evsel = evsel_idx + 1;
			return;
		}
		i = (i + 1) & (f->id_cap - 1);
	}
	f->id_table[i].id = id;
	f->id_table[i].evsel = evsel_idx + 1;
	f->id_count++;
}

const struct pd_evsel *pd_file_evsel_by_id(const struct pd_file *f,
					   uint64_t id)
{
	size_t i;

	if (!f->id_cap)
		return NULL;
	i = hash_id(id) & (f->id_cap - 1);
	while (f->id_table[i].evsel) {
		if (f->id_table[i].id == id)
			return f->evsels[f->id_table[i].evsel - 1];
		i = (i + 1) & (f->id_cap - 1);
	}
	return NULL;
}

int pd_file_index_ids(struct pd_file *f, struct pd_evsel *evsel,
		      const uint64_t *ids, size_t nr_ids)
{
	uint64_t *all;
	size_t total;

	if (!nr_ids)
		return 0;
	if (nr_ids > MAX_IDS || f->nr_ids > MAX_IDS - nr_ids)
		return PD_CORRUPT(f,
				  "event '%s': more than %u sample ids in all "
				  "events",
				  evsel->name, MAX_IDS);
	total = evsel->nr_ids + nr_ids;
	/* O6: both allocations first, so a failure changes nothing */
	PD_TRY(id_table_reserve(f, nr_ids));
	all = pd_realloc(&f->mem, owned(evsel->ids), total * sizeof(*all));
	if (!all)
		return PD_ERR_NOMEM;
	memcpy(all + evsel->nr_ids, ids, nr_ids * sizeof(*all));
	evsel->ids = all;
	evsel->nr_ids = total;
	f->nr_ids += nr_ids;
	for (size_t i = 0; i < nr_ids; i++)
		id_table_put(f, ids[i], evsel->idx);
	return 0;
}

/*
 * The id positions every event shares, or -2 when they disagree, with e
 * (the last event added) taken in: one comparison per event, so adding
 * n events stays linear (a capture may hold tens of thousands).
 */
static void merge_common_layout(struct pd_file *f, const struct pd_evsel *e)
{
	if (f->nr_evsels == 1) {
		f->sample_id_pos = e->id_pos;
		f->trailer_is_pos = e->is_pos;
		return;
	}
	if (f->sample_id_pos != e->id_pos)
		f->sample_id_pos = -2;
	if (f->trailer_is_pos != e->is_pos)
		f->trailer_is_pos = -2;
}

int pd_file_add_evsel(struct pd_file *f, const struct pd_attr *attr,
		      const uint64_t *ids, size_t nr_ids,
		      struct pd_evsel **out)
{
	struct pd_evsel *e;
	char name[128];
	int rc;

	if (f->nr_evsels >= MAX_EVSELS)
		return PD_CORRUPT(f, "more than %u events", MAX_EVSELS);
	PD_TRY(PD_GROW(&f->mem, f->evsels, f->alloc_evsels, f->nr_evsels + 1,
		       MAX_EVSELS));
	e = pd_zalloc(&f->mem, sizeof(*e));
	if (!e)
		return PD_ERR_NOMEM;
	e->idx = (unsigned)f->nr_evsels;
	e->attr = *attr;
	pd_attr_default_name(attr, name, sizeof(name));
	e->name = pd_strndup(&f->mem, name, strlen(name));
	if (!e->name) {
		pd_free(&f->mem, e);
		return PD_ERR_NOMEM;
	}
	evsel_calc_layout(e);
	f->evsels[f->nr_evsels++] = e;
	rc = pd_file_index_ids(f, e, ids, nr_ids);
	if (rc < 0) {
		/* O6: the file is as it was before the call */
		f->nr_evsels--;
		pd_free(&f->mem, owned(e->name));
		pd_free(&f->mem, e);
		return rc;
	}
	merge_common_layout(f, e);
	if (out)
		*out = e;
	return 0;
}

int pd_file_add_synth_evsel(struct pd_file *f, const struct pd_attr *attr,
			    const char *name, uint64_t id,
			    const struct pd_evsel **out)
{
	struct pd_evsel *e;

	if (!f || !attr || !name || !*name || pd_file_evsel_by_id(f, id))
		return PD_ERR_API;
	PD_TRY(pd_file_add_evsel(f, attr, &id, 1, &e));
	e->synth = 1;
	/* a name that cannot be set leaves the default one: still valid */
	PD_TRY(pd_evsel_set_name(f, e, name, strlen(name)));
	if (out)
		*out = e;
	return 0;
}

int pd_evsel_set_name(struct pd_file *f, struct pd_evsel *evsel,
		      const char *name, size_t len)
{
	char *copy = pd_strndup(&f->mem, name, strnlen(name, len));

	if (!copy)
		return PD_ERR_NOMEM;
	pd_free(&f->mem, owned(evsel->name));
	evsel->name = copy;
	return 0;
}

void pd_file_release_evsels(struct pd_file *f)
{
	for (size_t i = 0; i < f->nr_evsels; i++) {
		pd_free(&f->mem, owned(f->evsels[i]->name));
		pd_free(&f->mem, owned(f->evsels[i]->ids));
		pd_free(&f->mem, f->evsels[i]);
	}
	pd_free(&f->mem, f->evsels);
	pd_free(&f->mem, f->id_table);
	f->evsels = NULL;
	f->id_table = NULL;
	f->nr_evsels = f->alloc_evsels = f->id_cap = f->id_count = 0;
	f->nr_ids = 0;
}

size_t pd_file_nr_evsels(const struct pd_file *f)
{
	return f->nr_evsels;
}

const struct pd_evsel *pd_file_evsel(const struct pd_file *f, size_t i)
{
	return i < f->nr_evsels ? f->evsels[i] : NULL;
}

/* ---- perf's default event names ------------------------------------ */

static const char *const hw_names[] = {
	"cycles",		   "instructions",
	"cache-references",	   "cache-misses",
	"branches",		   "branch-misses",
	"bus-cycles",		   "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};

static const char *const sw_names[] = {
	"cpu-clock",	    "task-clock",	"page-faults",
	"context-switches", "cpu-migrations",	"minor-faults",
	"major-faults",	    "alignment-faults", "emulation-faults",
	"dummy",	    "bpf-output",	"cgroup-switches",
};

static const char *const cache_names[] = {
	"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
};
static const char *const cache_ops[] = { "load", "store", "prefetch" };

/*
 * perf's evsel__add_modifiers: ":k/u/h" for the contexts counted when any
 * is excluded, "p" per precise_ip level, and H/G when host or guest is
 * excluded unlike the default.
 */
static void add_modifiers(const struct pd_attr *a, char *buf, size_t size)
{
	char mods[16];
	size_t n = 0;
	int guest_default = 0;

	if (PD_ATTR_HAS(a, exclude_kernel) || PD_ATTR_HAS(a, exclude_user) ||
	    PD_ATTR_HAS(a, exclude_hv)) {
		if (!PD_ATTR_HAS(a, exclude_kernel))
			mods[n++] = 'k';
		if (!PD_ATTR_HAS(a, exclude_user))
			mods[n++] = 'u';
		if (!PD_ATTR_HAS(a, exclude_hv))
			mods[n++] = 'h';
		guest_default = 1;
	}
	for (unsigned i = 0; i < PD_ATTR_PRECISE_IP(a) && i < 3; i++) {
		mods[n++] = 'p';
		guest_default = 1;
	}
	if (PD_ATTR_HAS(a, exclude_host) ||
	    (int)PD_ATTR_HAS(a, exclude_guest) == guest_default) {
		if (!PD_ATTR_HAS(a, exclude_host))
			mods[n++] = 'H';
		if (!PD_ATTR_HAS(a, exclude_guest))
			mods[n++] = 'G';
	}
	if (n) {
		size_t len = strlen(buf);

		mods[n] = '\0';
		snprintf(buf + len, size - len, ":%s", mods);
	}
}

int pd_attr_default_name(const struct pd_attr *attr, char *buf, size_t size)
{
	const uint64_t c = attr->config;

	switch (attr->type) {
	case 0: /* PERF_TYPE_HARDWARE */
		if ((c & 0xffffffffu) < sizeof(hw_names) / sizeof(hw_names[0]))
			snprintf(buf, size, "%s", hw_names[c & 0xffffffffu]);
		else
			snprintf(buf, size, "unknown-hardware");
		break;
	case 1: /* PERF_TYPE_SOFTWARE */
		if (c < sizeof(sw_names) / sizeof(sw_names[0]))
			snprintf(buf, size, "%s", sw_names[c]);
		else
			snprintf(buf, size, "unknown-software");
		break;
	case 2: /* PERF_TYPE_TRACEPOINT */
		snprintf(buf, size, "unknown tracepoint");
		break;
	case 3: { /* PERF_TYPE_HW_CACHE */
		unsigned type = c & 0xff, op = (c >> 8) & 0xff,
			 res = (c >> 16) & 0xff;

		if (type < 7 && op < 3 && res < 2)
			snprintf(buf, size, "%s-%s%s", cache_names[type],
				 cache_ops[op],
				 res ? "-misses" : "s");
		else
			snprintf(buf, size, "unknown-ext-hardware-cache-event");
		break;
	}
	case 4: /* PERF_TYPE_RAW */
		snprintf(buf, size, "raw 0x%llx", (unsigned long long)c);
		break;
	case 5: /* PERF_TYPE_BREAKPOINT */
		snprintf(buf, size, "mem:0x%llx", (unsigned long long)attr->config1);
		break;
	default:
		snprintf(buf, size, "unknown attr type: %u", attr->type);
		break;
	}
	add_modifiers(attr, buf, size);
	return 0;
}
