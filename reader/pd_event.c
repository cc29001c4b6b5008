/*
 * pd_event.c - typed decoding of the records other than SAMPLE: the
 * dispatch between kernel and perf records, the sample_id_all trailer
 * that bounds a kernel record's body, CPU maps, and the accessors of
 * arrays inside records.  format.md §6.
 */
#include "pd_event_int.h"

#define BPF_METADATA_ENTRY 320 /* char key[64], value[256] */
#define THREAD_MAP_ENTRY 24    /* u64 pid, char comm[16] */
#define ID_INDEX_ENTRY 32      /* id, idx, cpu, tid */
#define ID_INDEX_ENTRY2 16     /* machine_pid, vcpu */

int pd_ev_short(const struct pd_evcur *c, const char *field)
{
	const char *name = pd_rec_type_name(c->rec->type);

	return PD_CORRUPT(c->f,
			  "%s at offset 0x%llx: %u bytes end before its %s "
			  "field",
			  name ? name : "record",
			  (unsigned long long)c->rec->offset, c->rec->size,
			  field);
}

/*
 * The size of the sample_id_all trailer when the record's event cannot
 * be told (several events, an id that matches none): every event's, if
 * they agree; else 0, and the body runs to the end of the record.
 */
static size_t common_trailer(const struct pd_file *f)
{
	size_t size = 0;

	for (size_t i = 0; i < f->nr_evsels; i++) {
		if (i == 0)
			size = f->evsels[i]->id_hdr_size;
		else if (f->evsels[i]->id_hdr_size != size)
			return 0;
	}
	return size;
}

int pd_event_decode(struct pd_file *f, const struct pd_rec *rec,
		    struct pd_event *ev)
{
	struct pd_evcur c;
	size_t trailer;

	memset(ev, 0, sizeof(*ev));
	ev->type = rec->type;
	ev->misc = rec->misc;
	if (rec->type == PD_REC_SAMPLE)
		return pd_set_err(f, PD_ERR_API,
				  "record at offset 0x%llx is a SAMPLE: use "
				  "pd_sample_decode()",
				  (unsigned long long)rec->offset);
	if (rec->size < 8 || !rec->data)
		return PD_CORRUPT(f,
				  "record at offset 0x%llx: size %u < header "
				  "size 8",
				  (unsigned long long)rec->offset, rec->size);
	if (!pd_rec_type_name(rec->type))
		return PD_EVENT_UNKNOWN;
	c.f = f;
	c.rec = rec;
	pdc_cur_init(&c.cur, rec->data + 8, rec->size - 8, f->swap);
	if (rec->type >= PD_REC_USER_TYPE_START)
		return pd_ev_decode_user(&c, ev);

	PD_TRY(pd_rec_sample_id(f, rec, &ev->sample_id));
	trailer = ev->sample_id.evsel ? ev->sample_id.evsel->id_hdr_size
				      : common_trailer(f);
	/* the body (strings above all) ends where the trailer begins */
	if (trailer > (size_t)(c.cur.end - c.cur.p))
		return PD_CORRUPT(f,
				  "%s at offset 0x%llx: %u bytes, too short "
				  "for its %zu-byte sample_id trailer",
				  pd_rec_type_name(rec->type),
				  (unsigned long long)rec->offset, rec->size,
				  trailer);
	c.cur.end -= trailer;
	return pd_ev_decode_kernel(&c, ev);
}

/* ---- CPU maps ------------------------------------------------------- */

/*
 * struct perf_record_cpu_map_data (packed): u16 type, then
 *   CPUS:  u16 nr, u16 cpu[nr]
 *   MASK:  u16 nr, u16 long_size, [4 bytes pad when long_size is 8],
 *          nr words of long_size bytes
 *   RANGE: u8 any_cpu, u8 pad, u16 start_cpu, u16 end_cpu
 * perf before 6.0 wrote the same bytes through unpacked structs.
 */
/*
 * The count of a LOST or LOST_SAMPLES record, from its body alone: lost
 * accounting reads every record of a capture, and the count is at a
 * fixed place whatever the trailer holds.
 */
int pd_lost_decode(struct pd_file *f, const struct pd_rec *rec,
		   struct pd_ev_lost *out)
{
	const int swap = f->swap;
	const char *name = pd_rec_type_name(rec->type);

	out->id = out->lost = 0;
	if (rec->type != PD_REC_LOST && rec->type != PD_REC_LOST_SAMPLES)
		return pd_set_err(f, PD_ERR_API,
				  "record at offset 0x%llx is %s, not LOST or "
				  "LOST_SAMPLES",
				  (unsigned long long)rec->offset,
				  name ? name : "of an unknown type");
	/* LOST: u64 id, u64 lost; LOST_SAMPLES: u64 lost (perf_event.h) */
	if (rec->type == PD_REC_LOST) {
		if (rec->size < 24 || !rec->data)
			return PD_CORRUPT(f,
					  "LOST at offset 0x%llx: %u bytes end "
					  "before its lost field",
					  (unsigned long long)rec->offset,
					  rec->size);
		out->id = pd_load_u64(rec->data + 8, swap);
		out->lost = pd_load_u64(rec->data + 16, swap);
		return 0;
	}
	if (rec->size < 16 || !rec->data)
		return PD_CORRUPT(f,
				  "LOST_SAMPLES at offset 0x%llx: %u bytes end "
				  "before its lost field",
				  (unsigned long long)rec->offset, rec->size);
	out->lost = pd_load_u64(rec->data + 8, swap);
	return 0;
}

int pd_ev_cpu_map(struct pd_evcur *c, struct pd_cpu_map *m)
{
	memset(m, 0, sizeof(*m));
	m->swap = c->cur.swap;
	PD_EV_NEED(c, evc_u16(c, &m->type), "cpu map type");
	switch (m->type) {
	case PD_CPU_MAP_CPUS:
		PD_EV_NEED(c, evc_u16(c, &m->nr), "cpu map nr");
		PD_EV_NEED(c, evc_array(c, m->nr, 2, &m->raw), "cpu map cpu");
		return 0;
	case PD_CPU_MAP_MASK:
		PD_EV_NEED(c, evc_u16(c, &m->nr), "cpu map nr");
		PD_EV_NEED(c, evc_u16(c, &m->long_size), "cpu map long_size");
		if (m->long_size == 8)
			PD_EV_NEED(c, evc_skip(c, 4), "cpu map mask");
		else if (m->long_size != 4)
			return PD_CORRUPT(c->f,
					  "%s at offset 0x%llx: cpu mask word "
					  "size %u is neither 4 nor 8",
					  pd_rec_type_name(c->rec->type),
					  (unsigned long long)c->rec->offset,
					  m->long_size);
		PD_EV_NEED(c, evc_array(c, m->nr, m->long_size, &m->raw),
			   "cpu map mask");
		return 0;
	case PD_CPU_MAP_RANGE:
		PD_EV_NEED(c, evc_u8(c, &m->any_cpu), "cpu map any_cpu");
		/* a flag, however many bits the writer set */
		m->any_cpu = m->any_cpu != 0;
		PD_EV_NEED(c, evc_skip(c, 1), "cpu map start_cpu");
		PD_EV_NEED(c, evc_u16(c, &m->start_cpu), "cpu map start_cpu");
		PD_EV_NEED(c, evc_u16(c, &m->end_cpu), "cpu map end_cpu");
		return 0;
	default:
		return pd_set_err(
			c->f, PD_ERR_UNSUPPORTED,
			"%s at offset 0x%llx: unknown cpu map type %u",
			pd_rec_type_name(c->rec->type),
			(unsigned long long)c->rec->offset, m->type);
	}
}

int pd_cpu_map_next(const struct pd_cpu_map *m, uint64_t *pos, int *cpu)
{
	switch (m->type) {
	case PD_CPU_MAP_CPUS: {
		uint16_t v;

		if (*pos >= m->nr)
			return 0;
		v = pd_load_u16(m->raw + 2 * *pos, m->swap);
		*cpu = v == 0xffff ? -1 : v;
		(*pos)++;
		return 1;
	}
	case PD_CPU_MAP_MASK: {
		const unsigned bits = m->long_size * 8u;
		const uint64_t total = (uint64_t)m->nr * bits;

		while (*pos < total) {
			const uint64_t word = *pos / bits;
			const unsigned char *p = m->raw + word * m->long_size;
			uint64_t w = m->long_size == 8
					     ? pd_load_u64(p, m->swap)
					     : pd_load_u32(p, m->swap);

			w >>= *pos % bits;
			if (!w) {
				*pos = (word + 1) * bits;
				continue;
			}
			*pos += (uint64_t)__builtin_ctzll(w);
			*cpu = (int)*pos;
			(*pos)++;
			return 1;
		}
		return 0;
	}
	case PD_CPU_MAP_RANGE: {
		const uint64_t span =
			m->end_cpu >= m->start_cpu
				? (uint64_t)m->end_cpu - m->start_cpu + 1
				: 0;

		if (*pos >= span + (m->any_cpu ? 1 : 0))
			return 0;
		if (m->any_cpu && *pos == 0)
			*cpu = -1;
		else
			*cpu = (int)(m->start_cpu + *pos -
				     (m->any_cpu ? 1 : 0));
		(*pos)++;
		return 1;
	}
	default:
		return 0;
	}
}

/* ---- arrays inside records ----------------------------------------- */

void pd_ev_read_value(const struct pd_ev_read *r, uint64_t i,
		      struct pd_read_value *out)
{
	const uint64_t rf = r->read_format;
	const size_t entry =
		8 + (rf & PD_FORMAT_ID ? 8 : 0) + (rf & PD_FORMAT_LOST ? 8 : 0);
	const unsigned char *p;

	memset(out, 0, sizeof(*out));
	if (rf & PD_FORMAT_GROUP) {
		p = r->raw + i * entry;
		out->value = pd_load_u64(p, r->swap);
		p += 8;
	} else {
		/* value, [enabled], [running], [id], [lost] */
		out->value = pd_load_u64(r->raw, r->swap);
		p = r->raw + 8 + (rf & PD_FORMAT_TOTAL_TIME_ENABLED ? 8 : 0) +
		    (rf & PD_FORMAT_TOTAL_TIME_RUNNING ? 8 : 0);
	}
	if (rf & PD_FORMAT_ID) {
		out->id = pd_load_u64(p, r->swap);
		p += 8;
	}
	if (rf & PD_FORMAT_LOST)
		out->lost = pd_load_u64(p, r->swap);
}

void pd_ev_id_index_get(const struct pd_ev_id_index *x, uint64_t i,
			struct pd_id_index_entry *out)
{
	const unsigned char *p = x->entries + i * ID_INDEX_ENTRY;

	memset(out, 0, sizeof(*out));
	out->id = pd_load_u64(p, x->swap);
	out->idx = pd_load_u64(p + 8, x->swap);
	out->cpu = pd_load_u64(p + 16, x->swap);
	out->tid = pd_load_u64(p + 24, x->swap);
	if (x->has_vm) {
		p = x->entries2 + i * ID_INDEX_ENTRY2;
		out->has_vm = 1;
		out->machine_pid = pd_load_u64(p, x->swap);
		out->vcpu = pd_load_u64(p + 8, x->swap);
	}
}

void pd_ev_thread_map_get(const struct pd_ev_thread_map *m, uint64_t i,
			  uint64_t *pid, struct pd_str *comm)
{
	const unsigned char *p = m->entries + i * THREAD_MAP_ENTRY;

	*pid = pd_load_u64(p, m->swap);
	evc_str_at(p + 8, 16, comm);
}

void pd_ev_bpf_metadata_get(const struct pd_ev_bpf_metadata *m, uint64_t i,
			    struct pd_str *key, struct pd_str *value)
{
	const unsigned char *p = m->entries + i * BPF_METADATA_ENTRY;

	evc_str_at(p, 64, key);
	evc_str_at(p + 64, 256, value);
}
