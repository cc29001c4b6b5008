/*
 * pde_dump.c - `pdtool dump` output: one line per record, as text or as
 * one JSON object (the shared output contract), and the totals of
 * `--count`.
 *
 * Both formats come from the same field calls: f_u64(d, "pid", v) writes
 * `"pid":1` in JSON and ` pid=1` in text, so the two cannot drift apart.
 * In text, addresses are hexadecimal; in JSON every integer is a number.
 */
#include "pd_config.h"
#include "pde.h"
#include "pdc_utf8.h"

#include <inttypes.h>
#include <string.h>

/* ---- fields, in either format --------------------------------------- */

/* text: the separator before a value at the current depth */
static void text_sep(struct pde_dump *d, const char *key)
{
	if (d->depth == 0 || !d->first[d->depth])
		fputc(d->depth && d->in_array[d->depth] ? ',' : ' ', d->out);
	d->first[d->depth] = false;
	if (key)
		fprintf(d->out, "%s=", key);
}

static void f_u64(struct pde_dump *d, const char *key, uint64_t v)
{
	if (d->json) {
		pde_json_u64(&d->j, key, v);
		return;
	}
	text_sep(d, key);
	fprintf(d->out, "%" PRIu64, v);
}

static void f_i64(struct pde_dump *d, const char *key, int64_t v)
{
	if (d->json) {
		pde_json_i64(&d->j, key, v);
		return;
	}
	text_sep(d, key);
	fprintf(d->out, "%" PRId64, v);
}

/* an address or a bit mask: hexadecimal in text */
static void f_hex(struct pde_dump *d, const char *key, uint64_t v)
{
	if (d->json) {
		pde_json_u64(&d->j, key, v);
		return;
	}
	text_sep(d, key);
	fprintf(d->out, "0x%" PRIx64, v);
}

/* pid and tid fields are u32 in the file; -1 means "none" or the kernel */
static void f_pid(struct pde_dump *d, const char *key, uint32_t v)
{
	f_i64(d, key, (int32_t)v);
}

static void f_double(struct pde_dump *d, const char *key, double v)
{
	if (d->json) {
		pde_json_double(&d->j, key, v);
		return;
	}
	text_sep(d, key);
	fprintf(d->out, "%g", v);
}

/* text: a quoted string; quotes, backslashes and non-text bytes escaped */
static void text_quoted(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		size_t len;

		if (s[i] == '"' || s[i] == '\\') {
			fputc('\\', out);
			fputc(s[i], out);
		} else if (s[i] >= 0x20 && s[i] < 0x7f) {
			fputc(s[i], out);
		} else if (s[i] >= 0x80 && (len = pdc_utf8_len(s + i, n - i))) {
			fwrite(s + i, 1, len, out);
			i += len - 1;
		} else {
			fprintf(out, "\\x%02x", s[i]);
		}
	}
	fputc('"', out);
}

static void f_str(struct pde_dump *d, const char *key, struct pd_str s)
{
	if (d->json) {
		pde_json_strn(&d->j, key, s.ptr, s.len);
		return;
	}
	text_sep(d, key);
	text_quoted(d->out, s.ptr, s.len);
}

static void f_cstr(struct pde_dump *d, const char *key, const char *s)
{
	struct pd_str v = {s, strlen(s)};

	f_str(d, key, v);
}

/* bytes as lowercase hex: a JSON string, bare in text */
static void f_hexbytes(struct pde_dump *d, const char *key,
		       const unsigned char *p, size_t n)
{
	if (d->json) {
		pde_json_hexbytes(&d->j, key, p, n);
		return;
	}
	text_sep(d, key);
	for (size_t i = 0; i < n; i++)
		fprintf(d->out, "%02x", p[i]);
}

static void open_(struct pde_dump *d, const char *key, bool array)
{
	if (d->json) {
		if (array)
			pde_json_begin_array(&d->j, key);
		else
			pde_json_begin_object(&d->j, key);
	} else {
		text_sep(d, key);
		fputc(array ? '[' : '{', d->out);
	}
	/* records nest a few levels at most; the cap only guards */
	if (d->depth + 1 < PDE_DUMP_MAX_DEPTH)
		d->depth++;
	d->first[d->depth] = true;
	d->in_array[d->depth] = array;
}

static void close_(struct pde_dump *d)
{
	const bool array = d->in_array[d->depth];

	if (d->json) {
		if (array)
			pde_json_end_array(&d->j);
		else
			pde_json_end_object(&d->j);
	} else {
		fputc(array ? ']' : '}', d->out);
	}
	if (d->depth > 0)
		d->depth--;
}

static void f_object(struct pde_dump *d, const char *key)
{
	open_(d, key, false);
}

static void f_array(struct pde_dump *d, const char *key)
{
	open_(d, key, true);
}

static void f_hex_array(struct pde_dump *d, const char *key,
			const struct pd_u64s *a)
{
	f_array(d, key);
	for (uint64_t i = 0; i < a->nr; i++)
		f_hex(d, NULL, pd_u64s_get(a, i));
	close_(d);
}

/* ---- records -------------------------------------------------------- */

void pde_dump_init(struct pde_dump *d, FILE *out, bool json)
{
	memset(d, 0, sizeof(*d));
	d->out = out;
	d->json = json;
	pde_json_init(&d->j, out, false);
}

static void begin_rec(struct pde_dump *d, const struct pd_rec *rec, bool known)
{
	const char *name = pd_rec_type_name(rec->type);
	char unknown[32];

	if (!name || !known) {
		snprintf(unknown, sizeof(unknown), "UNKNOWN_%" PRIu32,
			 rec->type);
		name = unknown;
	}
	d->depth = 0;
	d->first[0] = true;
	if (d->json) {
		pde_json_begin_object(&d->j, NULL);
		pde_json_str(&d->j, "type", name);
		pde_json_u64(&d->j, "offset", rec->offset);
		pde_json_u64(&d->j, "size", rec->size);
		if (!known)
			return;
		pde_json_u64(&d->j, "misc", rec->misc);
		if (rec->flags & PD_RECF_DECOMPRESSED)
			pde_json_bool(&d->j, "decompressed", true);
		return;
	}
	fprintf(d->out, "0x%" PRIx64 " %" PRIu32 " %s", rec->offset, rec->size,
		name);
	d->first[0] = false;
	if (!known)
		return;
	if (rec->misc)
		fprintf(d->out, " misc=%#x", rec->misc);
	if (rec->flags & PD_RECF_DECOMPRESSED)
		fputs(" decompressed=true", d->out);
}

static void end_rec(struct pde_dump *d)
{
	if (d->json) {
		pde_json_end_object(&d->j);
		pde_json_newline(&d->j);
		return;
	}
	fputc('\n', d->out);
}

static void sample_id(struct pde_dump *d, const struct pd_sample_id *s)
{
	if (!s->mask)
		return;
	f_object(d, "sample_id");
	if (s->mask & PD_SAMPLE_TID) {
		f_pid(d, "pid", s->pid);
		f_pid(d, "tid", s->tid);
	}
	if (s->mask & PD_SAMPLE_TIME)
		f_u64(d, "time", s->time);
	if (s->mask & (PD_SAMPLE_ID | PD_SAMPLE_IDENTIFIER))
		f_u64(d, "id", s->id);
	if (s->mask & PD_SAMPLE_STREAM_ID)
		f_u64(d, "stream_id", s->stream_id);
	if (s->mask & PD_SAMPLE_CPU)
		f_u64(d, "cpu", s->cpu);
	close_(d);
}

/* read_format values, of a SAMPLE or a READ record */
static void read_values(struct pde_dump *d, uint64_t rf, uint64_t time_enabled,
			uint64_t time_running, uint64_t nr,
			const struct pd_sample *s, const struct pd_ev_read *r)
{
	struct pd_read_value v;

	f_object(d, "read");
	if (rf & PD_FORMAT_TOTAL_TIME_ENABLED)
		f_u64(d, "time_enabled", time_enabled);
	if (rf & PD_FORMAT_TOTAL_TIME_RUNNING)
		f_u64(d, "time_running", time_running);
	f_array(d, "values");
	for (uint64_t i = 0; i < nr; i++) {
		if (s)
			pd_sample_read_value(s, i, &v);
		else
			pd_ev_read_value(r, i, &v);
		f_object(d, NULL);
		f_u64(d, "value", v.value);
		if (rf & PD_FORMAT_ID)
			f_u64(d, "id", v.id);
		if (rf & PD_FORMAT_LOST)
			f_u64(d, "lost", v.lost);
		close_(d);
	}
	close_(d);
	close_(d);
}

static void regs(struct pde_dump *d, const char *key, const struct pd_regs *r)
{
	f_object(d, key);
	f_u64(d, "abi", r->abi);
	f_hex(d, "mask", r->mask);
	if (r->abi)
		f_hex_array(d, "regs", &r->regs);
	close_(d);
}

static void branch_stack(struct pde_dump *d, const struct pd_sample *s)
{
	struct pd_branch b;

	f_object(d, "branch_stack");
	f_u64(d, "nr", s->branch.nr);
	if (s->branch.has_hw_idx)
		f_u64(d, "hw_idx", s->branch.hw_idx);
	f_array(d, "entries");
	for (uint64_t i = 0; i < s->branch.nr; i++) {
		pd_sample_branch(s, i, &b);
		f_object(d, NULL);
		f_hex(d, "from", b.from);
		f_hex(d, "to", b.to);
		f_u64(d, "mispred", b.mispred);
		f_u64(d, "predicted", b.predicted);
		f_u64(d, "in_tx", b.in_tx);
		f_u64(d, "abort", b.abort);
		f_u64(d, "cycles", b.cycles);
		f_u64(d, "type", b.type);
		f_u64(d, "spec", b.spec);
		f_u64(d, "new_type", b.new_type);
		f_u64(d, "priv", b.priv);
		close_(d);
	}
	close_(d);
	if (s->branch.counters.raw) {
		f_array(d, "counters");
		for (uint64_t i = 0; i < s->branch.counters.nr; i++)
			f_u64(d, NULL, pd_u64s_get(&s->branch.counters, i));
		close_(d);
	}
	close_(d);
}

static void data_src(struct pde_dump *d, uint64_t v)
{
	struct pd_data_src ds;

	pd_data_src_decode(v, &ds);
	f_hex(d, "data_src", v);
	f_object(d, "data_src_fields");
	f_hex(d, "op", ds.op);
	f_hex(d, "lvl", ds.lvl);
	f_hex(d, "snoop", ds.snoop);
	f_hex(d, "lock", ds.lock);
	f_hex(d, "dtlb", ds.dtlb);
	f_u64(d, "lvl_num", ds.lvl_num);
	f_u64(d, "remote", ds.remote);
	f_hex(d, "snoopx", ds.snoopx);
	f_hex(d, "blk", ds.blk);
	f_u64(d, "hops", ds.hops);
	close_(d);
}

void pde_dump_sample(struct pde_dump *d, const struct pd_rec *rec,
		     const struct pd_sample *s)
{
	const uint64_t st = s->mask;

	begin_rec(d, rec, true);
	f_cstr(d, "event", s->evsel ? s->evsel->name : "?");
	if (st & PD_SAMPLE_IP)
		f_hex(d, "ip", s->ip);
	if (st & PD_SAMPLE_TID) {
		f_pid(d, "pid", s->pid);
		f_pid(d, "tid", s->tid);
	}
	if (st & PD_SAMPLE_TIME)
		f_u64(d, "time", s->time);
	if (st & PD_SAMPLE_ADDR)
		f_hex(d, "addr", s->addr);
	if (st & (PD_SAMPLE_ID | PD_SAMPLE_IDENTIFIER))
		f_u64(d, "id", s->id);
	if (st & PD_SAMPLE_STREAM_ID)
		f_u64(d, "stream_id", s->stream_id);
	if (st & PD_SAMPLE_CPU)
		f_u64(d, "cpu", s->cpu);
	if (st & PD_SAMPLE_PERIOD)
		f_u64(d, "period", s->period);
	if (st & PD_SAMPLE_READ)
		read_values(d, s->evsel ? s->evsel->attr.read_format : 0,
			    s->read.time_enabled, s->read.time_running,
			    s->read.nr, s, NULL);
	if (st & PD_SAMPLE_CALLCHAIN)
		f_hex_array(d, "callchain", &s->callchain);
	if (st & PD_SAMPLE_RAW)
		f_u64(d, "raw_size", s->raw.size);
	if (st & PD_SAMPLE_BRANCH_STACK)
		branch_stack(d, s);
	if (st & PD_SAMPLE_REGS_USER)
		regs(d, "regs_user", &s->regs_user);
	if (st & PD_SAMPLE_STACK_USER) {
		f_u64(d, "stack_user_size", s->stack_user.size);
		if (s->stack_user.size)
			f_u64(d, "stack_user_dyn_size", s->stack_user.dyn_size);
	}
	if (st & (PD_SAMPLE_WEIGHT | PD_SAMPLE_WEIGHT_STRUCT))
		f_u64(d, "weight", s->weight);
	if (st & PD_SAMPLE_WEIGHT_STRUCT) {
		f_u64(d, "weight_var1", s->weight_var1);
		f_u64(d, "weight_var2", s->weight_var2);
		f_u64(d, "weight_var3", s->weight_var3);
	}
	if (st & PD_SAMPLE_DATA_SRC)
		data_src(d, s->data_src);
	if (st & PD_SAMPLE_TRANSACTION)
		f_hex(d, "transaction", s->transaction);
	if (st & PD_SAMPLE_REGS_INTR)
		regs(d, "regs_intr", &s->regs_intr);
	if (st & PD_SAMPLE_PHYS_ADDR)
		f_hex(d, "phys_addr", s->phys_addr);
	if (st & PD_SAMPLE_CGROUP)
		f_u64(d, "cgroup", s->cgroup);
	if (st & PD_SAMPLE_DATA_PAGE_SIZE)
		f_u64(d, "data_page_size", s->data_page_size);
	if (st & PD_SAMPLE_CODE_PAGE_SIZE)
		f_u64(d, "code_page_size", s->code_page_size);
	if (st & PD_SAMPLE_AUX)
		f_u64(d, "aux_size", s->aux.size);
	end_rec(d);
}

void pde_dump_failed(struct pde_dump *d, const struct pd_rec *rec,
		     const char *reason)
{
	begin_rec(d, rec, true);
	f_cstr(d, "error", reason);
	end_rec(d);
}

void pde_dump_unknown(struct pde_dump *d, const struct pd_rec *rec)
{
	begin_rec(d, rec, false);
	end_rec(d);
}

static void attr(struct pde_dump *d, const struct pd_attr *a)
{
	f_object(d, "attr");
	f_u64(d, "type", a->type);
	f_u64(d, "size", a->size);
	f_hex(d, "config", a->config);
	f_u64(d, PD_ATTR_HAS(a, freq) ? "sample_freq" : "sample_period",
	      a->sample_period);
	f_hex(d, "sample_type", a->sample_type);
	f_hex(d, "read_format", a->read_format);
	f_hex(d, "flags", a->flags);
	f_u64(d, "wakeup_events", a->wakeup_events);
	f_u64(d, "bp_type", a->bp_type);
	f_hex(d, "config1", a->config1);
	f_hex(d, "config2", a->config2);
	f_hex(d, "branch_sample_type", a->branch_sample_type);
	f_hex(d, "sample_regs_user", a->sample_regs_user);
	f_u64(d, "sample_stack_user", a->sample_stack_user);
	f_i64(d, "clockid", a->clockid);
	f_hex(d, "sample_regs_intr", a->sample_regs_intr);
	f_u64(d, "aux_watermark", a->aux_watermark);
	f_u64(d, "sample_max_stack", a->sample_max_stack);
	f_u64(d, "aux_sample_size", a->aux_sample_size);
	f_u64(d, "aux_action", a->aux_action);
	f_u64(d, "sig_data", a->sig_data);
	f_hex(d, "config3", a->config3);
	close_(d);
}

/* a CPU map: its encoding under "data", then the CPUs it lists */
static void cpu_map(struct pde_dump *d, const struct pd_cpu_map *m)
{
	uint64_t pos = 0;
	int cpu;

	f_object(d, "data");
	f_u64(d, "type", m->type);
	switch (m->type) {
	case PD_CPU_MAP_CPUS:
		f_u64(d, "nr", m->nr);
		f_array(d, "cpu");
		for (uint64_t i = 0; i < m->nr; i++)
			f_u64(d, NULL, pd_load_u16(m->raw + 2 * i, m->swap));
		close_(d);
		break;
	case PD_CPU_MAP_MASK:
		f_u64(d, "nr", m->nr);
		f_u64(d, "long_size", m->long_size);
		f_array(d, "mask");
		for (uint64_t i = 0; i < m->nr; i++)
			f_hex(d, NULL,
			      m->long_size == 8
				      ? pd_load_u64(m->raw + 8 * i, m->swap)
				      : pd_load_u32(m->raw + 4 * i, m->swap));
		close_(d);
		break;
	case PD_CPU_MAP_RANGE:
		f_u64(d, "any_cpu", m->any_cpu);
		f_u64(d, "start_cpu", m->start_cpu);
		f_u64(d, "end_cpu", m->end_cpu);
		break;
	default:
		break;
	}
	close_(d);
	f_array(d, "cpus");
	while (pd_cpu_map_next(m, &pos, &cpu))
		f_i64(d, NULL, cpu);
	close_(d);
}

static void kernel_fields(struct pde_dump *d, const struct pd_event *ev)
{
	switch (ev->type) {
	case PD_REC_MMAP:
		f_pid(d, "pid", ev->mmap.pid);
		f_pid(d, "tid", ev->mmap.tid);
		f_hex(d, "start", ev->mmap.start);
		f_hex(d, "len", ev->mmap.len);
		f_hex(d, "pgoff", ev->mmap.pgoff);
		f_str(d, "filename", ev->mmap.filename);
		break;
	case PD_REC_MMAP2: {
		const struct pd_ev_mmap2 *m = &ev->mmap2;

		f_pid(d, "pid", m->pid);
		f_pid(d, "tid", m->tid);
		f_hex(d, "start", m->start);
		f_hex(d, "len", m->len);
		f_hex(d, "pgoff", m->pgoff);
		if (m->has_build_id) {
			f_hexbytes(d, "build_id", m->build_id,
				   m->build_id_size);
		} else {
			f_u64(d, "maj", m->maj);
			f_u64(d, "min", m->min);
			f_u64(d, "ino", m->ino);
			f_u64(d, "ino_generation", m->ino_generation);
		}
		f_u64(d, "prot", m->prot);
		f_u64(d, "flags", m->flags);
		f_str(d, "filename", m->filename);
		break;
	}
	case PD_REC_LOST:
		f_u64(d, "id", ev->lost.id);
		f_u64(d, "lost", ev->lost.lost);
		break;
	case PD_REC_COMM:
		f_pid(d, "pid", ev->comm.pid);
		f_pid(d, "tid", ev->comm.tid);
		f_str(d, "comm", ev->comm.comm);
		break;
	case PD_REC_EXIT:
	case PD_REC_FORK:
		f_pid(d, "pid", ev->fork.pid);
		f_pid(d, "ppid", ev->fork.ppid);
		f_pid(d, "tid", ev->fork.tid);
		f_pid(d, "ptid", ev->fork.ptid);
		f_u64(d, "time", ev->fork.time);
		break;
	case PD_REC_THROTTLE:
	case PD_REC_UNTHROTTLE:
		f_u64(d, "time", ev->throttle.time);
		f_u64(d, "id", ev->throttle.id);
		f_u64(d, "stream_id", ev->throttle.stream_id);
		break;
	case PD_REC_READ:
		f_pid(d, "pid", ev->read.pid);
		f_pid(d, "tid", ev->read.tid);
		read_values(d, ev->read.read_format, ev->read.time_enabled,
			    ev->read.time_running, ev->read.nr, NULL,
			    &ev->read);
		break;
	case PD_REC_AUX:
		f_hex(d, "aux_offset", ev->aux.aux_offset);
		f_hex(d, "aux_size", ev->aux.aux_size);
		f_hex(d, "flags", ev->aux.flags);
		break;
	case PD_REC_ITRACE_START:
		f_pid(d, "pid", ev->itrace_start.pid);
		f_pid(d, "tid", ev->itrace_start.tid);
		break;
	case PD_REC_LOST_SAMPLES:
		f_u64(d, "lost", ev->lost_samples.lost);
		break;
	case PD_REC_SWITCH_CPU_WIDE:
		f_pid(d, "next_prev_pid", ev->context_switch.next_prev_pid);
		f_pid(d, "next_prev_tid", ev->context_switch.next_prev_tid);
		break;
	case PD_REC_NAMESPACES: {
		const struct pd_ev_namespaces *ns = &ev->namespaces;

		f_pid(d, "pid", ns->pid);
		f_pid(d, "tid", ns->tid);
		f_u64(d, "nr_namespaces", ns->nr_namespaces);
		f_array(d, "link_info");
		for (uint64_t i = 0; i < ns->nr_namespaces; i++) {
			f_object(d, NULL);
			f_u64(d, "dev", pd_u64s_get(&ns->link_info, 2 * i));
			f_u64(d, "ino", pd_u64s_get(&ns->link_info, 2 * i + 1));
			close_(d);
		}
		close_(d);
		break;
	}
	case PD_REC_KSYMBOL:
		f_hex(d, "addr", ev->ksymbol.addr);
		f_u64(d, "len", ev->ksymbol.len);
		f_u64(d, "ksym_type", ev->ksymbol.ksym_type);
		f_u64(d, "flags", ev->ksymbol.flags);
		f_str(d, "name", ev->ksymbol.name);
		break;
	case PD_REC_BPF_EVENT:
		f_u64(d, "bpf_type", ev->bpf_event.type);
		f_u64(d, "flags", ev->bpf_event.flags);
		f_u64(d, "id", ev->bpf_event.id);
		f_hexbytes(d, "tag", ev->bpf_event.tag, 8);
		break;
	case PD_REC_CGROUP:
		f_u64(d, "id", ev->cgroup.id);
		f_str(d, "path", ev->cgroup.path);
		break;
	case PD_REC_TEXT_POKE:
		f_hex(d, "addr", ev->text_poke.addr);
		f_u64(d, "old_len", ev->text_poke.old_len);
		f_u64(d, "new_len", ev->text_poke.new_len);
		f_hexbytes(d, "old_bytes", ev->text_poke.old_bytes,
			   ev->text_poke.old_len);
		f_hexbytes(d, "new_bytes", ev->text_poke.new_bytes,
			   ev->text_poke.new_len);
		break;
	case PD_REC_AUX_OUTPUT_HW_ID:
		f_u64(d, "hw_id", ev->aux_output_hw_id.hw_id);
		break;
	case PD_REC_CALLCHAIN_DEFERRED:
		f_u64(d, "cookie", ev->callchain_deferred.cookie);
		f_u64(d, "nr", ev->callchain_deferred.ips.nr);
		f_hex_array(d, "ips", &ev->callchain_deferred.ips);
		break;
	default:
		break;
	}
}

static void auxtrace_error(struct pde_dump *d,
			   const struct pd_ev_auxtrace_error *e)
{
	f_u64(d, "error_type", e->type);
	f_u64(d, "code", e->code);
	f_u64(d, "cpu", e->cpu);
	f_pid(d, "pid", e->pid);
	f_pid(d, "tid", e->tid);
	f_u64(d, "fmt", e->fmt);
	f_hex(d, "ip", e->ip);
	if (e->has_time)
		f_u64(d, "time", e->time);
	f_str(d, "msg", e->msg);
	if (e->has_vm) {
		f_u64(d, "machine_pid", e->machine_pid);
		f_u64(d, "vcpu", e->vcpu);
	}
}

static void user_fields(struct pde_dump *d, const struct pd_event *ev)
{
	switch (ev->type) {
	case PD_REC_HEADER_ATTR:
		attr(d, &ev->attr.attr);
		f_array(d, "ids");
		for (uint64_t i = 0; i < ev->attr.ids.nr; i++)
			f_u64(d, NULL, pd_u64s_get(&ev->attr.ids, i));
		close_(d);
		break;
	case PD_REC_HEADER_EVENT_TYPE:
		f_u64(d, "event_id", ev->event_type.event_id);
		f_str(d, "name", ev->event_type.name);
		break;
	case PD_REC_HEADER_TRACING_DATA:
		f_u64(d, "data_size", ev->tracing_data.size);
		break;
	case PD_REC_HEADER_BUILD_ID:
		f_i64(d, "pid", ev->build_id.pid);
		f_hexbytes(d, "build_id", ev->build_id.build_id,
			   ev->build_id.size);
		f_str(d, "filename", ev->build_id.filename);
		break;
	case PD_REC_ID_INDEX: {
		struct pd_id_index_entry e;

		f_u64(d, "nr", ev->id_index.nr);
		f_array(d, "entries");
		for (uint64_t i = 0; i < ev->id_index.nr; i++) {
			pd_ev_id_index_get(&ev->id_index, i, &e);
			f_object(d, NULL);
			f_u64(d, "id", e.id);
			f_u64(d, "idx", e.idx);
			f_i64(d, "cpu", (int64_t)e.cpu);
			f_i64(d, "tid", (int64_t)e.tid);
			if (e.has_vm) {
				f_i64(d, "machine_pid", (int64_t)e.machine_pid);
				f_i64(d, "vcpu", (int64_t)e.vcpu);
			}
			close_(d);
		}
		close_(d);
		break;
	}
	case PD_REC_AUXTRACE_INFO:
		f_u64(d, "auxtrace_type", ev->auxtrace_info.type);
		f_hex_array(d, "priv", &ev->auxtrace_info.priv);
		break;
	case PD_REC_AUXTRACE:
		f_u64(d, "data_size", ev->auxtrace.size);
		f_hex(d, "data_offset", ev->auxtrace.offset);
		f_hex(d, "reference", ev->auxtrace.reference);
		f_u64(d, "idx", ev->auxtrace.idx);
		f_i64(d, "tid", (int32_t)ev->auxtrace.tid);
		f_i64(d, "cpu", (int32_t)ev->auxtrace.cpu);
		break;
	case PD_REC_AUXTRACE_ERROR:
		auxtrace_error(d, &ev->auxtrace_error);
		break;
	case PD_REC_THREAD_MAP: {
		uint64_t pid;
		struct pd_str comm;

		f_u64(d, "nr", ev->thread_map.nr);
		f_array(d, "entries");
		for (uint64_t i = 0; i < ev->thread_map.nr; i++) {
			pd_ev_thread_map_get(&ev->thread_map, i, &pid, &comm);
			f_object(d, NULL);
			f_i64(d, "pid", (int64_t)pid);
			f_str(d, "comm", comm);
			close_(d);
		}
		close_(d);
		break;
	}
	case PD_REC_CPU_MAP:
		cpu_map(d, &ev->cpu_map);
		break;
	case PD_REC_STAT_CONFIG:
		f_u64(d, "nr", ev->stat_config.nr);
		f_array(d, "data");
		for (uint64_t i = 0; i < ev->stat_config.nr; i++) {
			f_object(d, NULL);
			f_u64(d, "tag",
			      pd_u64s_get(&ev->stat_config.data, 2 * i));
			f_u64(d, "val",
			      pd_u64s_get(&ev->stat_config.data, 2 * i + 1));
			close_(d);
		}
		close_(d);
		break;
	case PD_REC_STAT:
		f_u64(d, "id", ev->stat.id);
		f_i64(d, "cpu", (int32_t)ev->stat.cpu);
		f_i64(d, "thread", (int32_t)ev->stat.thread);
		f_u64(d, "val", ev->stat.val);
		f_u64(d, "ena", ev->stat.ena);
		f_u64(d, "run", ev->stat.run);
		break;
	case PD_REC_STAT_ROUND:
		f_u64(d, "round_type", ev->stat_round.type);
		f_u64(d, "time", ev->stat_round.time);
		break;
	case PD_REC_EVENT_UPDATE: {
		const struct pd_ev_event_update *u = &ev->event_update;

		f_u64(d, "update_type", u->type);
		f_u64(d, "id", u->id);
		if (u->type == PD_EVENT_UPDATE_UNIT)
			f_str(d, "unit", u->str);
		else if (u->type == PD_EVENT_UPDATE_NAME)
			f_str(d, "name", u->str);
		else if (u->type == PD_EVENT_UPDATE_SCALE)
			f_double(d, "scale", u->scale);
		else if (u->type == PD_EVENT_UPDATE_CPUS)
			cpu_map(d, &u->cpus);
		break;
	}
	case PD_REC_TIME_CONV: {
		const struct pd_ev_time_conv *t = &ev->time_conv;

		f_u64(d, "time_shift", t->time_shift);
		f_u64(d, "time_mult", t->time_mult);
		f_u64(d, "time_zero", t->time_zero);
		if (t->has_long) {
			f_u64(d, "time_cycles", t->time_cycles);
			f_hex(d, "time_mask", t->time_mask);
			f_u64(d, "cap_user_time_zero", t->cap_user_time_zero);
			f_u64(d, "cap_user_time_short", t->cap_user_time_short);
		}
		break;
	}
	case PD_REC_HEADER_FEATURE: {
		const char *name =
			pd_feature_name(ev->feature.feat_id < PD_FEAT_MAX
						? (unsigned)ev->feature.feat_id
						: 0);

		f_u64(d, "feat_id", ev->feature.feat_id);
		if (name)
			f_cstr(d, "feature", name);
		f_u64(d, "data_size", ev->feature.size);
		break;
	}
	case PD_REC_COMPRESSED:
	case PD_REC_COMPRESSED2:
		f_u64(d, "data_size", ev->compressed.data_size);
		break;
	case PD_REC_BPF_METADATA: {
		struct pd_str key, value;

		f_str(d, "prog_name", ev->bpf_metadata.prog_name);
		f_u64(d, "nr_entries", ev->bpf_metadata.nr_entries);
		f_array(d, "entries");
		for (uint64_t i = 0; i < ev->bpf_metadata.nr_entries; i++) {
			pd_ev_bpf_metadata_get(&ev->bpf_metadata, i, &key,
					       &value);
			f_object(d, NULL);
			f_str(d, "key", key);
			f_str(d, "value", value);
			close_(d);
		}
		close_(d);
		break;
	}
	default:
		break;
	}
}

void pde_dump_event(struct pde_dump *d, const struct pd_rec *rec,
		    const struct pd_event *ev)
{
	begin_rec(d, rec, true);
	if (rec->type < PD_REC_USER_TYPE_START) {
		kernel_fields(d, ev);
		sample_id(d, &ev->sample_id);
	} else {
		user_fields(d, ev);
	}
	end_rec(d);
}

/* ---- --count totals ------------------------------------------------- */

void pde_dump_totals(FILE *out, bool json, const struct pde_dump_totals *t)
{
	struct pde_json j;
	char unknown[32];

	if (json) {
		pde_json_init(&j, out, false);
		pde_json_begin_object(&j, NULL);
		pde_json_u64(&j, "records", t->nr_records);
		pde_json_begin_object(&j, "record_counts");
	} else {
		fprintf(out, "%-24s %12" PRIu64 "\n", "records", t->nr_records);
	}
	for (uint32_t type = 0; type < PD_REC_TYPE_MAX; type++) {
		const char *name = pd_rec_type_name(type);

		if (!t->by_type[type])
			continue;
		if (!name) {
			snprintf(unknown, sizeof(unknown), "UNKNOWN_%" PRIu32,
				 type);
			name = unknown;
		}
		if (json)
			pde_json_u64(&j, name, t->by_type[type]);
		else
			fprintf(out, "  %-22s %12" PRIu64 "\n", name,
				t->by_type[type]);
	}
	if (t->nr_other_type) {
		if (json)
			pde_json_u64(&j, "UNKNOWN_OTHER", t->nr_other_type);
		else
			fprintf(out, "  %-22s %12" PRIu64 "\n", "UNKNOWN_OTHER",
				t->nr_other_type);
	}
	if (json) {
		pde_json_end_object(&j);
		pde_json_u64(&j, "samples_decoded", t->samples_decoded);
		pde_json_u64(&j, "failed", t->failed);
		if (t->nr_compressed) {
			pde_json_u64(&j, "compressed_chunks", t->nr_compressed);
			pde_json_u64(&j, "compressed_bytes",
				     t->compressed_bytes);
			pde_json_u64(&j, "decompressed_bytes",
				     t->decompressed_bytes);
		}
		pde_json_end_object(&j);
		pde_json_newline(&j);
		return;
	}
	fprintf(out, "%-24s %12" PRIu64 "\n", "samples decoded",
		t->samples_decoded);
	fprintf(out, "%-24s %12" PRIu64 "\n", "failed to decode", t->failed);
	if (t->nr_compressed)
		fprintf(out,
			"%-24s %12" PRIu64 " (%" PRIu64 " bytes of zstd to %" PRIu64
			" bytes of records)\n",
			"compressed chunks", t->nr_compressed,
			t->compressed_bytes, t->decompressed_bytes);
}
