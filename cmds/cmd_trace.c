/*
 * cmd_trace.c - a tracepoint sample's text as perf prints it (the
 * event's print fmt over its raw bytes, %ps/%pS named from the kernel's
 * symbols): script's trace field and report's trace key.
 */
#include "pdtool.h"
#include "pda_branch.h"

#include <stdlib.h>

/* %ps/%pS's functions: the kernel's (perf's machine__resolve_kernel_addr) */
struct trace_sym {
	struct cmd_trace *t;
	const struct pd_sample *sample;
	const char *comm;
	int rc;
};

static const char *trace_sym(void *arg, uint64_t addr, uint64_t *off)
{
	struct trace_sym *ts = arg;
	const struct pda_branch_loc *loc = NULL;
	int rc;

	if (!*ts->t->br) {
		PDA_BRANCH_OPTS(bo, .by = PDA_BRANCH_BY_SYM);

		rc = pda_branch_new(ts->t->session, &bo, ts->t->br);
		if (rc < 0) {
			ts->rc = rc;
			return NULL;
		}
	}
	rc = pda_branch_locate(*ts->t->br, ts->sample, ts->comm, addr, &loc);
	if (rc < 0)
		ts->rc = rc;
	/* perf resolves them in the kernel only (a page fault's user ip
	 * prints as its address) */
	if (!loc || !loc->sym || !loc->kernel)
		return NULL;
	*off = loc->sym_off;
	return loc->sym;
}

/* The capture's tracepoint formats, read the first time (a warning
 * when they do not parse).  0 or NOMEM. */
static int read_formats(struct cmd_trace *t)
{
	const void *data;
	size_t size;
	char err[256] = "";
	int rc;

	t->read = true;
	if (!pd_file_feature(t->f, PD_FEAT_TRACING_DATA, &data, &size))
		return 0;
	rc = pd_tracing_parse(data, size, NULL, &t->tracing, err, sizeof(err));
	if (rc == PD_ERR_NOMEM)
		return rc;
	if (rc < 0)
		warning(t->ctx, "'%s': %s; what follows is not read (tracepoints "
				"whose format is there print no fields, kernel "
				"strings print as addresses)",
			t->path, err);
	return 0;
}

int cmd_trace_text(struct cmd_trace *t, const struct pd_sample *s,
		   const char *comm, const char **text, size_t *len)
{
	struct trace_sym ts = {.t = t, .sample = s, .comm = comm};
	const struct pd_tp_syms syms = {.fn = trace_sym, .arg = &ts};
	const struct pd_tp_format *fmt;
	size_t n;
	int rc;

	*text = NULL;
	*len = 0;
	if (!t->read && (rc = read_formats(t)) < 0)
		return rc;
	fmt = pd_tracing_format(t->tracing, s->evsel->attr.config);
	if (!fmt || !s->raw.data)
		return 0;
	for (;;) {
		n = pd_tp_print(t->tracing, fmt, s->raw.data, s->raw.size,
				&syms, t->buf, t->cap);
		if (n < t->cap)
			break;
		free(t->buf);
		t->cap = n + 1;
		t->buf = malloc(t->cap);
		if (!t->buf) {
			t->cap = 0;
			return PD_ERR_NOMEM;
		}
	}
	*text = t->buf;
	*len = n;
	return ts.rc;
}

void cmd_trace_release(struct cmd_trace *t)
{
	pd_tracing_free(t->tracing);
	free(t->buf);
	t->tracing = NULL;
	t->buf = NULL;
	t->cap = 0;
	t->read = false;
}
