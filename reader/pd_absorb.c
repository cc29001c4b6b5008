/*
 * pd_absorb.c - perf's own records that change what the file is: events
 * announced in the stream (HEADER_ATTR, HEADER_EVENT_TYPE, EVENT_UPDATE)
 * and feature sections sent as HEADER_FEATURE records, as pipe mode
 * does.  format.md §5.
 */
#include "pd_int.h"

#define EVENT_UPDATE_UNIT 0
#define EVENT_UPDATE_SCALE 1
#define EVENT_UPDATE_NAME 2
#define EVENT_UPDATE_CPUS 3
/*
 * O5: the longest event name a record may set.  Each of the 65,536 events
 * a stream may announce could otherwise be renamed to 64 KiB (4 GiB in
 * all, from records zstd chunks inflate to); perf's names (cycles:u,
 * cpu/event=0x3c,umask=0x0/, sched:sched_switch) are tens of bytes.
 */
#define MAX_NAME 1024

static int absorb_attr(struct pd_file *f, const struct pd_rec *rec)
{
	struct pd_attr attr;
	size_t attr_len, nr_ids;
	uint64_t *ids;
	int rc;

	rc = pd_attr_decode(f, rec->data + 8, rec->size - 8, rec->offset + 8,
			    &attr, &attr_len);
	if (rc < 0)
		return rc;
	nr_ids = (rec->size - 8 - attr_len) / 8;
	ids = pd_malloc(&f->mem, (nr_ids + 1) * sizeof(*ids));
	if (!ids)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i < nr_ids; i++)
		ids[i] = pd_load_u64(rec->data + 8 + attr_len + i * 8, f->swap);
	rc = pd_file_add_evsel(f, &attr, ids, nr_ids, NULL);
	pd_free(&f->mem, ids);
	if (rc == 0)
		rc = pd_file_apply_event_desc(f);
	if (rc == 0)
		rc = pd_file_name_tracepoints(f);
	return rc;
}

/*
 * HEADER_TRACING_DATA: pipe mode's TRACING_DATA feature, its bytes after
 * the record (perf's) or inside it after a u32 size (simpleperf's, in a
 * file's data section; perf 6.1 refuses those).  The first one is kept,
 * as the section.
 */
static int absorb_tracing(struct pd_file *f, const struct pd_rec *rec)
{
	struct pd_feat_sec *sec = &f->feat[PD_FEAT_TRACING_DATA];
	const unsigned char *data = rec->payload;
	size_t size = (size_t)rec->payload_size;
	void *copy;

	if (!size && rec->size > 12) {
		size = pd_load_u32(rec->data + 8, f->swap);
		data = rec->data + 12;
		if (size > rec->size - 12)
			return 0;
	}
	if (sec->data || !data || !size)
		return 0;
	copy = pd_malloc(&f->mem, size);
	if (!copy)
		return PD_ERR_NOMEM;
	memcpy(copy, data, size);
	sec->owned = copy;
	sec->data = copy;
	sec->size = size;
	f->hdr.features[PD_FEAT_TRACING_DATA / 64] |=
		1ull << (PD_FEAT_TRACING_DATA % 64);
	pd_file_env_invalidate(f);
	return pd_file_name_tracepoints(f);
}

static int absorb_feature(struct pd_file *f, const struct pd_rec *rec)
{
	uint64_t feat;
	void *copy;

	if (rec->size < 16)
		return PD_CORRUPT(f,
				  "HEADER_FEATURE at offset 0x%llx: size %u < 16",
				  (unsigned long long)rec->offset, rec->size);
	feat = pd_load_u64(rec->data + 8, f->swap);
	/*
	 * perf closes its pipe-mode features with an empty record for its
	 * HEADER_LAST_FEATURE, whose number grows with each perf version.
	 * Only BRANCH_STACK and STAT are empty by design.
	 */
	if (rec->size == 16 && feat != PD_FEAT_BRANCH_STACK &&
	    feat != PD_FEAT_STAT)
		return 0;
	if (feat == 0 || feat >= PD_FEAT_MAX) {
		pd_logf(&f->log, PD_LOG_WARN,
			"%s: HEADER_FEATURE at offset 0x%llx: unknown feature "
			"%llu skipped",
			f->name, (unsigned long long)rec->offset,
			(unsigned long long)feat);
		return 0;
	}
	copy = pd_malloc(&f->mem, rec->size - 16);
	if (!copy)
		return PD_ERR_NOMEM;
	memcpy(copy, rec->data + 16, rec->size - 16);
	pd_free(&f->mem, f->feat[feat].owned);
	f->feat[feat].owned = copy;
	f->feat[feat].data = copy;
	f->feat[feat].size = rec->size - 16;
	f->hdr.features[feat / 64] |= 1ull << (feat % 64);
	pd_file_env_invalidate(f);
	if (feat == PD_FEAT_EVENT_DESC)
		return pd_file_apply_event_desc(f);
	return 0;
}

/* The name from byte `at` of rec to its NUL or end is at most MAX_NAME. */
static int check_name(struct pd_file *f, const struct pd_rec *rec,
		      uint32_t at)
{
	const size_t len = strnlen((const char *)rec->data + at,
				   rec->size - at);

	if (len <= MAX_NAME)
		return 0;
	return PD_CORRUPT(f,
			  "%s at offset 0x%llx: an event name of %zu bytes "
			  "(at most %u)",
			  pd_rec_type_name(rec->type),
			  (unsigned long long)rec->offset, len, MAX_NAME);
}

static int absorb_event_update(struct pd_file *f, const struct pd_rec *rec)
{
	const struct pd_evsel *e;
	uint64_t type, id;

	if (rec->size < 24)
		return PD_CORRUPT(f,
				  "EVENT_UPDATE at offset 0x%llx: size %u < 24",
				  (unsigned long long)rec->offset, rec->size);
	type = pd_load_u64(rec->data + 8, f->swap);
	id = pd_load_u64(rec->data + 16, f->swap);
	if (type != EVENT_UPDATE_NAME)
		return 0;
	e = pd_file_evsel_by_id(f, id);
	if (!e)
		return 0;
	PD_TRY(check_name(f, rec, 24));
	return pd_evsel_set_name(f, f->evsels[e->idx],
				 (const char *)rec->data + 24, rec->size - 24);
}

/* HEADER_EVENT_TYPE: u64 event_id (attr config), char name[64] */
static int absorb_event_type(struct pd_file *f, const struct pd_rec *rec)
{
	uint64_t config;

	if (rec->size < 16)
		return 0;
	config = pd_load_u64(rec->data + 8, f->swap);
	for (size_t i = 0; i < f->nr_evsels; i++) {
		struct pd_evsel *e = f->evsels[i];

		if (e->attr.type == 2 /* tracepoint */ &&
		    e->attr.config == config) {
			PD_TRY(check_name(f, rec, 16));
			return pd_evsel_set_name(f, e,
						 (const char *)rec->data + 16,
						 rec->size - 16);
		}
	}
	return 0;
}

int pd_rec_changes_events(uint32_t type)
{
	return type == PD_REC_HEADER_ATTR || type == PD_REC_HEADER_FEATURE ||
	       type == PD_REC_EVENT_UPDATE ||
	       type == PD_REC_HEADER_EVENT_TYPE ||
	       type == PD_REC_HEADER_TRACING_DATA;
}

int pd_file_absorb_rec(struct pd_file *f, const struct pd_rec *rec)
{
	/* the others change nothing: not even absorb_upto, which readers
	 * of parts of the file on threads of their own would race on */
	if (!pd_rec_changes_events(rec->type))
		return 0;
	/*
	 * A second reader over a memory-backed pipe capture passes the same
	 * records again; HEADER_ATTR must not add its events twice.  perf
	 * writes these records uncompressed, so their offsets are their own.
	 */
	if (!(rec->flags & PD_RECF_DECOMPRESSED)) {
		if (rec->offset < f->absorb_upto)
			return 0;
		f->absorb_upto = rec->offset + 1;
	}
	switch (rec->type) {
	case PD_REC_HEADER_ATTR:
		return absorb_attr(f, rec);
	case PD_REC_HEADER_FEATURE:
		return absorb_feature(f, rec);
	case PD_REC_EVENT_UPDATE:
		return absorb_event_update(f, rec);
	case PD_REC_HEADER_EVENT_TYPE:
		return absorb_event_type(f, rec);
	case PD_REC_HEADER_TRACING_DATA:
		return absorb_tracing(f, rec);
	default:
		return 0;
	}
}
