/*
 * pd_event_user.c - perf's own records (HEADER_ATTR .. BPF_METADATA), as
 * tools/lib/perf/include/perf/event.h lays them out, in every version
 * perf has written.  format.md §5 and §6.1 (payloads after a record).
 */
#include "pd_event_int.h"

#define NEED PD_EV_NEED

#define MAX_EVENT_NAME 64
#define MAX_AUXTRACE_ERROR_MSG 64
#define BUILD_ID_SIZE 20
#define BPF_METADATA_ENTRY 320

static int header_attr(struct pd_evcur *c, struct pd_ev_header_attr *a)
{
	size_t attr_len;

	PD_TRY(pd_attr_decode(c->f, c->cur.p, (size_t)evc_left(c),
			      c->rec->offset + 8, &a->attr, &attr_len));
	c->cur.p += attr_len;
	/* the ids fill the rest; perf ignores a ragged tail too */
	return evc_u64s(c, evc_left(c) / 8, &a->ids) ? 0 : pd_ev_short(c, "id");
}

/*
 * perf writes u32 size in a 12-byte record padded to 16 and the data
 * after it (the reader's payload); simpleperf writes the data inside.
 */
static int tracing_data(struct pd_evcur *c, struct pd_ev_tracing_data *t)
{
	const struct pd_rec *rec = c->rec;

	NEED(c, evc_u32(c, &t->size), "size");
	if (rec->payload) {
		t->data = rec->payload;
		t->data_size = rec->payload_size;
		return 0;
	}
	/* perf's form, with its payload out of reach (a hand-made rec) */
	if (rec->size == 12 || rec->size == 16)
		return 0;
	NEED(c, evc_take(c, t->size, &t->data), "data");
	t->data_size = t->size;
	return 0;
}

/* s32 pid; u8 build_id[20], u8 size, u8 + u16 reserved; filename */
static int build_id(struct pd_evcur *c, uint16_t misc, struct pd_ev_build_id *b)
{
	uint32_t pid;

	NEED(c, evc_u32(c, &pid), "pid");
	b->pid = (int32_t)pid;
	NEED(c, evc_take(c, 24, &b->build_id), "build_id");
	b->size = BUILD_ID_SIZE;
	if (misc & PD_MISC_BUILD_ID_SIZE)
		b->size = b->build_id[20] < BUILD_ID_SIZE ? b->build_id[20]
							  : BUILD_ID_SIZE;
	evc_str(c, evc_left(c), &b->filename);
	return 0;
}

/*
 * nr entries of {id, idx, cpu, tid}; perf >= 6.1 may follow them with nr
 * {machine_pid, vcpu}, present when the record has room for both.
 */
static int id_index(struct pd_evcur *c, struct pd_ev_id_index *x)
{
	NEED(c, evc_u64(c, &x->nr), "nr");
	x->swap = c->cur.swap;
	NEED(c, evc_array(c, x->nr, 32, &x->entries), "entries");
	if (x->nr && x->nr <= evc_left(c) / 16) {
		x->has_vm = 1;
		x->entries2 = c->cur.p;
		c->cur.p += x->nr * 16;
	}
	return 0;
}

/*
 * fmt 0: ip, then msg where time would be; fmt 1: ip, time, msg;
 * fmt 2: msg is the whole 64 bytes, then machine_pid, vcpu.  perf cuts
 * the record after the message's NUL unless it writes fmt 2 fields.
 */
static int auxtrace_error(struct pd_evcur *c, struct pd_ev_auxtrace_error *e)
{
	NEED(c, evc_u32(c, &e->type), "type");
	NEED(c, evc_u32(c, &e->code), "code");
	NEED(c, evc_u32(c, &e->cpu), "cpu");
	NEED(c, evc_u32(c, &e->pid), "pid");
	NEED(c, evc_u32(c, &e->tid), "tid");
	NEED(c, evc_u32(c, &e->fmt), "fmt");
	NEED(c, evc_u64(c, &e->ip), "ip");
	if (e->fmt >= 1) {
		e->has_time = 1;
		NEED(c, evc_u64(c, &e->time), "time");
	}
	if (e->fmt >= 2 && evc_left(c) >= MAX_AUXTRACE_ERROR_MSG + 8) {
		evc_str(c, MAX_AUXTRACE_ERROR_MSG, &e->msg);
		e->has_vm = 1;
		NEED(c, evc_u32(c, &e->machine_pid), "machine_pid");
		NEED(c, evc_u32(c, &e->vcpu), "vcpu");
		return 0;
	}
	evc_str(c, MAX_AUXTRACE_ERROR_MSG, &e->msg);
	return 0;
}

static int event_update(struct pd_evcur *c, struct pd_ev_event_update *u)
{
	uint64_t bits;

	NEED(c, evc_u64(c, &u->type), "type");
	NEED(c, evc_u64(c, &u->id), "id");
	switch (u->type) {
	case PD_EVENT_UPDATE_UNIT:
	case PD_EVENT_UPDATE_NAME:
		evc_str(c, evc_left(c), &u->str);
		return 0;
	case PD_EVENT_UPDATE_SCALE:
		/* a double, swapped as a u64 like every 8-byte field */
		NEED(c, evc_u64(c, &bits), "scale");
		memcpy(&u->scale, &bits, sizeof(u->scale));
		return 0;
	case PD_EVENT_UPDATE_CPUS:
		return pd_ev_cpu_map(c, &u->cpus);
	default:
		/* a newer kind: the header fields are all we know */
		return 0;
	}
}

/* the short form (perf < 5.11) ends after time_zero */
static int time_conv(struct pd_evcur *c, struct pd_ev_time_conv *t)
{
	NEED(c, evc_u64(c, &t->time_shift), "time_shift");
	NEED(c, evc_u64(c, &t->time_mult), "time_mult");
	NEED(c, evc_u64(c, &t->time_zero), "time_zero");
	if (evc_left(c) == 0)
		return 0;
	t->has_long = 1;
	NEED(c, evc_u64(c, &t->time_cycles), "time_cycles");
	NEED(c, evc_u64(c, &t->time_mask), "time_mask");
	NEED(c, evc_u8(c, &t->cap_user_time_zero), "cap_user_time_zero");
	NEED(c, evc_u8(c, &t->cap_user_time_short), "cap_user_time_short");
	return 0;
}

/*
 * char prog_name[BPF_PROG_NAME_LEN]; u64 nr_entries; entries.  perf sets
 * BPF_PROG_NAME_LEN to KSYM_NAME_LEN, which is 256 in libperf's header
 * and 512 where the kernel's kallsyms.h is seen first.  perf zeroes the
 * name before writing it, and no program name is 256 bytes long, so
 * bytes 256..511 all zero mean the 512-byte form: in the 256-byte form a
 * record with entries has its non-zero nr_entries there.
 */
static int bpf_metadata(struct pd_evcur *c, struct pd_ev_bpf_metadata *m)
{
	uint64_t name_len = 256;

	if (evc_left(c) >= 512 + 8) {
		name_len = 512;
		for (size_t i = 256; i < 512; i++)
			if (c->cur.p[i]) {
				name_len = 256;
				break;
			}
	}
	NEED(c, evc_left(c) >= name_len, "prog_name");
	evc_str(c, name_len, &m->prog_name);
	NEED(c, evc_u64(c, &m->nr_entries), "nr_entries");
	NEED(c, evc_array(c, m->nr_entries, BPF_METADATA_ENTRY, &m->entries),
	     "entries");
	/* perf writes the record to the byte; more is a cut 512 form */
	if (evc_left(c))
		return PD_CORRUPT(c->f,
				  "BPF_METADATA at offset 0x%llx: %llu bytes "
				  "after its %llu entries",
				  (unsigned long long)c->rec->offset,
				  (unsigned long long)evc_left(c),
				  (unsigned long long)m->nr_entries);
	return 0;
}

int pd_ev_decode_user(struct pd_evcur *c, struct pd_event *ev)
{
	switch (ev->type) {
	case PD_REC_HEADER_ATTR:
		return header_attr(c, &ev->attr);
	case PD_REC_HEADER_EVENT_TYPE:
		NEED(c, evc_u64(c, &ev->event_type.event_id), "event_id");
		evc_str(c, MAX_EVENT_NAME, &ev->event_type.name);
		return 0;
	case PD_REC_HEADER_TRACING_DATA:
		return tracing_data(c, &ev->tracing_data);
	case PD_REC_HEADER_BUILD_ID:
		return build_id(c, ev->misc, &ev->build_id);
	case PD_REC_FINISHED_ROUND:
	case PD_REC_FINISHED_INIT:
		return 0;
	case PD_REC_ID_INDEX:
		return id_index(c, &ev->id_index);
	case PD_REC_AUXTRACE_INFO: {
		struct pd_ev_auxtrace_info *a = &ev->auxtrace_info;

		NEED(c, evc_u32(c, &a->type), "type");
		NEED(c, evc_skip(c, 4), "priv");
		NEED(c, evc_u64s(c, evc_left(c) / 8, &a->priv), "priv");
		return 0;
	}
	case PD_REC_AUXTRACE: {
		struct pd_ev_auxtrace *a = &ev->auxtrace;

		NEED(c, evc_u64(c, &a->size), "size");
		NEED(c, evc_u64(c, &a->offset), "offset");
		NEED(c, evc_u64(c, &a->reference), "reference");
		NEED(c, evc_u32(c, &a->idx), "idx");
		NEED(c, evc_u32(c, &a->tid), "tid");
		NEED(c, evc_u32(c, &a->cpu), "cpu");
		a->data = c->rec->payload;
		a->data_size = c->rec->payload ? c->rec->payload_size : 0;
		return 0;
	}
	case PD_REC_AUXTRACE_ERROR:
		return auxtrace_error(c, &ev->auxtrace_error);
	case PD_REC_THREAD_MAP: {
		struct pd_ev_thread_map *m = &ev->thread_map;

		NEED(c, evc_u64(c, &m->nr), "nr");
		m->swap = c->cur.swap;
		NEED(c, evc_array(c, m->nr, 24, &m->entries), "entries");
		return 0;
	}
	case PD_REC_CPU_MAP:
		return pd_ev_cpu_map(c, &ev->cpu_map);
	case PD_REC_STAT_CONFIG: {
		struct pd_ev_stat_config *s = &ev->stat_config;

		NEED(c, evc_u64(c, &s->nr), "nr");
		NEED(c, s->nr <= evc_left(c) / 16, "data");
		NEED(c, evc_u64s(c, s->nr * 2, &s->data), "data");
		return 0;
	}
	case PD_REC_STAT: {
		struct pd_ev_stat *s = &ev->stat;

		NEED(c, evc_u64(c, &s->id), "id");
		NEED(c, evc_u32(c, &s->cpu), "cpu");
		NEED(c, evc_u32(c, &s->thread), "thread");
		NEED(c, evc_u64(c, &s->val), "val");
		NEED(c, evc_u64(c, &s->ena), "ena");
		NEED(c, evc_u64(c, &s->run), "run");
		return 0;
	}
	case PD_REC_STAT_ROUND:
		NEED(c, evc_u64(c, &ev->stat_round.type), "type");
		NEED(c, evc_u64(c, &ev->stat_round.time), "time");
		return 0;
	case PD_REC_EVENT_UPDATE:
		return event_update(c, &ev->event_update);
	case PD_REC_TIME_CONV:
		return time_conv(c, &ev->time_conv);
	case PD_REC_HEADER_FEATURE:
		NEED(c, evc_u64(c, &ev->feature.feat_id), "feat_id");
		ev->feature.data = c->cur.p;
		ev->feature.size = (size_t)evc_left(c);
		return 0;
	case PD_REC_COMPRESSED:
		ev->compressed.data = c->cur.p;
		ev->compressed.avail = (size_t)evc_left(c);
		ev->compressed.data_size = evc_left(c);
		return 0;
	case PD_REC_COMPRESSED2: {
		struct pd_ev_compressed *z = &ev->compressed;

		NEED(c, evc_u64(c, &z->data_size), "data_size");
		z->data = c->cur.p;
		z->avail = (size_t)evc_left(c);
		/* header.size counts the padding; data_size does not */
		NEED(c, z->data_size <= z->avail, "data");
		return 0;
	}
	case PD_REC_BPF_METADATA:
		return bpf_metadata(c, &ev->bpf_metadata);
	default:
		return PD_EVENT_UNKNOWN;
	}
}
