/*
 * pd_feature.c - access to the raw feature sections, and the one section
 * the file itself depends on: HEADER_EVENT_DESC, which names the events.
 * The decoding of every section into struct pd_env is in pd_env.c.
 * format.md §4.
 */
#include "pd_int.h"

int pd_file_feature(const struct pd_file *f, unsigned feat, const void **data,
		    size_t *size)
{
	if (feat >= PD_FEAT_MAX || !f->feat[feat].data)
		return 0;
	if (data)
		*data = f->feat[feat].data;
	if (size)
		*size = f->feat[feat].size;
	return 1;
}

/*
 * format.md §4.12 HEADER_EVENT_DESC: u32 nr, u32 attr_size, then per
 * event: the attr, u32 nr_ids, a perf string (u32 len incl. padding, then
 * the bytes), nr_ids u64 ids.  A name is matched to its event by the
 * first id, else by position.  Damage stops the naming, with a warning;
 * the events keep their default names.  @return 0 or PD_ERR_NOMEM.
 */
int pd_file_apply_event_desc(struct pd_file *f)
{
	const struct pd_feat_sec *sec = &f->feat[PD_FEAT_EVENT_DESC];
	const unsigned char *p = sec->data, *end;
	uint32_t nr, attr_size;

	if (!p || sec->size < 8)
		return 0;
	end = p + sec->size; /* not before: NULL + 0 is undefined */
	nr = pd_load_u32(p, f->swap);
	attr_size = pd_load_u32(p + 4, f->swap);
	p += 8;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nr_ids, len;
		const char *name;
		struct pd_evsel *e = NULL;

		if ((size_t)(end - p) < (size_t)attr_size + 8)
			goto bad;
		p += attr_size;
		nr_ids = pd_load_u32(p, f->swap);
		len = pd_load_u32(p + 4, f->swap);
		p += 8;
		if ((size_t)(end - p) < len ||
		    (uint64_t)(end - p - len) / 8 < nr_ids)
			goto bad;
		name = (const char *)p;
		p += len;
		if (nr_ids) {
			const struct pd_evsel *ce = pd_file_evsel_by_id(
				f, pd_load_u64(p, f->swap));

			if (ce)
				e = f->evsels[ce->idx];
		}
		if (!e && i < f->nr_evsels && (nr_ids == 0 || f->nr_evsels == nr))
			e = f->evsels[i];
		p += (size_t)nr_ids * 8;
		if (e && len)
			PD_TRY(pd_evsel_set_name(f, e, name, len));
	}
	return 0;
bad:
	pd_logf(&f->log, PD_LOG_WARN,
		"%s: feature event_desc is damaged; some events keep default "
		"names",
		f->name);
	return 0;
}
