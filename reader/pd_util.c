/*
 * pd_util.c - allocation through the caller's hooks, logging, error
 * messages and the library's version and error strings.
 */
#include "pd_int.h"

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

void *pd_malloc(const struct pd_mem *m, size_t size)
{
	if (size == 0)
		size = 1;
	if (m->hooks.malloc_fn)
		return m->hooks.malloc_fn(m->hooks.arg, size);
	return malloc(size);
}

void *pd_zalloc(const struct pd_mem *m, size_t size)
{
	void *p = pd_malloc(m, size);

	if (p)
		memset(p, 0, size);
	return p;
}

void *pd_realloc(const struct pd_mem *m, void *p, size_t size)
{
	if (size == 0)
		size = 1;
	if (m->hooks.realloc_fn)
		return m->hooks.realloc_fn(m->hooks.arg, p, size);
	return realloc(p, size);
}

void pd_free(const struct pd_mem *m, void *p)
{
	if (!p)
		return;
	if (m->hooks.free_fn)
		m->hooks.free_fn(m->hooks.arg, p);
	else
		free(p);
}

char *pd_strndup(const struct pd_mem *m, const char *s, size_t len)
{
	char *p = pd_malloc(m, len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

int pd_grow(const struct pd_mem *m, void **arr, size_t elem, size_t *alloc,
	    size_t want, size_t max)
{
	size_t cap = *alloc;
	void *p;

	if (want <= cap)
		return 0;
	if (want > max || want > SIZE_MAX / elem)
		return PD_ERR_NOMEM;
	if (cap < 16)
		cap = 16;
	while (cap < want)
		cap = cap > max / 2 ? max : cap * 2;
	p = pd_realloc(m, *arr, cap * elem);
	if (!p)
		return PD_ERR_NOMEM;
	*arr = p;
	*alloc = cap;
	return 0;
}

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
