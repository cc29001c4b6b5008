/*
 * pda_recdump.c - perf_event_attr as `perf record -vv` prints it (perf
 * 6.1's perf_event_attr__fprintf): the non-zero fields in the kernel
 * ABI's order, bit sets by name.  The same text from pdtool and from
 * perf makes their attrs comparable line by line, also for events the
 * kernel refuses (both print the attr before the call).
 */
#include "pda_record_priv.h"

#include <inttypes.h>
#include <stdio.h>

struct bit_name {
	uint64_t bit;
	const char *name;
};

#define BIT(prefix, n) { prefix##n, #n }

static const struct bit_name sample_bits[] = {
	BIT(PERF_SAMPLE_, IP), BIT(PERF_SAMPLE_, TID), BIT(PERF_SAMPLE_, TIME),
	BIT(PERF_SAMPLE_, ADDR), BIT(PERF_SAMPLE_, READ),
	BIT(PERF_SAMPLE_, CALLCHAIN), BIT(PERF_SAMPLE_, ID),
	BIT(PERF_SAMPLE_, CPU), BIT(PERF_SAMPLE_, PERIOD),
	BIT(PERF_SAMPLE_, STREAM_ID), BIT(PERF_SAMPLE_, RAW),
	BIT(PERF_SAMPLE_, BRANCH_STACK), BIT(PERF_SAMPLE_, REGS_USER),
	BIT(PERF_SAMPLE_, STACK_USER), BIT(PERF_SAMPLE_, IDENTIFIER),
	BIT(PERF_SAMPLE_, REGS_INTR), BIT(PERF_SAMPLE_, DATA_SRC),
	BIT(PERF_SAMPLE_, WEIGHT), BIT(PERF_SAMPLE_, PHYS_ADDR),
	BIT(PERF_SAMPLE_, AUX), BIT(PERF_SAMPLE_, CGROUP),
	BIT(PERF_SAMPLE_, DATA_PAGE_SIZE), BIT(PERF_SAMPLE_, CODE_PAGE_SIZE),
	BIT(PERF_SAMPLE_, WEIGHT_STRUCT), {0, NULL},
};

static const struct bit_name read_bits[] = {
	BIT(PERF_FORMAT_, TOTAL_TIME_ENABLED),
	BIT(PERF_FORMAT_, TOTAL_TIME_RUNNING), BIT(PERF_FORMAT_, ID),
	BIT(PERF_FORMAT_, GROUP), BIT(PERF_FORMAT_, LOST), {0, NULL},
};

static const struct bit_name branch_bits[] = {
	BIT(PERF_SAMPLE_BRANCH_, USER), BIT(PERF_SAMPLE_BRANCH_, KERNEL),
	BIT(PERF_SAMPLE_BRANCH_, HV), BIT(PERF_SAMPLE_BRANCH_, ANY),
	BIT(PERF_SAMPLE_BRANCH_, ANY_CALL), BIT(PERF_SAMPLE_BRANCH_, ANY_RETURN),
	BIT(PERF_SAMPLE_BRANCH_, IND_CALL), BIT(PERF_SAMPLE_BRANCH_, ABORT_TX),
	BIT(PERF_SAMPLE_BRANCH_, IN_TX), BIT(PERF_SAMPLE_BRANCH_, NO_TX),
	BIT(PERF_SAMPLE_BRANCH_, COND), BIT(PERF_SAMPLE_BRANCH_, CALL_STACK),
	BIT(PERF_SAMPLE_BRANCH_, IND_JUMP), BIT(PERF_SAMPLE_BRANCH_, CALL),
	BIT(PERF_SAMPLE_BRANCH_, NO_FLAGS), BIT(PERF_SAMPLE_BRANCH_, NO_CYCLES),
	BIT(PERF_SAMPLE_BRANCH_, TYPE_SAVE), BIT(PERF_SAMPLE_BRANCH_, HW_INDEX),
	BIT(PERF_SAMPLE_BRANCH_, PRIV_SAVE), {0, NULL},
};

static void line(struct pdc_strbuf *b, const char *name, const char *value)
{
	pdc_strbuf_addf(b, "  %-32s %s\n", name, value);
}

static void bits(struct pdc_strbuf *b, const char *name, uint64_t v,
		 const struct bit_name *names)
{
	char buf[512];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; names[i].name && len < sizeof(buf); i++)
		if (v & names[i].bit)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len,
						"%s%s", len ? "|" : "",
						names[i].name);
	line(b, name, buf);
}

/* A non-zero value, in decimal or (hex) as perf's %#x. */
static void value(struct pdc_strbuf *b, const char *name, uint64_t v,
		  bool hex)
{
	char buf[32];

	if (!v)
		return;
	snprintf(buf, sizeof(buf), hex ? "%#" PRIx64 : "%" PRIu64, v);
	line(b, name, buf);
}

static void num(struct pdc_strbuf *b, const char *name, uint64_t v)
{
	value(b, name, v, false);
}

static void hex(struct pdc_strbuf *b, const char *name, uint64_t v)
{
	value(b, name, v, true);
}

void rec_attr_text(const struct perf_event_attr *a, struct pdc_strbuf *b)
{
	/* the flag bits in the ABI's order, as perf prints them */
	const struct {
		const char *name;
		uint64_t v;
	} flags[] = {
		{"disabled", a->disabled},
		{"inherit", a->inherit},
		{"pinned", a->pinned},
		{"exclusive", a->exclusive},
		{"exclude_user", a->exclude_user},
		{"exclude_kernel", a->exclude_kernel},
		{"exclude_hv", a->exclude_hv},
		{"exclude_idle", a->exclude_idle},
		{"mmap", a->mmap},
		{"comm", a->comm},
		{"freq", a->freq},
		{"inherit_stat", a->inherit_stat},
		{"enable_on_exec", a->enable_on_exec},
		{"task", a->task},
		{"watermark", a->watermark},
		{"precise_ip", a->precise_ip},
		{"mmap_data", a->mmap_data},
		{"sample_id_all", a->sample_id_all},
		{"exclude_host", a->exclude_host},
		{"exclude_guest", a->exclude_guest},
		{"exclude_callchain_kernel", a->exclude_callchain_kernel},
		{"exclude_callchain_user", a->exclude_callchain_user},
		{"mmap2", a->mmap2},
		{"comm_exec", a->comm_exec},
		{"use_clockid", a->use_clockid},
		{"context_switch", a->context_switch},
		{"write_backward", a->write_backward},
		{"namespaces", a->namespaces},
		{"ksymbol", a->ksymbol},
		{"bpf_event", a->bpf_event},
		{"aux_output", a->aux_output},
		{"cgroup", a->cgroup},
		{"text_poke", a->text_poke},
		{"build_id", a->build_id},
		{"inherit_thread", a->inherit_thread},
		{"remove_on_exec", a->remove_on_exec},
		{"sigtrap", a->sigtrap},
	};
	char buf[32];

	num(b, "type", a->type);
	num(b, "size", a->size);
	hex(b, "config", a->config);
	num(b, "{ sample_period, sample_freq }", a->sample_period);
	if (a->sample_type)
		bits(b, "sample_type", a->sample_type, sample_bits);
	if (a->read_format)
		bits(b, "read_format", a->read_format, read_bits);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		num(b, flags[i].name, flags[i].v);
	num(b, "{ wakeup_events, wakeup_watermark }", a->wakeup_events);
	num(b, "bp_type", a->bp_type);
	hex(b, "{ bp_addr, config1 }", a->bp_addr);
	hex(b, "{ bp_len, config2 }", a->bp_len);
	if (a->branch_sample_type)
		bits(b, "branch_sample_type", a->branch_sample_type,
		     branch_bits);
	hex(b, "sample_regs_user", a->sample_regs_user);
	num(b, "sample_stack_user", a->sample_stack_user);
	if (a->clockid) {
		snprintf(buf, sizeof(buf), "%d", a->clockid);
		line(b, "clockid", buf);
	}
	hex(b, "sample_regs_intr", a->sample_regs_intr);
	num(b, "aux_watermark", a->aux_watermark);
	num(b, "sample_max_stack", a->sample_max_stack);
	num(b, "aux_sample_size", a->aux_sample_size);
	num(b, "sig_data", a->sig_data);
}
