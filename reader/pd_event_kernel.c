/*
 * pd_event_kernel.c - the kernel's records (PERF_RECORD_MMAP ..
 * CALLCHAIN_DEFERRED), as include/uapi/linux/perf_event.h lays them out.
 * The cursor ends where the sample_id_all trailer begins, so a string
 * that fills the rest of a record (comm, filename, name, path) never
 * takes the trailer's bytes.  format.md §6 and §6.2 (the trailer).
 */
#include "pd_event_int.h"

#define NEED PD_EV_NEED

static int pid_tid(struct pd_evcur *c, uint32_t *pid, uint32_t *tid)
{
	NEED(c, evc_u32(c, pid), "pid");
	NEED(c, evc_u32(c, tid), "tid");
	return 0;
}

/* u32 pid, tid; u64 start, len, pgoff: the head of MMAP and MMAP2 */
static int map_head(struct pd_evcur *c, uint32_t *pid, uint32_t *tid,
		    uint64_t *start, uint64_t *len, uint64_t *pgoff)
{
	PD_TRY(pid_tid(c, pid, tid));
	NEED(c, evc_u64(c, start), "start");
	NEED(c, evc_u64(c, len), "len");
	NEED(c, evc_u64(c, pgoff), "pgoff");
	return 0;
}

static int mmap2(struct pd_evcur *c, uint16_t misc, struct pd_ev_mmap2 *m)
{
	PD_TRY(map_head(c, &m->pid, &m->tid, &m->start, &m->len, &m->pgoff));
	if (misc & PD_MISC_MMAP_BUILD_ID) {
		/* u8 build_id_size, u8 + u16 reserved, u8 build_id[20] */
		m->has_build_id = 1;
		NEED(c, evc_u8(c, &m->build_id_size), "build_id_size");
		NEED(c, evc_skip(c, 3), "build_id");
		NEED(c, evc_take(c, 20, &m->build_id), "build_id");
		if (m->build_id_size > 20)
			m->build_id_size = 20;
	} else {
		NEED(c, evc_u32(c, &m->maj), "maj");
		NEED(c, evc_u32(c, &m->min), "min");
		NEED(c, evc_u64(c, &m->ino), "ino");
		NEED(c, evc_u64(c, &m->ino_generation), "ino_generation");
	}
	NEED(c, evc_u32(c, &m->prot), "prot");
	NEED(c, evc_u32(c, &m->flags), "flags");
	evc_str(c, evc_left(c), &m->filename);
	return 0;
}

/*
 * READ carries struct read_format as the event's attr.read_format
 * shapes it (the kernel's perf_output_read), the same as a SAMPLE's.
 */
static int read_values(struct pd_evcur *c, const struct pd_evsel *e,
		       struct pd_ev_read *r)
{
	uint64_t rf, entry;

	PD_TRY(pid_tid(c, &r->pid, &r->tid));
	if (!e)
		return PD_CORRUPT(c->f,
				  "READ at offset 0x%llx: no event with its id",
				  (unsigned long long)c->rec->offset);
	rf = e->attr.read_format;
	entry = 8 + (rf & PD_FORMAT_ID ? 8 : 0) + (rf & PD_FORMAT_LOST ? 8 : 0);
	r->read_format = rf;
	r->swap = c->cur.swap;
	if (rf & PD_FORMAT_GROUP) {
		NEED(c, evc_u64(c, &r->nr), "read nr");
		if (rf & PD_FORMAT_TOTAL_TIME_ENABLED)
			NEED(c, evc_u64(c, &r->time_enabled), "time_enabled");
		if (rf & PD_FORMAT_TOTAL_TIME_RUNNING)
			NEED(c, evc_u64(c, &r->time_running), "time_running");
		NEED(c, evc_array(c, r->nr, entry, &r->raw), "values");
		return 0;
	}
	r->nr = 1;
	NEED(c, evc_take(c, 8, &r->raw), "value");
	if (rf & PD_FORMAT_TOTAL_TIME_ENABLED)
		NEED(c, evc_u64(c, &r->time_enabled), "time_enabled");
	if (rf & PD_FORMAT_TOTAL_TIME_RUNNING)
		NEED(c, evc_u64(c, &r->time_running), "time_running");
	NEED(c, evc_skip(c, entry - 8), rf & PD_FORMAT_ID ? "id" : "lost");
	return 0;
}

static int text_poke(struct pd_evcur *c, struct pd_ev_text_poke *t)
{
	NEED(c, evc_u64(c, &t->addr), "addr");
	NEED(c, evc_u16(c, &t->old_len), "old_len");
	NEED(c, evc_u16(c, &t->new_len), "new_len");
	NEED(c, evc_take(c, t->old_len, &t->old_bytes), "bytes");
	NEED(c, evc_take(c, t->new_len, &t->new_bytes), "bytes");
	return 0;
}

int pd_ev_decode_kernel(struct pd_evcur *c, struct pd_event *ev)
{
	switch (ev->type) {
	case PD_REC_MMAP: {
		struct pd_ev_mmap *m = &ev->mmap;

		PD_TRY(map_head(c, &m->pid, &m->tid, &m->start, &m->len,
				&m->pgoff));
		evc_str(c, evc_left(c), &m->filename);
		return 0;
	}
	case PD_REC_LOST:
		NEED(c, evc_u64(c, &ev->lost.id), "id");
		NEED(c, evc_u64(c, &ev->lost.lost), "lost");
		return 0;
	case PD_REC_COMM:
		PD_TRY(pid_tid(c, &ev->comm.pid, &ev->comm.tid));
		evc_str(c, evc_left(c), &ev->comm.comm);
		return 0;
	case PD_REC_EXIT:
	case PD_REC_FORK: {
		struct pd_ev_fork *fk = &ev->fork;

		NEED(c, evc_u32(c, &fk->pid), "pid");
		NEED(c, evc_u32(c, &fk->ppid), "ppid");
		NEED(c, evc_u32(c, &fk->tid), "tid");
		NEED(c, evc_u32(c, &fk->ptid), "ptid");
		NEED(c, evc_u64(c, &fk->time), "time");
		return 0;
	}
	case PD_REC_THROTTLE:
	case PD_REC_UNTHROTTLE:
		NEED(c, evc_u64(c, &ev->throttle.time), "time");
		NEED(c, evc_u64(c, &ev->throttle.id), "id");
		NEED(c, evc_u64(c, &ev->throttle.stream_id), "stream_id");
		return 0;
	case PD_REC_READ:
		return read_values(c, ev->sample_id.evsel, &ev->read);
	case PD_REC_MMAP2:
		return mmap2(c, ev->misc, &ev->mmap2);
	case PD_REC_AUX:
		NEED(c, evc_u64(c, &ev->aux.aux_offset), "aux_offset");
		NEED(c, evc_u64(c, &ev->aux.aux_size), "aux_size");
		NEED(c, evc_u64(c, &ev->aux.flags), "flags");
		return 0;
	case PD_REC_ITRACE_START:
		return pid_tid(c, &ev->itrace_start.pid, &ev->itrace_start.tid);
	case PD_REC_LOST_SAMPLES:
		NEED(c, evc_u64(c, &ev->lost_samples.lost), "lost");
		return 0;
	case PD_REC_SWITCH:
		return 0;
	case PD_REC_SWITCH_CPU_WIDE:
		NEED(c, evc_u32(c, &ev->context_switch.next_prev_pid),
		     "next_prev_pid");
		NEED(c, evc_u32(c, &ev->context_switch.next_prev_tid),
		     "next_prev_tid");
		return 0;
	case PD_REC_NAMESPACES: {
		struct pd_ev_namespaces *ns = &ev->namespaces;

		PD_TRY(pid_tid(c, &ns->pid, &ns->tid));
		NEED(c, evc_u64(c, &ns->nr_namespaces), "nr_namespaces");
		/* struct perf_ns_link_info: u64 dev, ino */
		NEED(c, ns->nr_namespaces <= evc_left(c) / 16, "link_info");
		NEED(c, evc_u64s(c, ns->nr_namespaces * 2, &ns->link_info),
		     "link_info");
		return 0;
	}
	case PD_REC_KSYMBOL: {
		struct pd_ev_ksymbol *k = &ev->ksymbol;

		NEED(c, evc_u64(c, &k->addr), "addr");
		NEED(c, evc_u32(c, &k->len), "len");
		NEED(c, evc_u16(c, &k->ksym_type), "ksym_type");
		NEED(c, evc_u16(c, &k->flags), "flags");
		evc_str(c, evc_left(c), &k->name);
		return 0;
	}
	case PD_REC_BPF_EVENT: {
		struct pd_ev_bpf_event *b = &ev->bpf_event;

		NEED(c, evc_u16(c, &b->type), "type");
		NEED(c, evc_u16(c, &b->flags), "flags");
		NEED(c, evc_u32(c, &b->id), "id");
		NEED(c, evc_take(c, 8, &b->tag), "tag");
		return 0;
	}
	case PD_REC_CGROUP:
		NEED(c, evc_u64(c, &ev->cgroup.id), "id");
		evc_str(c, evc_left(c), &ev->cgroup.path);
		return 0;
	case PD_REC_TEXT_POKE:
		return text_poke(c, &ev->text_poke);
	case PD_REC_AUX_OUTPUT_HW_ID:
		NEED(c, evc_u64(c, &ev->aux_output_hw_id.hw_id), "hw_id");
		return 0;
	case PD_REC_CALLCHAIN_DEFERRED: {
		struct pd_ev_callchain_deferred *d = &ev->callchain_deferred;
		uint64_t nr;

		NEED(c, evc_u64(c, &d->cookie), "cookie");
		NEED(c, evc_u64(c, &nr), "nr");
		NEED(c, evc_u64s(c, nr, &d->ips), "ips");
		return 0;
	}
	default:
		return PD_EVENT_UNKNOWN;
	}
}
