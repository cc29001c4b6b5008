/*
 * pd_util.c - logging, error messages and the library's version and
 * error strings (allocation is common/pdc_alloc.c's, through pd_int.h).
 */
#include "pd_int.h"
#include "pdc_opts.h"

#include <stdio.h>
#include <stdlib.h>

const char *pd_version(void)
{
	return PD_VERSION_STRING;
}

const char *pd_strerror(int err)
{
	switch (err) {
	case PD_OK:
		return "success";
#define PD_ERR_CASE(name, value, text)                                      \
	case PD_ERR_##name:                                                 \
		return text;
		PD_ERRORS(PD_ERR_CASE)
#undef PD_ERR_CASE
	default:
		return "unknown error";
	}
}

/* common/ cannot include pd.h: its error codes must be ours */
_Static_assert(PDC_ERR_NOMEM == PD_ERR_NOMEM, "pdc_alloc.h's NOMEM");
_Static_assert(PDC_ERR_API == PD_ERR_API, "pdc_opts.h's API");

void pd_logf(const struct pd_log *log, enum pd_log_level level,
	     const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!log->fn || level > log->level)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log->fn(log->arg, level, buf);
}

int pd_set_err(struct pd_file *f, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->errmsg, sizeof(f->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

const char *pd_file_errmsg(const struct pd_file *f)
{
	return f ? f->errmsg : "";
}

const char *pd_file_name(const struct pd_file *f)
{
	return f->name;
}
