/*
 * pd_feature.c - access to the raw feature sections, and the one section
 * the file itself depends on: HEADER_EVENT_DESC, which names the events.
 * The decoding of every section into struct pd_env is in pd_env.c.
 * format.md §4.
 */
#include "pd_int.h"

#include <stdio.h>

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

/*
 * Tracepoint events still under their default name (no EVENT_DESC, as a
 * pipe-mode capture of perf 4.9 has none) named "system:name" from the
 * tracing data's formats, as perf's evsel__tp_format names them.
 * Damaged tracing data names what it holds before the damage.  @return 0
 * or PD_ERR_NOMEM.
 */
int pd_file_name_tracepoints(struct pd_file *f)
{
	const struct pd_feat_sec *sec = &f->feat[PD_FEAT_TRACING_DATA];
	char def[32], name[256];
	struct pd_tracing *t = NULL;
	bool unnamed = false;
	int rc = 0;

	if (!sec->data)
		return 0;
	for (size_t i = 0; i < f->nr_evsels && !unnamed; i++) {
		if (f->evsels[i]->attr.type != 2 /* PERF_TYPE_TRACEPOINT */)
			continue;
		pd_attr_default_name(&f->evsels[i]->attr, def, sizeof(def));
		unnamed = strcmp(f->evsels[i]->name, def) == 0;
	}
	if (!unnamed)
		return 0;
	if (pd_tracing_parse(sec->data, sec->size, &f->mem.hooks, &t, NULL,
			     0) == PD_ERR_NOMEM)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i < f->nr_evsels && rc == 0; i++) {
		struct pd_evsel *e = f->evsels[i];
		const struct pd_tp_format *fmt;
		int n;

		if (e->attr.type != 2)
			continue;
		pd_attr_default_name(&e->attr, def, sizeof(def));
		fmt = pd_tracing_format(t, e->attr.config);
		if (!fmt || strcmp(e->name, def) != 0)
			continue;
		n = snprintf(name, sizeof(name), "%s:%s", fmt->system,
			     fmt->name);
		if (n > 0 && (size_t)n < sizeof(name))
			rc = pd_evsel_set_name(f, e, name, (size_t)n);
	}
	pd_tracing_free(t);
	return rc;
}
