/*
 * pde_dump.c - `pdtool dump` output: one line per record, as text or as
 * one JSON object (the shared output contract), and the totals of
 * `--count`.
 *
 * Both formats come from the same field calls (pde_fields_int.h), as
 * `pdtool info`'s do.
 */
#include "pde_fields_int.h"

#include <inttypes.h>
#include <string.h>

/* ---- records -------------------------------------------------------- */

void pde_dump_init(struct pde_dump *d, FILE *out, bool json)
{
	pde_fields_init(&d->f, out, json);
}

static void begin_rec(struct pde_fields *d, const struct pd_rec *rec,
		      bool known)
{
	char unknown[32];
	const char *name = pde_rec_name(rec->type, unknown);

	if (!known) {
		snprintf(unknown, sizeof(unknown), "UNKNOWN_%" PRIu32,
			 rec->type);
		name = unknown;
	}
	pde_fields_begin_line(d);
	if (d->json) {
		pde_f_object(d, NULL);
		pde_f_cstr(d, "type", name);
		pde_f_u64(d, "offset", rec->offset);
		pde_f_u64(d, "size", rec->size);
	} else {
		/* text leads with them, unlabelled */
		fprintf(d->out, "0x%" PRIx64 " %" PRIu32 " %s", rec->offset,
			rec->size, name);
	}
	if (!known)
		return;
	if (d->json || rec->misc)
		pde_f_hex(d, "misc", rec->misc);
	if (rec->flags & PD_RECF_DECOMPRESSED)
		pde_f_bool(d, "decompressed", true);
}

static int end_rec(struct pde_fields *d)
{
	if (d->json)
		pde_f_close(d);
	return pde_fields_end_line(d);
}

static void sample_id(struct pde_fields *d, const struct pd_sample_id *s)
{
	if (!s->mask)
		return;
	pde_f_object(d, "sample_id");
	if (s->mask & PD_SAMPLE_TID) {
		pde_f_pid(d, "pid", s->pid);
		pde_f_pid(d, "tid", s->tid);
	}
	if (s->mask & PD_SAMPLE_TIME)
		pde_f_u64(d, "time", s->time);
	if (s->mask & (PD_SAMPLE_ID | PD_SAMPLE_IDENTIFIER))
		pde_f_u64(d, "id", s->id);
	if (s->mask & PD_SAMPLE_STREAM_ID)
		pde_f_u64(d, "stream_id", s->stream_id);
	if (s->mask & PD_SAMPLE_CPU)
		pde_f_u64(d, "cpu", s->cpu);
	pde_f_close(d);
}

/* read_format values, of a SAMPLE or a READ record */
static void read_values(struct pde_fields *d, uint64_t rf,
			uint64_t time_enabled, uint64_t time_running,
			uint64_t nr, const struct pd_sample *s,
			const struct pd_ev_read *r)
{
	struct pd_read_value v;

	pde_f_object(d, "read");
	if (rf & PD_FORMAT_TOTAL_TIME_ENABLED)
		pde_f_u64(d, "time_enabled", time_enabled);
	if (rf & PD_FORMAT_TOTAL_TIME_RUNNING)
		pde_f_u64(d, "time_running", time_running);
	pde_f_array(d, "values");
	for (uint64_t i = 0; i < nr; i++) {
		if (s)
			pd_sample_read_value(s, i, &v);
		else
			pd_ev_read_value(r, i, &v);
		pde_f_object(d, NULL);
		pde_f_u64(d, "value", v.value);
		if (rf & PD_FORMAT_ID)
			pde_f_u64(d, "id", v.id);
		if (rf & PD_FORMAT_LOST)
			pde_f_u64(d, "lost", v.lost);
		pde_f_close(d);
	}
	pde_f_close(d);
	pde_f_close(d);
}

static void regs(struct pde_fields *d, const char *key, const struct pd_regs *r)
{
	pde_f_object(d, key);
	pde_f_u64(d, "abi", r->abi);
	pde_f_hex(d, "mask", r->mask);
	if (r->abi)
		pde_f_hex_array(d, "regs", &r->regs);
	pde_f_close(d);
}

static void branch_stack(struct pde_fields *d, const struct pd_sample *s)
{
	struct pd_branch b;

	pde_f_object(d, "branch_stack");
	pde_f_u64(d, "nr", s->branch.nr);
	if (s->branch.has_hw_idx)
		pde_f_u64(d, "hw_idx", s->branch.hw_idx);
	pde_f_array(d, "entries");
	for (uint64_t i = 0; i < s->branch.nr; i++) {
		pd_sample_branch(s, i, &b);
		pde_f_object(d, NULL);
		pde_f_hex(d, "from", b.from);
		pde_f_hex(d, "to", b.to);
		pde_f_u64(d, "mispred", b.mispred);
		pde_f_u64(d, "predicted", b.predicted);
		pde_f_u64(d, "in_tx", b.in_tx);
		pde_f_u64(d, "abort", b.abort);
		pde_f_u64(d, "cycles", b.cycles);
		pde_f_u64(d, "type", b.type);
		pde_f_u64(d, "spec", b.spec);
		pde_f_u64(d, "new_type", b.new_type);
		pde_f_u64(d, "priv", b.priv);
		pde_f_close(d);
	}
	pde_f_close(d);
	if (s->branch.counters.raw) {
		pde_f_array(d, "counters");
		for (uint64_t i = 0; i < s->branch.counters.nr; i++)
			pde_f_u64(d, NULL, pd_u64s_get(&s->branch.counters, i));
		pde_f_close(d);
	}
	pde_f_close(d);
}

static void data_src(struct pde_fields *d, uint64_t v)
{
	struct pd_data_src ds;

	pd_data_src_decode(v, &ds);
	pde_f_hex(d, "data_src", v);
	pde_f_object(d, "data_src_fields");
	pde_f_hex(d, "op", ds.op);
	pde_f_hex(d, "lvl", ds.lvl);
	pde_f_hex(d, "snoop", ds.snoop);
	pde_f_hex(d, "lock", ds.lock);
	pde_f_hex(d, "dtlb", ds.dtlb);
	pde_f_u64(d, "lvl_num", ds.lvl_num);
	pde_f_u64(d, "remote", ds.remote);
	pde_f_hex(d, "snoopx", ds.snoopx);
	pde_f_hex(d, "blk", ds.blk);
	pde_f_u64(d, "hops", ds.hops);
	pde_f_close(d);
}

int pde_dump_sample(struct pde_dump *dump, const struct pd_rec *rec,
		    const struct pd_sample *s)
{
	struct pde_fields *d = &dump->f;
	const uint64_t st = s->mask;

	begin_rec(d, rec, true);
	pde_f_cstr(d, "event", s->evsel ? s->evsel->name : "?");
	if (st & PD_SAMPLE_IP)
		pde_f_hex(d, "ip", s->ip);
	if (st & PD_SAMPLE_TID) {
		pde_f_pid(d, "pid", s->pid);
		pde_f_pid(d, "tid", s->tid);
	}
	if (st & PD_SAMPLE_TIME)
		pde_f_u64(d, "time", s->time);
	if (st & PD_SAMPLE_ADDR)
		pde_f_hex(d, "addr", s->addr);
	if (st & (PD_SAMPLE_ID | PD_SAMPLE_IDENTIFIER))
		pde_f_u64(d, "id", s->id);
	if (st & PD_SAMPLE_STREAM_ID)
		pde_f_u64(d, "stream_id", s->stream_id);
	if (st & PD_SAMPLE_CPU)
		pde_f_u64(d, "cpu", s->cpu);
	if (st & PD_SAMPLE_PERIOD)
		pde_f_u64(d, "period", s->period);
	if (st & PD_SAMPLE_READ)
		read_values(d, s->evsel ? s->evsel->attr.read_format : 0,
			    s->read.time_enabled, s->read.time_running,
			    s->read.nr, s, NULL);
	if (st & PD_SAMPLE_CALLCHAIN)
		pde_f_hex_array(d, "callchain", &s->callchain);
	if (st & PD_SAMPLE_RAW)
		pde_f_u64(d, "raw_size", s->raw.size);
	if (st & PD_SAMPLE_BRANCH_STACK)
		branch_stack(d, s);
	if (st & PD_SAMPLE_REGS_USER)
		regs(d, "regs_user", &s->regs_user);
	if (st & PD_SAMPLE_STACK_USER) {
		pde_f_u64(d, "stack_user_size", s->stack_user.size);
		if (s->stack_user.size)
			pde_f_u64(d, "stack_user_dyn_size",
				  s->stack_user.dyn_size);
	}
	if (st & (PD_SAMPLE_WEIGHT | PD_SAMPLE_WEIGHT_STRUCT))
		pde_f_u64(d, "weight", s->weight);
	if (st & PD_SAMPLE_WEIGHT_STRUCT) {
		pde_f_u64(d, "weight_var1", s->weight_var1);
		pde_f_u64(d, "weight_var2", s->weight_var2);
		pde_f_u64(d, "weight_var3", s->weight_var3);
	}
	if (st & PD_SAMPLE_DATA_SRC)
		data_src(d, s->data_src);
	if (st & PD_SAMPLE_TRANSACTION)
		pde_f_hex(d, "transaction", s->transaction);
	if (st & PD_SAMPLE_REGS_INTR)
		regs(d, "regs_intr", &s->regs_intr);
	if (st & PD_SAMPLE_PHYS_ADDR)
		pde_f_hex(d, "phys_addr", s->phys_addr);
	if (st & PD_SAMPLE_CGROUP)
		pde_f_u64(d, "cgroup", s->cgroup);
	if (st & PD_SAMPLE_DATA_PAGE_SIZE)
		pde_f_u64(d, "data_page_size", s->data_page_size);
	if (st & PD_SAMPLE_CODE_PAGE_SIZE)
		pde_f_u64(d, "code_page_size", s->code_page_size);
	if (st & PD_SAMPLE_AUX)
		pde_f_u64(d, "aux_size", s->aux.size);
	return end_rec(d);
}

int pde_dump_failed(struct pde_dump *dump, const struct pd_rec *rec,
		    const char *reason)
{
	struct pde_fields *d = &dump->f;

	begin_rec(d, rec, true);
	pde_f_cstr(d, "error", reason);
	return end_rec(d);
}

int pde_dump_unknown(struct pde_dump *dump, const struct pd_rec *rec)
{
	struct pde_fields *d = &dump->f;

	begin_rec(d, rec, false);
	return end_rec(d);
}

static void attr(struct pde_fields *d, const struct pd_attr *a)
{
	pde_f_object(d, "attr");
	pde_f_u64(d, "type", a->type);
	pde_f_u64(d, "size", a->size);
	pde_f_hex(d, "config", a->config);
	pde_f_u64(d, PD_ATTR_HAS(a, freq) ? "sample_freq" : "sample_period",
		  a->sample_period);
	pde_f_hex(d, "sample_type", a->sample_type);
	pde_f_hex(d, "read_format", a->read_format);
	pde_f_hex(d, "flags", a->flags);
	pde_f_u64(d, "wakeup_events", a->wakeup_events);
	pde_f_u64(d, "bp_type", a->bp_type);
	pde_f_hex(d, "config1", a->config1);
	pde_f_hex(d, "config2", a->config2);
	pde_f_hex(d, "branch_sample_type", a->branch_sample_type);
	pde_f_hex(d, "sample_regs_user", a->sample_regs_user);
	pde_f_u64(d, "sample_stack_user", a->sample_stack_user);
	pde_f_i64(d, "clockid", a->clockid);
	pde_f_hex(d, "sample_regs_intr", a->sample_regs_intr);
	pde_f_u64(d, "aux_watermark", a->aux_watermark);
	pde_f_u64(d, "sample_max_stack", a->sample_max_stack);
	pde_f_u64(d, "aux_sample_size", a->aux_sample_size);
	pde_f_u64(d, "aux_action", a->aux_action);
	pde_f_u64(d, "sig_data", a->sig_data);
	pde_f_hex(d, "config3", a->config3);
	pde_f_close(d);
}

/* a CPU map: its encoding under "data", then the CPUs it lists */
static void cpu_map(struct pde_fields *d, const struct pd_cpu_map *m)
{
	uint64_t pos = 0;
	int cpu;

	pde_f_object(d, "data");
	pde_f_u64(d, "type", m->type);
	switch (m->type) {
	case PD_CPU_MAP_CPUS:
		pde_f_u64(d, "nr", m->nr);
		pde_f_array(d, "cpu");
		for (uint64_t i = 0; i < m->nr; i++)
			pde_f_u64(d, NULL,
				  pd_load_u16(m->raw + 2 * i, m->swap));
		pde_f_close(d);
		break;
	case PD_CPU_MAP_MASK:
		pde_f_u64(d, "nr", m->nr);
		pde_f_u64(d, "long_size", m->long_size);
		pde_f_array(d, "mask");
		for (uint64_t i = 0; i < m->nr; i++)
			pde_f_hex(
				d, NULL,
				m->long_size == 8
					? pd_load_u64(m->raw + 8 * i, m->swap)
					: pd_load_u32(m->raw + 4 * i, m->swap));
		pde_f_close(d);
		break;
	case PD_CPU_MAP_RANGE:
		pde_f_u64(d, "any_cpu", m->any_cpu);
		pde_f_u64(d, "start_cpu", m->start_cpu);
		pde_f_u64(d, "end_cpu", m->end_cpu);
		break;
	default:
		break;
	}
	pde_f_close(d);
	pde_f_array(d, "cpus");
	while (pd_cpu_map_next(m, &pos, &cpu))
		pde_f_i64(d, NULL, cpu);
	pde_f_close(d);
}

static void kernel_fields(struct pde_fields *d, const struct pd_event *ev)
{
	switch (ev->type) {
	case PD_REC_MMAP:
		pde_f_pid(d, "pid", ev->mmap.pid);
		pde_f_pid(d, "tid", ev->mmap.tid);
		pde_f_hex(d, "start", ev->mmap.start);
		pde_f_hex(d, "len", ev->mmap.len);
		pde_f_hex(d, "pgoff", ev->mmap.pgoff);
		pde_f_str(d, "filename", ev->mmap.filename);
		break;
	case PD_REC_MMAP2: {
		const struct pd_ev_mmap2 *m = &ev->mmap2;

		pde_f_pid(d, "pid", m->pid);
		pde_f_pid(d, "tid", m->tid);
		pde_f_hex(d, "start", m->start);
		pde_f_hex(d, "len", m->len);
		pde_f_hex(d, "pgoff", m->pgoff);
		if (m->has_build_id) {
			pde_f_hexbytes(d, "build_id", m->build_id,
				       m->build_id_size);
		} else {
			pde_f_u64(d, "maj", m->maj);
			pde_f_u64(d, "min", m->min);
			pde_f_u64(d, "ino", m->ino);
			pde_f_u64(d, "ino_generation", m->ino_generation);
		}
		pde_f_u64(d, "prot", m->prot);
		pde_f_u64(d, "flags", m->flags);
		pde_f_str(d, "filename", m->filename);
		break;
	}
	case PD_REC_LOST:
		pde_f_u64(d, "id", ev->lost.id);
		pde_f_u64(d, "lost", ev->lost.lost);
		break;
	case PD_REC_COMM:
		pde_f_pid(d, "pid", ev->comm.pid);
		pde_f_pid(d, "tid", ev->comm.tid);
		pde_f_str(d, "comm", ev->comm.comm);
		break;
	case PD_REC_EXIT:
	case PD_REC_FORK:
		pde_f_pid(d, "pid", ev->fork.pid);
		pde_f_pid(d, "ppid", ev->fork.ppid);
		pde_f_pid(d, "tid", ev->fork.tid);
		pde_f_pid(d, "ptid", ev->fork.ptid);
		pde_f_u64(d, "time", ev->fork.time);
		break;
	case PD_REC_THROTTLE:
	case PD_REC_UNTHROTTLE:
		pde_f_u64(d, "time", ev->throttle.time);
		pde_f_u64(d, "id", ev->throttle.id);
		pde_f_u64(d, "stream_id", ev->throttle.stream_id);
		break;
	case PD_REC_READ:
		pde_f_pid(d, "pid", ev->read.pid);
		pde_f_pid(d, "tid", ev->read.tid);
		read_values(d, ev->read.read_format, ev->read.time_enabled,
			    ev->read.time_running, ev->read.nr, NULL,
			    &ev->read);
		break;
	case PD_REC_AUX:
		pde_f_hex(d, "aux_offset", ev->aux.aux_offset);
		pde_f_hex(d, "aux_size", ev->aux.aux_size);
		pde_f_hex(d, "flags", ev->aux.flags);
		break;
	case PD_REC_ITRACE_START:
		pde_f_pid(d, "pid", ev->itrace_start.pid);
		pde_f_pid(d, "tid", ev->itrace_start.tid);
		break;
	case PD_REC_LOST_SAMPLES:
		pde_f_u64(d, "lost", ev->lost_samples.lost);
		break;
	case PD_REC_SWITCH_CPU_WIDE:
		pde_f_pid(d, "next_prev_pid", ev->context_switch.next_prev_pid);
		pde_f_pid(d, "next_prev_tid", ev->context_switch.next_prev_tid);
		break;
	case PD_REC_NAMESPACES: {
		const struct pd_ev_namespaces *ns = &ev->namespaces;

		pde_f_pid(d, "pid", ns->pid);
		pde_f_pid(d, "tid", ns->tid);
		pde_f_u64(d, "nr_namespaces", ns->nr_namespaces);
		pde_f_array(d, "link_info");
		for (uint64_t i = 0; i < ns->nr_namespaces; i++) {
			pde_f_object(d, NULL);
			pde_f_u64(d, "dev", pd_u64s_get(&ns->link_info, 2 * i));
			pde_f_u64(d, "ino",
				  pd_u64s_get(&ns->link_info, 2 * i + 1));
			pde_f_close(d);
		}
		pde_f_close(d);
		break;
	}
	case PD_REC_KSYMBOL:
		pde_f_hex(d, "addr", ev->ksymbol.addr);
		pde_f_u64(d, "len", ev->ksymbol.len);
		pde_f_u64(d, "ksym_type", ev->ksymbol.ksym_type);
		pde_f_u64(d, "flags", ev->ksymbol.flags);
		pde_f_str(d, "name", ev->ksymbol.name);
		break;
	case PD_REC_BPF_EVENT:
		pde_f_u64(d, "bpf_type", ev->bpf_event.type);
		pde_f_u64(d, "flags", ev->bpf_event.flags);
		pde_f_u64(d, "id", ev->bpf_event.id);
		pde_f_hexbytes(d, "tag", ev->bpf_event.tag, 8);
		break;
	case PD_REC_CGROUP:
		pde_f_u64(d, "id", ev->cgroup.id);
		pde_f_str(d, "path", ev->cgroup.path);
		break;
	case PD_REC_TEXT_POKE:
		pde_f_hex(d, "addr", ev->text_poke.addr);
		pde_f_u64(d, "old_len", ev->text_poke.old_len);
		pde_f_u64(d, "new_len", ev->text_poke.new_len);
		pde_f_hexbytes(d, "old_bytes", ev->text_poke.old_bytes,
			       ev->text_poke.old_len);
		pde_f_hexbytes(d, "new_bytes", ev->text_poke.new_bytes,
			       ev->text_poke.new_len);
		break;
	case PD_REC_AUX_OUTPUT_HW_ID:
		pde_f_u64(d, "hw_id", ev->aux_output_hw_id.hw_id);
		break;
	case PD_REC_CALLCHAIN_DEFERRED:
		pde_f_u64(d, "cookie", ev->callchain_deferred.cookie);
		pde_f_u64(d, "nr", ev->callchain_deferred.ips.nr);
		pde_f_hex_array(d, "ips", &ev->callchain_deferred.ips);
		break;
	default:
		break;
	}
}

static void auxtrace_error(struct pde_fields *d,
			   const struct pd_ev_auxtrace_error *e)
{
	pde_f_u64(d, "error_type", e->type);
	pde_f_u64(d, "code", e->code);
	pde_f_u64(d, "cpu", e->cpu);
	pde_f_pid(d, "pid", e->pid);
	pde_f_pid(d, "tid", e->tid);
	pde_f_u64(d, "fmt", e->fmt);
	pde_f_hex(d, "ip", e->ip);
	if (e->has_time)
		pde_f_u64(d, "time", e->time);
	pde_f_str(d, "msg", e->msg);
	if (e->has_vm) {
		pde_f_u64(d, "machine_pid", e->machine_pid);
		pde_f_u64(d, "vcpu", e->vcpu);
	}
}

static void user_fields(struct pde_fields *d, const struct pd_event *ev)
{
	switch (ev->type) {
	case PD_REC_HEADER_ATTR:
		attr(d, &ev->attr.attr);
		pde_f_array(d, "ids");
		for (uint64_t i = 0; i < ev->attr.ids.nr; i++)
			pde_f_u64(d, NULL, pd_u64s_get(&ev->attr.ids, i));
		pde_f_close(d);
		break;
	case PD_REC_HEADER_EVENT_TYPE:
		pde_f_u64(d, "event_id", ev->event_type.event_id);
		pde_f_str(d, "name", ev->event_type.name);
		break;
	case PD_REC_HEADER_TRACING_DATA:
		pde_f_u64(d, "data_size", ev->tracing_data.size);
		break;
	case PD_REC_HEADER_BUILD_ID:
		pde_f_i64(d, "pid", ev->build_id.pid);
		pde_f_hexbytes(d, "build_id", ev->build_id.build_id,
			       ev->build_id.size);
		pde_f_str(d, "filename", ev->build_id.filename);
		break;
	case PD_REC_ID_INDEX: {
		struct pd_id_index_entry e;

		pde_f_u64(d, "nr", ev->id_index.nr);
		pde_f_array(d, "entries");
		for (uint64_t i = 0; i < ev->id_index.nr; i++) {
			pd_ev_id_index_get(&ev->id_index, i, &e);
			pde_f_object(d, NULL);
			pde_f_u64(d, "id", e.id);
			pde_f_u64(d, "idx", e.idx);
			pde_f_i64(d, "cpu", (int64_t)e.cpu);
			pde_f_i64(d, "tid", (int64_t)e.tid);
			if (e.has_vm) {
				pde_f_i64(d, "machine_pid",
					  (int64_t)e.machine_pid);
				pde_f_i64(d, "vcpu", (int64_t)e.vcpu);
			}
			pde_f_close(d);
		}
		pde_f_close(d);
		break;
	}
	case PD_REC_AUXTRACE_INFO:
		pde_f_u64(d, "auxtrace_type", ev->auxtrace_info.type);
		pde_f_hex_array(d, "priv", &ev->auxtrace_info.priv);
		break;
	case PD_REC_AUXTRACE:
		pde_f_u64(d, "data_size", ev->auxtrace.size);
		pde_f_hex(d, "data_offset", ev->auxtrace.offset);
		pde_f_hex(d, "reference", ev->auxtrace.reference);
		pde_f_u64(d, "idx", ev->auxtrace.idx);
		pde_f_i64(d, "tid", (int32_t)ev->auxtrace.tid);
		pde_f_i64(d, "cpu", (int32_t)ev->auxtrace.cpu);
		break;
	case PD_REC_AUXTRACE_ERROR:
		auxtrace_error(d, &ev->auxtrace_error);
		break;
	case PD_REC_THREAD_MAP: {
		uint64_t pid;
		struct pd_str comm;

		pde_f_u64(d, "nr", ev->thread_map.nr);
		pde_f_array(d, "entries");
		for (uint64_t i = 0; i < ev->thread_map.nr; i++) {
			pd_ev_thread_map_get(&ev->thread_map, i, &pid, &comm);
			pde_f_object(d, NULL);
			pde_f_i64(d, "pid", (int64_t)pid);
			pde_f_str(d, "comm", comm);
			pde_f_close(d);
		}
		pde_f_close(d);
		break;
	}
	case PD_REC_CPU_MAP:
		cpu_map(d, &ev->cpu_map);
		break;
	case PD_REC_STAT_CONFIG:
		pde_f_u64(d, "nr", ev->stat_config.nr);
		pde_f_array(d, "data");
		for (uint64_t i = 0; i < ev->stat_config.nr; i++) {
			pde_f_object(d, NULL);
			pde_f_u64(d, "tag",
				  pd_u64s_get(&ev->stat_config.data, 2 * i));
			pde_f_u64(
				d, "val",
				pd_u64s_get(&ev->stat_config.data, 2 * i + 1));
			pde_f_close(d);
		}
		pde_f_close(d);
		break;
	case PD_REC_STAT:
		pde_f_u64(d, "id", ev->stat.id);
		pde_f_i64(d, "cpu", (int32_t)ev->stat.cpu);
		pde_f_i64(d, "thread", (int32_t)ev->stat.thread);
		pde_f_u64(d, "val", ev->stat.val);
		pde_f_u64(d, "ena", ev->stat.ena);
		pde_f_u64(d, "run", ev->stat.run);
		break;
	case PD_REC_STAT_ROUND:
		pde_f_u64(d, "round_type", ev->stat_round.type);
		pde_f_u64(d, "time", ev->stat_round.time);
		break;
	case PD_REC_EVENT_UPDATE: {
		const struct pd_ev_event_update *u = &ev->event_update;

		pde_f_u64(d, "update_type", u->type);
		pde_f_u64(d, "id", u->id);
		if (u->type == PD_EVENT_UPDATE_UNIT)
			pde_f_str(d, "unit", u->str);
		else if (u->type == PD_EVENT_UPDATE_NAME)
			pde_f_str(d, "name", u->str);
		else if (u->type == PD_EVENT_UPDATE_SCALE)
			pde_f_double(d, "scale", u->scale);
		else if (u->type == PD_EVENT_UPDATE_CPUS)
			cpu_map(d, &u->cpus);
		break;
	}
	case PD_REC_TIME_CONV: {
		const struct pd_ev_time_conv *t = &ev->time_conv;

		pde_f_u64(d, "time_shift", t->time_shift);
		pde_f_u64(d, "time_mult", t->time_mult);
		pde_f_u64(d, "time_zero", t->time_zero);
		if (t->has_long) {
			pde_f_u64(d, "time_cycles", t->time_cycles);
			pde_f_hex(d, "time_mask", t->time_mask);
			pde_f_u64(d, "cap_user_time_zero",
				  t->cap_user_time_zero);
			pde_f_u64(d, "cap_user_time_short",
				  t->cap_user_time_short);
		}
		break;
	}
	case PD_REC_HEADER_FEATURE: {
		const char *name =
			pd_feature_name(ev->feature.feat_id < PD_FEAT_MAX
						? (unsigned)ev->feature.feat_id
						: 0);

		pde_f_u64(d, "feat_id", ev->feature.feat_id);
		if (name)
			pde_f_cstr(d, "feature", name);
		pde_f_u64(d, "data_size", ev->feature.size);
		break;
	}
	case PD_REC_COMPRESSED:
	case PD_REC_COMPRESSED2:
		pde_f_u64(d, "data_size", ev->compressed.data_size);
		break;
	case PD_REC_BPF_METADATA: {
		struct pd_str key, value;

		pde_f_str(d, "prog_name", ev->bpf_metadata.prog_name);
		pde_f_u64(d, "nr_entries", ev->bpf_metadata.nr_entries);
		pde_f_array(d, "entries");
		for (uint64_t i = 0; i < ev->bpf_metadata.nr_entries; i++) {
			pd_ev_bpf_metadata_get(&ev->bpf_metadata, i, &key,
					       &value);
			pde_f_object(d, NULL);
			pde_f_str(d, "key", key);
			pde_f_str(d, "value", value);
			pde_f_close(d);
		}
		pde_f_close(d);
		break;
	}
	default:
		break;
	}
}

int pde_dump_event(struct pde_dump *dump, const struct pd_rec *rec,
		   const struct pd_event *ev)
{
	struct pde_fields *d = &dump->f;

	begin_rec(d, rec, true);
	if (rec->type < PD_REC_USER_TYPE_START) {
		kernel_fields(d, ev);
		sample_id(d, &ev->sample_id);
	} else {
		user_fields(d, ev);
	}
	return end_rec(d);
}

/* ---- --count totals ------------------------------------------------- */

int pde_dump_totals(FILE *out, bool json, const struct pde_dump_totals *t)
{
	struct pde_fields fw;

	pde_fields_init(&fw, out, json);
	if (json) {
		pde_f_object(&fw, NULL);
		pde_f_u64(&fw, "records", t->nr_records);
		pde_f_object(&fw, "record_counts");
	} else {
		fprintf(out, "%-24s %12" PRIu64 "\n", "records", t->nr_records);
	}
	pde_f_rec_counts(&fw, t->by_type);
	if (t->nr_other_type)
		pde_f_count(&fw, "UNKNOWN_OTHER", t->nr_other_type);
	if (json) {
		pde_f_close(&fw);
		pde_f_u64(&fw, "samples_decoded", t->samples_decoded);
		pde_f_u64(&fw, "failed", t->failed);
		if (t->nr_compressed) {
			pde_f_u64(&fw, "compressed_chunks", t->nr_compressed);
			pde_f_u64(&fw, "compressed_bytes", t->compressed_bytes);
			pde_f_u64(&fw, "decompressed_bytes",
				  t->decompressed_bytes);
		}
		pde_f_close(&fw);
		return pde_fields_end_line(&fw);
	}
	fprintf(out, "%-24s %12" PRIu64 "\n", "samples decoded",
		t->samples_decoded);
	fprintf(out, "%-24s %12" PRIu64 "\n", "failed to decode", t->failed);
	if (t->nr_compressed)
		fprintf(out,
			"%-24s %12" PRIu64 " (%" PRIu64
			" bytes of zstd to %" PRIu64 " bytes of records)\n",
			"compressed chunks", t->nr_compressed,
			t->compressed_bytes, t->decompressed_bytes);
	return pde_out_rc(out);
}
