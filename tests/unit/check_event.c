/*
 * check_event.c - pd_event_decode() on every record type other than
 * SAMPLE, built in memory in both byte orders: the fields, the
 * sample_id_all trailer of kernel records, the accessors, and every
 * truncation of each record (too short for the fixed part: PD_ERR_FORMAT;
 * longer: decoded or PD_ERR_FORMAT, and never a read past the end, each
 * cut being its own heap block for ASan).
 */
#include "testfile.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* the event's sample_id_all trailer: 6 u64 */
#define ID_SAMPLE_TYPE                                                         \
	(PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ID | PD_SAMPLE_STREAM_ID | \
	 PD_SAMPLE_CPU | PD_SAMPLE_IDENTIFIER)
#define TRAILER 48
#define EVENT_ID 0x77
#define T_PID 0x1234
#define T_TID 0x5678
#define T_TIME 0x0102030405060708ull
#define T_STREAM 0x99
#define T_CPU 3

static void pad8(struct tf *t)
{
	tf_zero(t, (8 - (t->data.len - t->rec_start) % 8) % 8);
}

/* kernel order: __perf_event__output_id_sample */
static void put_trailer(struct tf *t)
{
	pad8(t);
	tf_u32(t, T_PID);
	tf_u32(t, T_TID);
	tf_u64(t, T_TIME);
	tf_u64(t, EVENT_ID);
	tf_u64(t, T_STREAM);
	tf_u32(t, T_CPU);
	tf_u32(t, 0);
	tf_u64(t, EVENT_ID);
}

static bool str_is(struct pd_str s, const char *want)
{
	return s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

#define ck_str(s, want)                                                        \
	ck_assert_msg(str_is((s), (want)), "%s is '%.*s', not '%s'", #s,       \
		      (int)(s).len, (s).ptr, (want))

struct ev_case {
	const char *name;
	uint32_t type;
	uint64_t read_format; /* of the event */
	uint32_t min_len;     /* shorter: PD_ERR_FORMAT */
	void (*build)(struct tf *t);
	void (*check)(const struct pd_event *ev);
};

/* ---- kernel records ------------------------------------------------- */

static void b_mmap(struct tf *t)
{
	tf_begin(t, PD_REC_MMAP, PD_MISC_USER);
	tf_u32(t, 100);
	tf_u32(t, 101);
	tf_u64(t, 0x400000);
	tf_u64(t, 0x1000);
	tf_u64(t, 0x200);
	tf_str(t, "/bin/true", 10);
	put_trailer(t);
	tf_end(t);
}

static void c_mmap(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->mmap.pid, 100);
	ck_assert_uint_eq(ev->mmap.tid, 101);
	ck_assert_uint_eq(ev->mmap.start, 0x400000);
	ck_assert_uint_eq(ev->mmap.len, 0x1000);
	ck_assert_uint_eq(ev->mmap.pgoff, 0x200);
	ck_str(ev->mmap.filename, "/bin/true");
}

static void b_lost(struct tf *t)
{
	tf_begin(t, PD_REC_LOST, 0);
	tf_u64(t, EVENT_ID);
	tf_u64(t, 12345);
	put_trailer(t);
	tf_end(t);
}

static void c_lost(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->lost.id, EVENT_ID);
	ck_assert_uint_eq(ev->lost.lost, 12345);
}

/* a comm that fills its 16 bytes: no NUL before the trailer */
static void b_comm(struct tf *t)
{
	tf_begin(t, PD_REC_COMM, PD_MISC_COMM_EXEC);
	tf_u32(t, 7);
	tf_u32(t, 8);
	tf_bytes(t, "0123456789abcdef", 16);
	put_trailer(t);
	tf_end(t);
}

static void c_comm(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->misc, PD_MISC_COMM_EXEC);
	ck_assert_uint_eq(ev->comm.pid, 7);
	ck_assert_uint_eq(ev->comm.tid, 8);
	ck_str(ev->comm.comm, "0123456789abcdef");
}

static void put_fork(struct tf *t, uint32_t type)
{
	tf_begin(t, type, 0);
	tf_u32(t, 10);
	tf_u32(t, 11);
	tf_u32(t, 12);
	tf_u32(t, 13);
	tf_u64(t, 0xabcdef);
	put_trailer(t);
	tf_end(t);
}

static void b_fork(struct tf *t)
{
	put_fork(t, PD_REC_FORK);
}

static void b_exit(struct tf *t)
{
	put_fork(t, PD_REC_EXIT);
}

static void c_fork(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->fork.pid, 10);
	ck_assert_uint_eq(ev->fork.ppid, 11);
	ck_assert_uint_eq(ev->fork.tid, 12);
	ck_assert_uint_eq(ev->fork.ptid, 13);
	ck_assert_uint_eq(ev->fork.time, 0xabcdef);
}

static void put_throttle(struct tf *t, uint32_t type)
{
	tf_begin(t, type, 0);
	tf_u64(t, 1000);
	tf_u64(t, EVENT_ID);
	tf_u64(t, 55);
	put_trailer(t);
	tf_end(t);
}

static void b_throttle(struct tf *t)
{
	put_throttle(t, PD_REC_THROTTLE);
}

static void b_unthrottle(struct tf *t)
{
	put_throttle(t, PD_REC_UNTHROTTLE);
}

static void c_throttle(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->throttle.time, 1000);
	ck_assert_uint_eq(ev->throttle.id, EVENT_ID);
	ck_assert_uint_eq(ev->throttle.stream_id, 55);
}

#define RF_ONE                                                                 \
	(PD_FORMAT_TOTAL_TIME_ENABLED | PD_FORMAT_TOTAL_TIME_RUNNING |         \
	 PD_FORMAT_ID | PD_FORMAT_LOST)
#define RF_GROUP (PD_FORMAT_GROUP | PD_FORMAT_ID | PD_FORMAT_TOTAL_TIME_RUNNING)

/* value, enabled, running, id, lost */
static void b_read(struct tf *t)
{
	tf_begin(t, PD_REC_READ, 0);
	tf_u32(t, 20);
	tf_u32(t, 21);
	tf_u64(t, 500);
	tf_u64(t, 600);
	tf_u64(t, 700);
	tf_u64(t, EVENT_ID);
	tf_u64(t, 9);
	put_trailer(t);
	tf_end(t);
}

static void c_read(const struct pd_event *ev)
{
	struct pd_read_value v;

	ck_assert_uint_eq(ev->read.pid, 20);
	ck_assert_uint_eq(ev->read.tid, 21);
	ck_assert_uint_eq(ev->read.read_format, RF_ONE);
	ck_assert_uint_eq(ev->read.nr, 1);
	ck_assert_uint_eq(ev->read.time_enabled, 600);
	ck_assert_uint_eq(ev->read.time_running, 700);
	pd_ev_read_value(&ev->read, 0, &v);
	ck_assert_uint_eq(v.value, 500);
	ck_assert_uint_eq(v.id, EVENT_ID);
	ck_assert_uint_eq(v.lost, 9);
}

/* nr, running, then {value, id} per member */
static void b_read_group(struct tf *t)
{
	tf_begin(t, PD_REC_READ, 0);
	tf_u32(t, 20);
	tf_u32(t, 21);
	tf_u64(t, 2);
	tf_u64(t, 800);
	tf_u64(t, 1);
	tf_u64(t, EVENT_ID);
	tf_u64(t, 2);
	tf_u64(t, EVENT_ID + 1);
	put_trailer(t);
	tf_end(t);
}

static void c_read_group(const struct pd_event *ev)
{
	struct pd_read_value v;

	ck_assert_uint_eq(ev->read.nr, 2);
	ck_assert_uint_eq(ev->read.time_enabled, 0);
	ck_assert_uint_eq(ev->read.time_running, 800);
	for (uint64_t i = 0; i < 2; i++) {
		pd_ev_read_value(&ev->read, i, &v);
		ck_assert_uint_eq(v.value, i + 1);
		ck_assert_uint_eq(v.id, EVENT_ID + i);
		ck_assert_uint_eq(v.lost, 0);
	}
}

static void put_mmap2_head(struct tf *t, uint16_t misc)
{
	tf_begin(t, PD_REC_MMAP2, misc);
	tf_u32(t, 30);
	tf_u32(t, 31);
	tf_u64(t, 0x7f0000000000ull);
	tf_u64(t, 0x21000);
	tf_u64(t, 0x3000);
}

static void b_mmap2(struct tf *t)
{
	put_mmap2_head(t, PD_MISC_USER);
	tf_u32(t, 254);
	tf_u32(t, 1);
	tf_u64(t, 123456);
	tf_u64(t, 42);
	tf_u32(t, 5);
	tf_u32(t, 2);
	tf_str(t, "/usr/lib/libc.so.6", 24);
	put_trailer(t);
	tf_end(t);
}

static void c_mmap2_head(const struct pd_ev_mmap2 *m)
{
	ck_assert_uint_eq(m->pid, 30);
	ck_assert_uint_eq(m->tid, 31);
	ck_assert_uint_eq(m->start, 0x7f0000000000ull);
	ck_assert_uint_eq(m->len, 0x21000);
	ck_assert_uint_eq(m->pgoff, 0x3000);
	ck_assert_uint_eq(m->prot, 5);
	ck_assert_uint_eq(m->flags, 2);
}

static void c_mmap2(const struct pd_event *ev)
{
	c_mmap2_head(&ev->mmap2);
	ck_assert_int_eq(ev->mmap2.has_build_id, 0);
	ck_assert_uint_eq(ev->mmap2.maj, 254);
	ck_assert_uint_eq(ev->mmap2.min, 1);
	ck_assert_uint_eq(ev->mmap2.ino, 123456);
	ck_assert_uint_eq(ev->mmap2.ino_generation, 42);
	ck_str(ev->mmap2.filename, "/usr/lib/libc.so.6");
}

static const unsigned char build_id20[20] = {
	0xde, 0xad, 0xbe, 0xef, 1,  2,	3,  4,	5,  6,
	7,    8,    9,	  10,	11, 12, 13, 14, 15, 16,
};

static void b_mmap2_build_id(struct tf *t)
{
	put_mmap2_head(t, PD_MISC_USER | PD_MISC_MMAP_BUILD_ID);
	tf_u8(t, 20);
	tf_zero(t, 3);
	tf_bytes(t, build_id20, 20);
	tf_u32(t, 5);
	tf_u32(t, 2);
	tf_str(t, "[vdso]", 8);
	put_trailer(t);
	tf_end(t);
}

static void c_mmap2_build_id(const struct pd_event *ev)
{
	c_mmap2_head(&ev->mmap2);
	ck_assert_int_eq(ev->mmap2.has_build_id, 1);
	ck_assert_uint_eq(ev->mmap2.build_id_size, 20);
	ck_assert_mem_eq(ev->mmap2.build_id, build_id20, 20);
	ck_str(ev->mmap2.filename, "[vdso]");
}

static void b_aux(struct tf *t)
{
	tf_begin(t, PD_REC_AUX, 0);
	tf_u64(t, 0x10000);
	tf_u64(t, 0x2000);
	tf_u64(t, 0x1);
	put_trailer(t);
	tf_end(t);
}

static void c_aux(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->aux.aux_offset, 0x10000);
	ck_assert_uint_eq(ev->aux.aux_size, 0x2000);
	ck_assert_uint_eq(ev->aux.flags, 1);
}

static void b_itrace_start(struct tf *t)
{
	tf_begin(t, PD_REC_ITRACE_START, 0);
	tf_u32(t, 40);
	tf_u32(t, 41);
	put_trailer(t);
	tf_end(t);
}

static void c_itrace_start(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->itrace_start.pid, 40);
	ck_assert_uint_eq(ev->itrace_start.tid, 41);
}

static void b_lost_samples(struct tf *t)
{
	tf_begin(t, PD_REC_LOST_SAMPLES, 0);
	tf_u64(t, 77777);
	put_trailer(t);
	tf_end(t);
}

static void c_lost_samples(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->lost_samples.lost, 77777);
}

static void b_switch(struct tf *t)
{
	tf_begin(t, PD_REC_SWITCH, PD_MISC_SWITCH_OUT);
	put_trailer(t);
	tf_end(t);
}

static void c_switch(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->misc, PD_MISC_SWITCH_OUT);
}

static void b_switch_cpu_wide(struct tf *t)
{
	tf_begin(t, PD_REC_SWITCH_CPU_WIDE, 0);
	tf_u32(t, 50);
	tf_u32(t, 51);
	put_trailer(t);
	tf_end(t);
}

static void c_switch_cpu_wide(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->context_switch.next_prev_pid, 50);
	ck_assert_uint_eq(ev->context_switch.next_prev_tid, 51);
}

static void b_namespaces(struct tf *t)
{
	tf_begin(t, PD_REC_NAMESPACES, 0);
	tf_u32(t, 60);
	tf_u32(t, 61);
	tf_u64(t, 2);
	tf_u64(t, 4); /* dev */
	tf_u64(t, 0xf0000001);
	tf_u64(t, 4);
	tf_u64(t, 0xf0000002);
	put_trailer(t);
	tf_end(t);
}

static void c_namespaces(const struct pd_event *ev)
{
	const struct pd_ev_namespaces *ns = &ev->namespaces;

	ck_assert_uint_eq(ns->pid, 60);
	ck_assert_uint_eq(ns->tid, 61);
	ck_assert_uint_eq(ns->nr_namespaces, 2);
	ck_assert_uint_eq(ns->link_info.nr, 4);
	ck_assert_uint_eq(pd_u64s_get(&ns->link_info, 0), 4);
	ck_assert_uint_eq(pd_u64s_get(&ns->link_info, 1), 0xf0000001);
	ck_assert_uint_eq(pd_u64s_get(&ns->link_info, 3), 0xf0000002);
}

static void b_ksymbol(struct tf *t)
{
	tf_begin(t, PD_REC_KSYMBOL, 0);
	tf_u64(t, 0xffffffffc0001000ull);
	tf_u32(t, 0x123);
	tf_u16(t, 1);
	tf_u16(t, 0);
	tf_str(t, "bpf_prog_6deef7357e7b4530", 26);
	put_trailer(t);
	tf_end(t);
}

static void c_ksymbol(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->ksymbol.addr, 0xffffffffc0001000ull);
	ck_assert_uint_eq(ev->ksymbol.len, 0x123);
	ck_assert_uint_eq(ev->ksymbol.ksym_type, 1);
	ck_assert_uint_eq(ev->ksymbol.flags, 0);
	ck_str(ev->ksymbol.name, "bpf_prog_6deef7357e7b4530");
}

static const unsigned char tag8[8] = {0x6d, 0xee, 0xf7, 0x35,
				      0x7e, 0x7b, 0x45, 0x30};

static void b_bpf_event(struct tf *t)
{
	tf_begin(t, PD_REC_BPF_EVENT, 0);
	tf_u16(t, 1);
	tf_u16(t, 0);
	tf_u32(t, 314);
	tf_bytes(t, tag8, 8);
	put_trailer(t);
	tf_end(t);
}

static void c_bpf_event(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->bpf_event.type, 1);
	ck_assert_uint_eq(ev->bpf_event.flags, 0);
	ck_assert_uint_eq(ev->bpf_event.id, 314);
	ck_assert_mem_eq(ev->bpf_event.tag, tag8, 8);
}

static void b_cgroup(struct tf *t)
{
	tf_begin(t, PD_REC_CGROUP, 0);
	tf_u64(t, 0x2a);
	tf_str(t, "/user.slice", 16);
	put_trailer(t);
	tf_end(t);
}

static void c_cgroup(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->cgroup.id, 0x2a);
	ck_str(ev->cgroup.path, "/user.slice");
}

static const unsigned char poke_old[3] = {0x0f, 0x1f, 0x00};
static const unsigned char poke_new[2] = {0xeb, 0x05};

static void b_text_poke(struct tf *t)
{
	tf_begin(t, PD_REC_TEXT_POKE, 0);
	tf_u64(t, 0xffffffff81234567ull);
	tf_u16(t, 3);
	tf_u16(t, 2);
	tf_bytes(t, poke_old, 3);
	tf_bytes(t, poke_new, 2);
	put_trailer(t);
	tf_end(t);
}

static void c_text_poke(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->text_poke.addr, 0xffffffff81234567ull);
	ck_assert_uint_eq(ev->text_poke.old_len, 3);
	ck_assert_uint_eq(ev->text_poke.new_len, 2);
	ck_assert_mem_eq(ev->text_poke.old_bytes, poke_old, 3);
	ck_assert_mem_eq(ev->text_poke.new_bytes, poke_new, 2);
}

static void b_aux_output_hw_id(struct tf *t)
{
	tf_begin(t, PD_REC_AUX_OUTPUT_HW_ID, 0);
	tf_u64(t, 0x66);
	put_trailer(t);
	tf_end(t);
}

static void c_aux_output_hw_id(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->aux_output_hw_id.hw_id, 0x66);
}

static void b_callchain_deferred(struct tf *t)
{
	tf_begin(t, PD_REC_CALLCHAIN_DEFERRED, 0);
	tf_u64(t, 0xc00c1e);
	tf_u64(t, 3);
	tf_u64(t, PD_CONTEXT_USER);
	tf_u64(t, 0x401000);
	tf_u64(t, 0x402000);
	put_trailer(t);
	tf_end(t);
}

static void c_callchain_deferred(const struct pd_event *ev)
{
	const struct pd_ev_callchain_deferred *d = &ev->callchain_deferred;

	ck_assert_uint_eq(d->cookie, 0xc00c1e);
	ck_assert_uint_eq(d->ips.nr, 3);
	ck_assert_uint_eq(pd_u64s_get(&d->ips, 0), PD_CONTEXT_USER);
	ck_assert_uint_eq(pd_u64s_get(&d->ips, 2), 0x402000);
}

/* ---- perf's records ------------------------------------------------- */

static void b_header_attr(struct tf *t)
{
	unsigned char attr[TF_ATTR_SIZE];
	const bool be = t->big_endian;

	/* type 1, size 136, config 3 (cpu-migrations), sample_type IP */
	memset(attr, 0, sizeof(attr));
	attr[be ? 3 : 0] = 1;
	attr[be ? 7 : 4] = TF_ATTR_SIZE;
	attr[be ? 15 : 8] = 3;
	attr[be ? 31 : 24] = PD_SAMPLE_IP;
	tf_begin(t, PD_REC_HEADER_ATTR, 0);
	tf_bytes(t, attr, sizeof(attr));
	tf_u64(t, 1001);
	tf_u64(t, 1002);
	tf_end(t);
}

static void c_header_attr(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->attr.attr.type, 1);
	ck_assert_uint_eq(ev->attr.attr.size, TF_ATTR_SIZE);
	ck_assert_uint_eq(ev->attr.attr.config, 3);
	ck_assert_uint_eq(ev->attr.attr.sample_type, PD_SAMPLE_IP);
	ck_assert_uint_eq(ev->attr.ids.nr, 2);
	ck_assert_uint_eq(pd_u64s_get(&ev->attr.ids, 0), 1001);
	ck_assert_uint_eq(pd_u64s_get(&ev->attr.ids, 1), 1002);
}

static void b_event_type(struct tf *t)
{
	tf_begin(t, PD_REC_HEADER_EVENT_TYPE, 0);
	tf_u64(t, 1234);
	tf_str(t, "sched:sched_switch", 64);
	tf_end(t);
}

static void c_event_type(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->event_type.event_id, 1234);
	ck_str(ev->event_type.name, "sched:sched_switch");
}

static const char tracing[16] = "tracing data!";

/* perf: the 12-byte record padded to 16, the data after it */
static void b_tracing_data(struct tf *t)
{
	tf_begin(t, PD_REC_HEADER_TRACING_DATA, 0);
	tf_u32(t, 16);
	tf_end(t);
	tf_bytes(t, tracing, 16);
}

static void c_tracing_data(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->tracing_data.size, 16);
	/* a record copied without what follows it has no data */
	if (!ev->tracing_data.data) {
		ck_assert_uint_eq(ev->tracing_data.data_size, 0);
		return;
	}
	ck_assert_uint_eq(ev->tracing_data.data_size, 16);
	ck_assert_mem_eq(ev->tracing_data.data, tracing, 14);
}

/* simpleperf: the data inside the record */
static void b_tracing_data_inside(struct tf *t)
{
	tf_begin(t, PD_REC_HEADER_TRACING_DATA, 0);
	tf_u32(t, 14);
	tf_bytes(t, tracing, 14);
	tf_end(t);
}

static void c_tracing_data_inside(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->tracing_data.size, 14);
	ck_assert_uint_eq(ev->tracing_data.data_size, 14);
	ck_assert_mem_eq(ev->tracing_data.data, tracing, 14);
}

static void put_build_id(struct tf *t, uint16_t misc, uint8_t size)
{
	tf_begin(t, PD_REC_HEADER_BUILD_ID, misc);
	tf_u32(t, (uint32_t)-1);
	tf_bytes(t, build_id20, 20);
	tf_u8(t, size);
	tf_zero(t, 3);
	tf_str(t, "[kernel.kallsyms]", 64);
	tf_end(t);
}

static void b_build_id(struct tf *t)
{
	put_build_id(t, PD_MISC_KERNEL, 0);
}

static void b_build_id_size(struct tf *t)
{
	put_build_id(t, PD_MISC_KERNEL | PD_MISC_BUILD_ID_SIZE, 16);
}

static void c_build_id(const struct pd_event *ev)
{
	const bool sized = ev->misc & PD_MISC_BUILD_ID_SIZE;

	ck_assert_int_eq(ev->build_id.pid, -1);
	ck_assert_uint_eq(ev->build_id.size, sized ? 16 : 20);
	ck_assert_mem_eq(ev->build_id.build_id, build_id20, ev->build_id.size);
	ck_str(ev->build_id.filename, "[kernel.kallsyms]");
}

static void b_finished_round(struct tf *t)
{
	tf_begin(t, PD_REC_FINISHED_ROUND, 0);
	tf_end(t);
}

static void b_finished_init(struct tf *t)
{
	tf_begin(t, PD_REC_FINISHED_INIT, 0);
	tf_end(t);
}

static void c_nothing(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->sample_id.mask, 0);
}

static void put_id_index(struct tf *t, bool vm)
{
	tf_begin(t, PD_REC_ID_INDEX, 0);
	tf_u64(t, 2);
	for (uint64_t i = 0; i < 2; i++) {
		tf_u64(t, EVENT_ID + i);
		tf_u64(t, i);
		tf_u64(t, i + 4);
		tf_u64(t, (uint64_t)-1);
	}
	if (vm)
		for (uint64_t i = 0; i < 2; i++) {
			tf_u64(t, 900 + i);
			tf_u64(t, i);
		}
	tf_end(t);
}

static void b_id_index(struct tf *t)
{
	put_id_index(t, false);
}

static void b_id_index_vm(struct tf *t)
{
	put_id_index(t, true);
}

static void c_id_index(const struct pd_event *ev)
{
	struct pd_id_index_entry e;

	ck_assert_uint_eq(ev->id_index.nr, 2);
	for (uint64_t i = 0; i < 2; i++) {
		pd_ev_id_index_get(&ev->id_index, i, &e);
		ck_assert_uint_eq(e.id, EVENT_ID + i);
		ck_assert_uint_eq(e.idx, i);
		ck_assert_uint_eq(e.cpu, i + 4);
		ck_assert_uint_eq(e.tid, (uint64_t)-1);
		ck_assert_int_eq(e.has_vm, ev->id_index.has_vm);
		if (e.has_vm) {
			ck_assert_uint_eq(e.machine_pid, 900 + i);
			ck_assert_uint_eq(e.vcpu, i);
		}
	}
}

static void c_id_index_vm(const struct pd_event *ev)
{
	ck_assert_int_eq(ev->id_index.has_vm, 1);
	c_id_index(ev);
}

static void b_auxtrace_info(struct tf *t)
{
	tf_begin(t, PD_REC_AUXTRACE_INFO, 0);
	tf_u32(t, 6);
	tf_u32(t, 0);
	tf_u64(t, 0x111);
	tf_u64(t, 0x222);
	tf_end(t);
}

static void c_auxtrace_info(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->auxtrace_info.type, 6);
	ck_assert_uint_eq(ev->auxtrace_info.priv.nr, 2);
	ck_assert_uint_eq(pd_u64s_get(&ev->auxtrace_info.priv, 1), 0x222);
}

static const char trace_bytes[24] = "0123456789abcdefghijklm";

static void b_auxtrace(struct tf *t)
{
	tf_begin(t, PD_REC_AUXTRACE, 0);
	tf_u64(t, 24);
	tf_u64(t, 0x4000);
	tf_u64(t, 0xfeed);
	tf_u32(t, 1);
	tf_u32(t, 70);
	tf_u32(t, 2);
	tf_u32(t, 0);
	tf_end(t);
	tf_bytes(t, trace_bytes, 24);
}

static void c_auxtrace(const struct pd_event *ev)
{
	const struct pd_ev_auxtrace *a = &ev->auxtrace;

	ck_assert_uint_eq(a->size, 24);
	ck_assert_uint_eq(a->offset, 0x4000);
	ck_assert_uint_eq(a->reference, 0xfeed);
	ck_assert_uint_eq(a->idx, 1);
	ck_assert_uint_eq(a->tid, 70);
	ck_assert_uint_eq(a->cpu, 2);
	/* the data when the reader delivered it, else none */
	if (a->data) {
		ck_assert_uint_eq(a->data_size, 24);
		ck_assert_mem_eq(a->data, trace_bytes, 24);
	} else {
		ck_assert_uint_eq(a->data_size, 0);
	}
}

static void put_auxtrace_error(struct tf *t, uint32_t fmt)
{
	tf_begin(t, PD_REC_AUXTRACE_ERROR, 0);
	tf_u32(t, 1);
	tf_u32(t, 2);
	tf_u32(t, 3);
	tf_u32(t, 80);
	tf_u32(t, 81);
	tf_u32(t, fmt);
	tf_u64(t, 0x401234);
	if (fmt >= 1)
		tf_u64(t, 5555);
	if (fmt >= 2) {
		tf_str(t, "overflow", 64);
		tf_u32(t, 4321);
		tf_u32(t, 7);
	} else {
		tf_str(t, "overflow", 9);
	}
	tf_end(t);
}

static void b_auxtrace_error0(struct tf *t)
{
	put_auxtrace_error(t, 0);
}

static void b_auxtrace_error1(struct tf *t)
{
	put_auxtrace_error(t, 1);
}

static void b_auxtrace_error2(struct tf *t)
{
	put_auxtrace_error(t, 2);
}

static void c_auxtrace_error(const struct pd_event *ev)
{
	const struct pd_ev_auxtrace_error *e = &ev->auxtrace_error;

	ck_assert_uint_eq(e->type, 1);
	ck_assert_uint_eq(e->code, 2);
	ck_assert_uint_eq(e->cpu, 3);
	ck_assert_uint_eq(e->pid, 80);
	ck_assert_uint_eq(e->tid, 81);
	ck_assert_uint_eq(e->ip, 0x401234);
	ck_assert_int_eq(e->has_time, e->fmt >= 1);
	ck_assert_uint_eq(e->time, e->fmt >= 1 ? 5555 : 0);
	ck_str(e->msg, "overflow");
	ck_assert_int_eq(e->has_vm, e->fmt >= 2);
	if (e->fmt >= 2) {
		ck_assert_uint_eq(e->machine_pid, 4321);
		ck_assert_uint_eq(e->vcpu, 7);
	}
}

static void b_thread_map(struct tf *t)
{
	tf_begin(t, PD_REC_THREAD_MAP, 0);
	tf_u64(t, 2);
	tf_u64(t, 90);
	tf_str(t, "worker", 16);
	tf_u64(t, 91);
	tf_bytes(t, "sixteen-chars-xx", 16);
	tf_end(t);
}

static void c_thread_map(const struct pd_event *ev)
{
	uint64_t pid;
	struct pd_str comm;

	ck_assert_uint_eq(ev->thread_map.nr, 2);
	pd_ev_thread_map_get(&ev->thread_map, 0, &pid, &comm);
	ck_assert_uint_eq(pid, 90);
	ck_str(comm, "worker");
	pd_ev_thread_map_get(&ev->thread_map, 1, &pid, &comm);
	ck_assert_uint_eq(pid, 91);
	ck_str(comm, "sixteen-chars-xx");
}

/* perf_record_cpu_map_data, packed */
static void put_cpus(struct tf *t)
{
	tf_u16(t, PD_CPU_MAP_CPUS);
	tf_u16(t, 3);
	tf_u16(t, 0xffff);
	tf_u16(t, 2);
	tf_u16(t, 5);
}

static void put_mask32(struct tf *t)
{
	tf_u16(t, PD_CPU_MAP_MASK);
	tf_u16(t, 2);
	tf_u16(t, 4);
	tf_u32(t, 0x80000005); /* 0, 2, 31 */
	tf_u32(t, 0x2);	       /* 33 */
}

static void put_mask64(struct tf *t)
{
	tf_u16(t, PD_CPU_MAP_MASK);
	tf_u16(t, 1);
	tf_u16(t, 8);
	tf_zero(t, 4);
	tf_u64(t, 0x8000000000000003ull); /* 0, 1, 63 */
}

/* any_cpu is a flag: a writer's 2 still means one -1 */
static void put_range(struct tf *t)
{
	tf_u16(t, PD_CPU_MAP_RANGE);
	tf_u8(t, 2);
	tf_u8(t, 0);
	tf_u16(t, 4);
	tf_u16(t, 6);
}

static void check_cpus(const struct pd_cpu_map *m, const int *want, size_t n)
{
	uint64_t pos = 0;
	size_t i = 0;
	int cpu;

	while (pd_cpu_map_next(m, &pos, &cpu)) {
		ck_assert_uint_lt(i, n);
		ck_assert_int_eq(cpu, want[i]);
		i++;
	}
	ck_assert_uint_eq(i, n);
}

static void c_cpu_map_any(const struct pd_cpu_map *m)
{
	static const int cpus[] = {-1, 2, 5};
	static const int mask32[] = {0, 2, 31, 33};
	static const int mask64[] = {0, 1, 63};
	static const int range[] = {-1, 4, 5, 6};

	switch (m->type) {
	case PD_CPU_MAP_CPUS:
		check_cpus(m, cpus, 3);
		break;
	case PD_CPU_MAP_MASK:
		if (m->long_size == 4)
			check_cpus(m, mask32, 4);
		else
			check_cpus(m, mask64, 3);
		break;
	case PD_CPU_MAP_RANGE:
		ck_assert_uint_eq(m->start_cpu, 4);
		ck_assert_uint_eq(m->end_cpu, 6);
		check_cpus(m, range, 4);
		break;
	default:
		ck_abort_msg("cpu map type %u", m->type);
	}
}

#define CPU_MAP_CASE(form)                                                     \
	static void b_cpu_map_##form(struct tf *t)                             \
	{                                                                      \
		tf_begin(t, PD_REC_CPU_MAP, 0);                                \
		put_##form(t);                                                 \
		tf_end(t);                                                     \
	}                                                                      \
	static void b_update_##form(struct tf *t)                              \
	{                                                                      \
		tf_begin(t, PD_REC_EVENT_UPDATE, 0);                           \
		tf_u64(t, PD_EVENT_UPDATE_CPUS);                               \
		tf_u64(t, EVENT_ID);                                           \
		put_##form(t);                                                 \
		tf_end(t);                                                     \
	}
CPU_MAP_CASE(cpus)
CPU_MAP_CASE(mask32)
CPU_MAP_CASE(mask64)
CPU_MAP_CASE(range)

static void c_cpu_map(const struct pd_event *ev)
{
	c_cpu_map_any(&ev->cpu_map);
}

static void c_update_cpus(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->event_update.type, PD_EVENT_UPDATE_CPUS);
	ck_assert_uint_eq(ev->event_update.id, EVENT_ID);
	c_cpu_map_any(&ev->event_update.cpus);
}

static void b_stat_config(struct tf *t)
{
	tf_begin(t, PD_REC_STAT_CONFIG, 0);
	tf_u64(t, 3);
	for (uint64_t i = 0; i < 3; i++) {
		tf_u64(t, i);
		tf_u64(t, 100 + i);
	}
	tf_end(t);
}

static void c_stat_config(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->stat_config.nr, 3);
	ck_assert_uint_eq(ev->stat_config.data.nr, 6);
	ck_assert_uint_eq(pd_u64s_get(&ev->stat_config.data, 4), 2);
	ck_assert_uint_eq(pd_u64s_get(&ev->stat_config.data, 5), 102);
}

static void b_stat(struct tf *t)
{
	tf_begin(t, PD_REC_STAT, 0);
	tf_u64(t, EVENT_ID);
	tf_u32(t, 1);
	tf_u32(t, 2);
	tf_u64(t, 1000);
	tf_u64(t, 2000);
	tf_u64(t, 1900);
	tf_end(t);
}

static void c_stat(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->stat.id, EVENT_ID);
	ck_assert_uint_eq(ev->stat.cpu, 1);
	ck_assert_uint_eq(ev->stat.thread, 2);
	ck_assert_uint_eq(ev->stat.val, 1000);
	ck_assert_uint_eq(ev->stat.ena, 2000);
	ck_assert_uint_eq(ev->stat.run, 1900);
}

static void b_stat_round(struct tf *t)
{
	tf_begin(t, PD_REC_STAT_ROUND, 0);
	tf_u64(t, 1);
	tf_u64(t, 987654321);
	tf_end(t);
}

static void c_stat_round(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->stat_round.type, 1);
	ck_assert_uint_eq(ev->stat_round.time, 987654321);
}

static void put_update_str(struct tf *t, uint64_t type, const char *s)
{
	tf_begin(t, PD_REC_EVENT_UPDATE, 0);
	tf_u64(t, type);
	tf_u64(t, EVENT_ID);
	tf_str(t, s, 16);
	tf_end(t);
}

static void b_update_unit(struct tf *t)
{
	put_update_str(t, PD_EVENT_UPDATE_UNIT, "msec");
}

static void b_update_name(struct tf *t)
{
	put_update_str(t, PD_EVENT_UPDATE_NAME, "task-clock");
}

static void c_update_str(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->event_update.id, EVENT_ID);
	ck_str(ev->event_update.str,
	       ev->event_update.type == PD_EVENT_UPDATE_UNIT ? "msec"
							     : "task-clock");
}

static void b_update_scale(struct tf *t)
{
	const double scale = 1e-6;
	uint64_t bits;

	memcpy(&bits, &scale, sizeof(bits));
	tf_begin(t, PD_REC_EVENT_UPDATE, 0);
	tf_u64(t, PD_EVENT_UPDATE_SCALE);
	tf_u64(t, EVENT_ID);
	tf_u64(t, bits);
	tf_end(t);
}

static void c_update_scale(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->event_update.type, PD_EVENT_UPDATE_SCALE);
	ck_assert(ev->event_update.scale == 1e-6);
}

static void put_time_conv(struct tf *t, bool long_form)
{
	tf_begin(t, PD_REC_TIME_CONV, 0);
	tf_u64(t, 31);
	tf_u64(t, 1000000);
	tf_u64(t, 0x123456789ull);
	if (long_form) {
		tf_u64(t, 0xabc);
		tf_u64(t, 0xffffffffffffull);
		tf_u8(t, 1);
		tf_u8(t, 1);
		tf_zero(t, 6);
	}
	tf_end(t);
}

static void b_time_conv(struct tf *t)
{
	put_time_conv(t, false);
}

static void b_time_conv_long(struct tf *t)
{
	put_time_conv(t, true);
}

static void c_time_conv(const struct pd_event *ev)
{
	const struct pd_ev_time_conv *tc = &ev->time_conv;

	ck_assert_uint_eq(tc->time_shift, 31);
	ck_assert_uint_eq(tc->time_mult, 1000000);
	ck_assert_uint_eq(tc->time_zero, 0x123456789ull);
	if (!tc->has_long)
		return;
	ck_assert_uint_eq(tc->time_cycles, 0xabc);
	ck_assert_uint_eq(tc->time_mask, 0xffffffffffffull);
	ck_assert_uint_eq(tc->cap_user_time_zero, 1);
	ck_assert_uint_eq(tc->cap_user_time_short, 1);
}

static void c_time_conv_long(const struct pd_event *ev)
{
	ck_assert_int_eq(ev->time_conv.has_long, 1);
	c_time_conv(ev);
}

static void b_header_feature(struct tf *t)
{
	tf_begin(t, PD_REC_HEADER_FEATURE, 0);
	tf_u64(t, PD_FEAT_HOSTNAME);
	tf_u32(t, 8);
	tf_str(t, "myhost", 8);
	tf_end(t);
}

static void c_header_feature(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->feature.feat_id, PD_FEAT_HOSTNAME);
	ck_assert_uint_eq(ev->feature.size, 16);
	ck_assert_mem_eq(ev->feature.data + 4, "myhost", 7);
}

static const unsigned char zbytes[5] = {0x28, 0xb5, 0x2f, 0xfd, 0x00};

static void b_compressed(struct tf *t)
{
	tf_begin(t, PD_REC_COMPRESSED, 0);
	tf_bytes(t, zbytes, 5);
	tf_end(t);
}

static void c_compressed(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->compressed.data_size, 8); /* with the pad */
	ck_assert_mem_eq(ev->compressed.data, zbytes, 5);
}

static void b_compressed2(struct tf *t)
{
	tf_begin(t, PD_REC_COMPRESSED2, 0);
	tf_u64(t, 5);
	tf_bytes(t, zbytes, 5);
	tf_end(t);
}

static void c_compressed2(const struct pd_event *ev)
{
	ck_assert_uint_eq(ev->compressed.data_size, 5);
	ck_assert_uint_eq(ev->compressed.avail, 8);
	ck_assert_mem_eq(ev->compressed.data, zbytes, 5);
}

static void put_bpf_metadata(struct tf *t, size_t name_len)
{
	tf_begin(t, PD_REC_BPF_METADATA, 0);
	tf_str(t, "my_prog", name_len);
	tf_u64(t, 2);
	tf_str(t, "bpf_metadata_a", 64);
	tf_str(t, "1", 256);
	tf_str(t, "bpf_metadata_b", 64);
	tf_str(t, "\"str\"", 256);
	tf_end(t);
}

static void b_bpf_metadata(struct tf *t)
{
	put_bpf_metadata(t, 256);
}

static void b_bpf_metadata512(struct tf *t)
{
	put_bpf_metadata(t, 512);
}

static void c_bpf_metadata(const struct pd_event *ev)
{
	struct pd_str key, value;

	ck_str(ev->bpf_metadata.prog_name, "my_prog");
	ck_assert_uint_eq(ev->bpf_metadata.nr_entries, 2);
	pd_ev_bpf_metadata_get(&ev->bpf_metadata, 1, &key, &value);
	ck_str(key, "bpf_metadata_b");
	ck_str(value, "\"str\"");
}

/* ---- the table ------------------------------------------------------ */

#define K(n) (8 + (n) + TRAILER) /* shortest kernel record, body n */

static const struct ev_case ev_cases[] = {
	{"MMAP", PD_REC_MMAP, 0, K(32), b_mmap, c_mmap},
	{"LOST", PD_REC_LOST, 0, K(16), b_lost, c_lost},
	{"COMM", PD_REC_COMM, 0, K(8), b_comm, c_comm},
	{"EXIT", PD_REC_EXIT, 0, K(24), b_exit, c_fork},
	{"THROTTLE", PD_REC_THROTTLE, 0, K(24), b_throttle, c_throttle},
	{"UNTHROTTLE", PD_REC_UNTHROTTLE, 0, K(24), b_unthrottle, c_throttle},
	{"FORK", PD_REC_FORK, 0, K(24), b_fork, c_fork},
	{"READ", PD_REC_READ, RF_ONE, K(48), b_read, c_read},
	{"READ group", PD_REC_READ, RF_GROUP, K(56), b_read_group,
	 c_read_group},
	{"MMAP2", PD_REC_MMAP2, 0, K(64), b_mmap2, c_mmap2},
	{"MMAP2 build-id", PD_REC_MMAP2, 0, K(64), b_mmap2_build_id,
	 c_mmap2_build_id},
	{"AUX", PD_REC_AUX, 0, K(24), b_aux, c_aux},
	{"ITRACE_START", PD_REC_ITRACE_START, 0, K(8), b_itrace_start,
	 c_itrace_start},
	{"LOST_SAMPLES", PD_REC_LOST_SAMPLES, 0, K(8), b_lost_samples,
	 c_lost_samples},
	{"SWITCH", PD_REC_SWITCH, 0, K(0), b_switch, c_switch},
	{"SWITCH_CPU_WIDE", PD_REC_SWITCH_CPU_WIDE, 0, K(8), b_switch_cpu_wide,
	 c_switch_cpu_wide},
	{"NAMESPACES", PD_REC_NAMESPACES, 0, K(48), b_namespaces, c_namespaces},
	{"KSYMBOL", PD_REC_KSYMBOL, 0, K(16), b_ksymbol, c_ksymbol},
	{"BPF_EVENT", PD_REC_BPF_EVENT, 0, K(16), b_bpf_event, c_bpf_event},
	{"CGROUP", PD_REC_CGROUP, 0, K(8), b_cgroup, c_cgroup},
	{"TEXT_POKE", PD_REC_TEXT_POKE, 0, K(17), b_text_poke, c_text_poke},
	{"AUX_OUTPUT_HW_ID", PD_REC_AUX_OUTPUT_HW_ID, 0, K(8),
	 b_aux_output_hw_id, c_aux_output_hw_id},
	{"CALLCHAIN_DEFERRED", PD_REC_CALLCHAIN_DEFERRED, 0, K(40),
	 b_callchain_deferred, c_callchain_deferred},

	{"HEADER_ATTR", PD_REC_HEADER_ATTR, 0, 8 + TF_ATTR_SIZE, b_header_attr,
	 c_header_attr},
	{"HEADER_EVENT_TYPE", PD_REC_HEADER_EVENT_TYPE, 0, 16, b_event_type,
	 c_event_type},
	{"HEADER_TRACING_DATA", PD_REC_HEADER_TRACING_DATA, 0, 12,
	 b_tracing_data, c_tracing_data},
	{"HEADER_TRACING_DATA inside", PD_REC_HEADER_TRACING_DATA, 0, 12,
	 b_tracing_data_inside, c_tracing_data_inside},
	{"HEADER_BUILD_ID", PD_REC_HEADER_BUILD_ID, 0, 36, b_build_id,
	 c_build_id},
	{"HEADER_BUILD_ID sized", PD_REC_HEADER_BUILD_ID, 0, 36,
	 b_build_id_size, c_build_id},
	{"FINISHED_ROUND", PD_REC_FINISHED_ROUND, 0, 8, b_finished_round,
	 c_nothing},
	{"ID_INDEX", PD_REC_ID_INDEX, 0, 80, b_id_index, c_id_index},
	{"ID_INDEX vm", PD_REC_ID_INDEX, 0, 80, b_id_index_vm, c_id_index_vm},
	{"AUXTRACE_INFO", PD_REC_AUXTRACE_INFO, 0, 16, b_auxtrace_info,
	 c_auxtrace_info},
	{"AUXTRACE", PD_REC_AUXTRACE, 0, 44, b_auxtrace, c_auxtrace},
	{"AUXTRACE_ERROR fmt 0", PD_REC_AUXTRACE_ERROR, 0, 40,
	 b_auxtrace_error0, c_auxtrace_error},
	{"AUXTRACE_ERROR fmt 1", PD_REC_AUXTRACE_ERROR, 0, 48,
	 b_auxtrace_error1, c_auxtrace_error},
	{"AUXTRACE_ERROR fmt 2", PD_REC_AUXTRACE_ERROR, 0, 48,
	 b_auxtrace_error2, c_auxtrace_error},
	{"THREAD_MAP", PD_REC_THREAD_MAP, 0, 64, b_thread_map, c_thread_map},
	{"CPU_MAP cpus", PD_REC_CPU_MAP, 0, 18, b_cpu_map_cpus, c_cpu_map},
	{"CPU_MAP mask32", PD_REC_CPU_MAP, 0, 22, b_cpu_map_mask32, c_cpu_map},
	{"CPU_MAP mask64", PD_REC_CPU_MAP, 0, 26, b_cpu_map_mask64, c_cpu_map},
	{"CPU_MAP range", PD_REC_CPU_MAP, 0, 16, b_cpu_map_range, c_cpu_map},
	{"STAT_CONFIG", PD_REC_STAT_CONFIG, 0, 64, b_stat_config,
	 c_stat_config},
	{"STAT", PD_REC_STAT, 0, 56, b_stat, c_stat},
	{"STAT_ROUND", PD_REC_STAT_ROUND, 0, 24, b_stat_round, c_stat_round},
	{"EVENT_UPDATE unit", PD_REC_EVENT_UPDATE, 0, 24, b_update_unit,
	 c_update_str},
	{"EVENT_UPDATE scale", PD_REC_EVENT_UPDATE, 0, 32, b_update_scale,
	 c_update_scale},
	{"EVENT_UPDATE name", PD_REC_EVENT_UPDATE, 0, 24, b_update_name,
	 c_update_str},
	{"EVENT_UPDATE cpus", PD_REC_EVENT_UPDATE, 0, 34, b_update_cpus,
	 c_update_cpus},
	{"EVENT_UPDATE mask32", PD_REC_EVENT_UPDATE, 0, 38, b_update_mask32,
	 c_update_cpus},
	{"EVENT_UPDATE mask64", PD_REC_EVENT_UPDATE, 0, 42, b_update_mask64,
	 c_update_cpus},
	{"EVENT_UPDATE range", PD_REC_EVENT_UPDATE, 0, 32, b_update_range,
	 c_update_cpus},
	{"TIME_CONV", PD_REC_TIME_CONV, 0, 32, b_time_conv, c_time_conv},
	{"TIME_CONV long", PD_REC_TIME_CONV, 0, 32, b_time_conv_long,
	 c_time_conv_long},
	{"HEADER_FEATURE", PD_REC_HEADER_FEATURE, 0, 16, b_header_feature,
	 c_header_feature},
	{"COMPRESSED", PD_REC_COMPRESSED, 0, 8, b_compressed, c_compressed},
	{"FINISHED_INIT", PD_REC_FINISHED_INIT, 0, 8, b_finished_init,
	 c_nothing},
	{"COMPRESSED2", PD_REC_COMPRESSED2, 0, 21, b_compressed2,
	 c_compressed2},
	{"BPF_METADATA", PD_REC_BPF_METADATA, 0, 8 + 256 + 8 + 640,
	 b_bpf_metadata, c_bpf_metadata},
	{"BPF_METADATA 512", PD_REC_BPF_METADATA, 0, 8 + 512 + 8 + 640,
	 b_bpf_metadata512, c_bpf_metadata},
};
#define NR_EV_CASES ((int)(sizeof(ev_cases) / sizeof(ev_cases[0])))

static void build_file(struct tf *t, bool be, uint64_t read_format)
{
	struct tf_attr a;
	const uint64_t ids[] = {EVENT_ID, EVENT_ID + 1};

	memset(&a, 0, sizeof(a));
	a.type = 1;
	a.sample_period = 1000;
	a.sample_type = ID_SAMPLE_TYPE | PD_SAMPLE_IP;
	a.read_format = read_format;
	a.flags = 1ull << PD_ATTR_sample_id_all;
	tf_init(t, be);
	tf_add_attr(t, &a, ids, 2);
}

static void check_trailer(const struct pd_event *ev)
{
	const struct pd_sample_id *s = &ev->sample_id;

	ck_assert_uint_eq(s->mask, ID_SAMPLE_TYPE);
	ck_assert_uint_eq(s->pid, T_PID);
	ck_assert_uint_eq(s->tid, T_TID);
	ck_assert_uint_eq(s->time, T_TIME);
	ck_assert_uint_eq(s->id, EVENT_ID);
	ck_assert_uint_eq(s->stream_id, T_STREAM);
	ck_assert_uint_eq(s->cpu, T_CPU);
}

/* bytes that follow the record in the stream */
static uint64_t case_payload(const struct ev_case *c)
{
	if (c->build == b_auxtrace)
		return 24;
	if (c->build == b_tracing_data)
		return 16;
	return 0;
}

START_TEST(test_event_case)
{
	const struct ev_case *c = &ev_cases[_i / 2];
	const bool be = _i & 1;
	const bool kernel = c->type < PD_REC_USER_TYPE_START;
	struct tf t;
	struct pd_file *f;
	struct pd_reader *r;
	struct pd_rec rec;
	struct pd_event ev;
	uint32_t size;
	int rc;

	build_file(&t, be, c->read_format);
	c->build(&t);
	f = tf_open(&t);

	/* through the reader, payloads included */
	ck_assert_int_eq(pd_reader_new(f, PD_READ_KEEP_COMPRESSED, &r), 0);
	ck_assert_int_eq(pd_reader_next(r, &rec), 1);
	ck_assert_uint_eq(rec.type, c->type);
	ck_assert_uint_eq(rec.payload_size, case_payload(c));
	size = rec.size;
	rc = pd_event_decode(f, &rec, &ev);
	ck_assert_msg(rc == 0, "%s (%s): %d %s", c->name, be ? "BE" : "LE", rc,
		      pd_file_errmsg(f));
	ck_assert_uint_eq(ev.type, c->type);
	c->check(&ev);
	if (c->type == PD_REC_AUXTRACE)
		ck_assert_ptr_eq(ev.auxtrace.data, rec.payload);
	if (c->type == PD_REC_HEADER_TRACING_DATA && case_payload(c))
		ck_assert_ptr_eq(ev.tracing_data.data, rec.payload);
	if (kernel)
		check_trailer(&ev);
	else
		ck_assert_uint_eq(ev.sample_id.mask, 0);
	ck_assert_int_eq(pd_reader_next(r, &rec), 0);
	ck_assert_int_eq(pd_reader_stats(r)->damaged, 0);
	pd_reader_free(r);

	/* the record in its own heap block, then every truncation */
	for (uint32_t len = size; len >= 8; len--) {
		struct pd_rec cut = tf_rec_copy(&t, 0, len);

		rc = pd_event_decode(f, &cut, &ev);
		if (len == size) {
			ck_assert_int_eq(rc, 0);
			c->check(&ev);
		} else if (c->build == b_bpf_metadata512 &&
			   len == 8 + 256 + 8) {
			/* exactly a 256-byte-name record with no entries:
			 * the two forms cannot be told apart there */
			ck_assert_int_eq(rc, 0);
			ck_assert_uint_eq(ev.bpf_metadata.nr_entries, 0);
		} else if (len < c->min_len) {
			ck_assert_msg(rc == PD_ERR_FORMAT,
				      "%s (%s) cut to %u of %u: rc %d", c->name,
				      be ? "BE" : "LE", len, size, rc);
			ck_assert_str_ne(pd_file_errmsg(f), "");
		} else {
			ck_assert_msg(rc == 0 || rc == PD_ERR_FORMAT,
				      "%s cut to %u: rc %d", c->name, len, rc);
		}
		tf_rec_free(&cut);
	}
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

/* Every known type has a case above; unknown ones are not errors. */
START_TEST(test_event_unknown)
{
	static const uint32_t unknown[] = {0, 23, 50, 63, 85, 99, 1000};
	struct tf t;
	struct pd_file *f;
	struct pd_rec rec;
	struct pd_event ev;

	for (uint32_t type = 1; type < PD_REC_TYPE_MAX; type++) {
		bool covered = false;

		if (!pd_rec_type_name(type) || type == PD_REC_SAMPLE)
			continue;
		for (int i = 0; i < NR_EV_CASES; i++)
			covered |= ev_cases[i].type == type;
		ck_assert_msg(covered, "no test case for record type %u", type);
	}
	build_file(&t, false, 0);
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		tf_begin(&t, unknown[i], 0);
		tf_u64(&t, 1);
		put_trailer(&t);
		tf_end(&t);
	}
	tf_begin(&t, PD_REC_SAMPLE, 0);
	tf_zero(&t, 56);
	tf_end(&t);
	f = tf_open(&t);
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		rec = tf_rec_copy(&t, i * 64, 64);
		ck_assert_uint_eq(rec.type, unknown[i]);
		ck_assert_int_eq(pd_event_decode(f, &rec, &ev),
				 PD_EVENT_UNKNOWN);
		ck_assert_uint_eq(ev.type, unknown[i]);
		tf_rec_free(&rec);
	}
	rec = tf_rec_copy(&t, 7 * 64, 64);
	ck_assert_int_eq(pd_event_decode(f, &rec, &ev), PD_ERR_API);
	tf_rec_free(&rec);
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

/*
 * Two events with sample_id_all but no IDENTIFIER: the trailer's event is
 * the first one; a string body still ends before the trailer.  Without
 * sample_id_all there is no trailer and the string runs to the end.
 */
START_TEST(test_event_trailer_rules)
{
	struct tf t;
	struct tf_attr a;
	struct pd_file *f;
	struct pd_rec rec;
	struct pd_event ev;
	const uint64_t ids0[] = {1}, ids1[] = {2};

	memset(&a, 0, sizeof(a));
	tf_init(&t, _i);
	a.type = 1;
	a.sample_type = PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ID;
	a.flags = 1ull << PD_ATTR_sample_id_all;
	tf_add_attr(&t, &a, ids0, 1);
	tf_add_attr(&t, &a, ids1, 1);
	tf_begin(&t, PD_REC_COMM, 0);
	tf_u32(&t, 1);
	tf_u32(&t, 1);
	tf_bytes(&t, "abcdefgh", 8); /* no NUL */
	tf_u32(&t, 5);
	tf_u32(&t, 6);
	tf_u64(&t, 7);
	tf_u64(&t, 2);
	tf_end(&t);
	f = tf_open(&t);
	rec = tf_rec_copy(&t, 0, 48);
	ck_assert_int_eq(pd_event_decode(f, &rec, &ev), 0);
	ck_str(ev.comm.comm, "abcdefgh");
	ck_assert_uint_eq(ev.sample_id.mask,
			  PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ID);
	ck_assert_uint_eq(ev.sample_id.pid, 5);
	ck_assert_uint_eq(ev.sample_id.time, 7);
	ck_assert_uint_eq(ev.sample_id.id, 2);
	ck_assert_ptr_eq(ev.sample_id.evsel, pd_file_evsel(f, 1));
	tf_rec_free(&rec);
	pd_file_close(f);
	tf_release(&t);

	tf_init(&t, _i);
	a.flags = 0;
	tf_add_attr(&t, &a, ids0, 1);
	tf_begin(&t, PD_REC_COMM, 0);
	tf_u32(&t, 1);
	tf_u32(&t, 1);
	tf_bytes(&t, "abcdefghijklmnop", 16);
	tf_end(&t);
	f = tf_open(&t);
	rec = tf_rec_copy(&t, 0, 32);
	ck_assert_int_eq(pd_event_decode(f, &rec, &ev), 0);
	ck_str(ev.comm.comm, "abcdefghijklmnop");
	ck_assert_uint_eq(ev.sample_id.mask, 0);
	tf_rec_free(&rec);
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

/* Counts that do not fit their record fail without wrapping. */
START_TEST(test_event_huge_counts)
{
	static const uint32_t types[] = {
		PD_REC_NAMESPACES,  PD_REC_CALLCHAIN_DEFERRED,
		PD_REC_ID_INDEX,    PD_REC_THREAD_MAP,
		PD_REC_STAT_CONFIG, PD_REC_BPF_METADATA};
	static const uint64_t counts[] = {~0ull, 1ull << 60, 1ull << 59};
	struct tf t;
	struct pd_file *f;
	struct pd_rec rec;
	struct pd_event ev;
	size_t at = 0;

	build_file(&t, false, 0);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]);
		     c++) {
			tf_begin(&t, types[i], 0);
			/* the count sits at body offset 0 or 8 (pid/tid or
			 * cookie first); fill both */
			tf_u64(&t, counts[c]);
			tf_u64(&t, counts[c]);
			tf_zero(&t, 16);
			put_trailer(&t);
			tf_end(&t);
		}
	f = tf_open(&t);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]);
		     c++) {
			rec = tf_rec_copy(&t, at, 88);
			ck_assert_msg(pd_event_decode(f, &rec, &ev) ==
					      PD_ERR_FORMAT,
				      "type %u count %zu", types[i], c);
			tf_rec_free(&rec);
			at += 88;
		}
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

/* a CPU mask word that is neither 4 nor 8 bytes, an unknown map type */
START_TEST(test_event_cpu_map_bad)
{
	struct tf t;
	struct pd_file *f;
	struct pd_rec rec;
	struct pd_event ev;

	build_file(&t, _i, 0);
	tf_begin(&t, PD_REC_CPU_MAP, 0);
	tf_u16(&t, PD_CPU_MAP_MASK);
	tf_u16(&t, 1);
	tf_u16(&t, 2);
	tf_u16(&t, 0xffff);
	tf_end(&t);
	tf_begin(&t, PD_REC_CPU_MAP, 0);
	tf_u16(&t, 7);
	tf_zero(&t, 6);
	tf_end(&t);
	f = tf_open(&t);
	rec = tf_rec_copy(&t, 0, 16);
	ck_assert_int_eq(pd_event_decode(f, &rec, &ev), PD_ERR_FORMAT);
	tf_rec_free(&rec);
	rec = tf_rec_copy(&t, 16, 16);
	ck_assert_int_eq(pd_event_decode(f, &rec, &ev), PD_ERR_UNSUPPORTED);
	tf_rec_free(&rec);
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

/*
 * pd_lost_decode(): the counts of LOST and LOST_SAMPLES from the body,
 * with or without a trailer, in both byte orders; every cut shorter than
 * the count is PD_ERR_FORMAT, and another type PD_ERR_API.
 */
START_TEST(test_lost_decode)
{
	const bool be = _i & 1;
	struct tf t;
	struct pd_file *f;
	struct pd_ev_lost lost;
	size_t at[3], len[3];
	const uint32_t min[2] = {24, 16};

	build_file(&t, be, 0);
	at[0] = t.data.len;
	b_lost(&t);
	at[1] = t.data.len;
	b_lost_samples(&t);
	at[2] = t.data.len;
	b_comm(&t);
	len[0] = at[1] - at[0];
	len[1] = at[2] - at[1];
	len[2] = t.data.len - at[2];
	f = tf_open(&t);
	for (int i = 0; i < 2; i++) {
		for (uint32_t n = (uint32_t)len[i]; n >= 8; n--) {
			struct pd_rec cut = tf_rec_copy(&t, at[i], n);
			int rc = pd_lost_decode(f, &cut, &lost);

			if (n < min[i]) {
				ck_assert_int_eq(rc, PD_ERR_FORMAT);
				ck_assert_str_ne(pd_file_errmsg(f), "");
				ck_assert_uint_eq(lost.lost, 0);
			} else {
				ck_assert_int_eq(rc, 0);
				ck_assert_uint_eq(lost.lost,
						  i == 0 ? 12345 : 77777);
				ck_assert_uint_eq(lost.id,
						  i == 0 ? EVENT_ID : 0);
			}
			tf_rec_free(&cut);
		}
	}
	{
		struct pd_rec comm = tf_rec_copy(&t, at[2], (uint32_t)len[2]);

		ck_assert_int_eq(pd_lost_decode(f, &comm, &lost), PD_ERR_API);
		tf_rec_free(&comm);
	}
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

Suite *event_suite(void)
{
	Suite *s = suite_create("event");
	TCase *tc = tcase_create("decode");

	tcase_add_loop_test(tc, test_event_case, 0, 2 * NR_EV_CASES);
	tcase_add_test(tc, test_event_unknown);
	tcase_add_loop_test(tc, test_lost_decode, 0, 2);
	tcase_add_loop_test(tc, test_event_trailer_rules, 0, 2);
	tcase_add_test(tc, test_event_huge_counts);
	tcase_add_loop_test(tc, test_event_cpu_map_bad, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
