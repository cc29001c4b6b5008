/*
 * pd_tracing.c - the tracepoint formats of HEADER_TRACING_DATA (perf's
 * tracing_data_get(), util/trace-event-info.c; read back by
 * trace-event-read.c): what a tracepoint sample's raw bytes hold.
 *
 * The section, version 0.5 or 0.6:
 *
 *	"\x17\x08\x44tracing", a version string with its NUL,
 *	u8 big_endian, u8 long_size, u32 page_size,
 *	"header_page\0" u64 size, bytes; "header_event\0" u64 size, bytes;
 *	u32 nr ftrace formats, each u64 size and the format file;
 *	u32 nr systems, each its name with a NUL, u32 nr events, each u64
 *	size and the format file; u32 size and kallsyms; u32 size and
 *	printk formats; (0.6) u64 size and saved cmdlines.
 *
 * Numbers are in the byte order big_endian says, which is the recording
 * host's, as the raw sample bytes are.  Kept: each event's name, ID and
 * fields (name, offset, size, signedness), from the lines "ID: N" and
 * "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;", and the printk
 * formats (/proc's printk_formats: "0xADDR : \"text\"" a line), the
 * strings a tracepoint's const char * field may point to (rcu's
 * "Start context switch"), which libtraceevent prints for a %s of it.
 */
#include "pd_int.h"
#include "pdc_alloc.h"
#include "pdc_arena.h"
#include "pdc_cur.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACING_MAGIC "\x17\x08\x44tracing"
#define MAX_FORMATS (1u << 16)
#define MAX_FIELDS 256

#define MAX_PRINTK (1u << 20)

/* A printk format: the kernel's string at addr. */
struct tp_printk {
	uint64_t addr;
	const char *s;
};

struct pd_tracing {
	struct pd_alloc mem;
	struct pdc_arena ar;	/* names and each format's fields */
	int swap;
	uint8_t long_size;	/* the recorder's sizeof(long) */
	struct pd_tp_format *fmts;
	size_t nr_fmts, alloc_fmts;
	struct pd_tp_field *tmp; /* the fields of the format being read */
	size_t alloc_tmp;
	struct tp_printk *printk; /* sorted by address */
	size_t nr_printk, alloc_printk;
};

static void tr_err(char *buf, size_t size, const struct pdc_cur *c,
		   const char *what)
{
	if (buf && size)
		snprintf(buf, size, "HEADER_TRACING_DATA at byte %zu: %s",
			 pdc_cur_pos(c), what);
}

/* The NUL-terminated string at the cursor (taken, NUL included). */
static const char *take_str(struct pdc_cur *c)
{
	const unsigned char *nul = memchr(c->p, 0, pdc_cur_left(c));
	const unsigned char *s;

	if (!nul || !pdc_cur_take(c, (uint64_t)(nul - c->p) + 1, &s))
		return NULL;
	return (const char *)s;
}

/* The unsigned number after key in line [p, end), or false. */
static bool line_num(const char *p, const char *end, const char *key,
		     uint64_t *v)
{
	const size_t kl = strlen(key);
	bool any = false;

	for (; p + kl <= end; p++)
		if (memcmp(p, key, kl) == 0)
			break;
	if (p + kl > end)
		return false;
	*v = 0;
	for (p += kl; p < end && *p >= '0' && *p <= '9'; p++) {
		if (*v > UINT64_MAX / 10)
			return false;
		*v = *v * 10 + (uint64_t)(*p - '0');
		any = true;
	}
	return any;
}

/* The flags libtraceevent gives a field of declaration decl (its
 * TEP_FIELD_IS_*, from the type's words). */
static unsigned field_flags(const char *decl, const char *name,
			    uint32_t size, uint8_t long_size)
{
	unsigned fl = 0;
	const char *l = strstr(decl, "long");

	if (strchr(decl, '['))
		fl |= PD_TP_F_ARRAY;
	if (strncmp(decl, "__data_loc", 10) == 0)
		fl |= PD_TP_F_ARRAY | PD_TP_F_DYNAMIC;
	if (strncmp(decl, "__rel_loc", 9) == 0)
		fl |= PD_TP_F_ARRAY | PD_TP_F_DYNAMIC | PD_TP_F_RELATIVE;
	if ((fl & PD_TP_F_ARRAY) && strstr(decl, "char"))
		fl |= PD_TP_F_STRING;
	if (strchr(decl, '*'))
		fl |= PD_TP_F_POINTER;
	if (l && !strstr(l + 4, "long") && size == long_size)
		fl |= PD_TP_F_LONG;
	if (strncmp(name, "common_", 7) == 0)
		fl |= PD_TP_F_COMMON;
	return fl;
}

/* A "field:" line's name into *name: the last word before the ';',
 * without an array's brackets ("char prev_comm[16]" is prev_comm,
 * "__data_loc char[] name" name), NULL when there is none.  @return 0 or
 * PD_ERR_NOMEM. */
static int field_name(struct pd_tracing *t, const char *p, const char *end,
		      char **name)
{
	const char *semi = memchr(p, ';', (size_t)(end - p));
	const char *stop, *start;

	*name = NULL;
	if (!semi)
		return 0;
	/* "char x[16]": the brackets after the name; "__data_loc char[]
	 * x": before it */
	stop = semi;
	while (stop > p && stop[-1] == ' ')
		stop--;
	if (stop > p && stop[-1] == ']')
		while (stop > p && *stop != '[')
			stop--;
	start = stop;
	while (start > p && start[-1] != ' ' && start[-1] != ':' &&
	       start[-1] != '\t')
		start--;
	if (start == stop)
		return 0;
	*name = pdc_arena_strndup(&t->ar, &t->mem, start,
				  (size_t)(stop - start));
	return *name ? 0 : PD_ERR_NOMEM;
}

static int parse_format(struct pd_tracing *t, const char *system,
			const char *text, size_t len)
{
	const char *p = text, *end;
	struct pd_tp_format fmt = {0};
	struct pd_tp_field *fields;
	bool has_id = false;

	/* a format file is text: perf's libtraceevent reads it as a C
	 * string, so a NUL ends it (else a name cut at one could be "") */
	end = text + strnlen(text, len);
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *le = eol ? eol : end;
		uint64_t off, size, sign;

		if (le - p > 11 && memcmp(p, "print fmt: ", 11) == 0 &&
		    !fmt.print_fmt) {
			fmt.print_fmt = pdc_arena_strndup(
				&t->ar, &t->mem, p + 11, (size_t)(le - p - 11));
			if (!fmt.print_fmt)
				return PD_ERR_NOMEM;
		} else if (le - p > 6 && memcmp(p, "name: ", 6) == 0 &&
			   !fmt.name) {
			fmt.name = pdc_arena_strndup(&t->ar, &t->mem, p + 6,
						     (size_t)(le - p - 6));
			if (!fmt.name)
				return PD_ERR_NOMEM;
		} else if (le - p > 4 && memcmp(p, "ID: ", 4) == 0)
			has_id = line_num(p, le, "ID: ", &fmt.id);
		else if (line_num(p, le, "offset:", &off) &&
			 line_num(p, le, "size:", &size) &&
			 line_num(p, le, "signed:", &sign) &&
			 off <= UINT32_MAX && size <= UINT32_MAX &&
			 fmt.nr_fields < MAX_FIELDS) {
			const char *f = p;
			char *name = NULL;

			while (f + 6 <= le && memcmp(f, "field:", 6) != 0)
				f++;
			if (f + 6 <= le && field_name(t, f + 6, le, &name) < 0)
				return PD_ERR_NOMEM;
			if (name) {
				const char *semi =
					memchr(f + 6, ';', (size_t)(le - f - 6));
				char *decl = pdc_arena_strndup(
					&t->ar, &t->mem, f + 6,
					(size_t)(semi - f - 6));

				if (!decl)
					return PD_ERR_NOMEM;
				if (PDC_GROW(&t->mem, t->tmp, t->alloc_tmp,
					     fmt.nr_fields + 1, MAX_FIELDS) < 0)
					return PD_ERR_NOMEM;
				t->tmp[fmt.nr_fields++] = (struct pd_tp_field){
					.name = name,
					.offset = (uint32_t)off,
					.size = (uint32_t)size,
					.is_signed = sign != 0,
					.type = decl,
					.flags = field_flags(decl, name,
							     (uint32_t)size,
							     t->long_size)};
			}
		}
		p = eol ? eol + 1 : end;
	}
	/* a format without its name or ID names nothing */
	if (!fmt.name || !has_id)
		return 0;
	fields = pdc_arena_alloc(&t->ar, &t->mem,
				 (fmt.nr_fields ? fmt.nr_fields : 1) *
					 sizeof(*fields));
	if (!fields)
		return PD_ERR_NOMEM;
	if (fmt.nr_fields)
		memcpy(fields, t->tmp, fmt.nr_fields * sizeof(*fields));
	fmt.fields = fields;
	fmt.system = system;
	if (PDC_GROW(&t->mem, t->fmts, t->alloc_fmts, t->nr_fmts + 1,
		     MAX_FORMATS) < 0)
		return PD_ERR_NOMEM;
	t->fmts[t->nr_fmts++] = fmt;
	return 0;
}

/* nr format files, each a u64 size and its text, of system. */
static int parse_files(struct pd_tracing *t, struct pdc_cur *c,
		       const char *system, uint32_t nr, char *errbuf,
		       size_t errsize)
{
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t size;
		const unsigned char *text;
		int rc;

		if (!pdc_cur_u64(c, &size) || !pdc_cur_take(c, size, &text)) {
			tr_err(errbuf, errsize, c, "a format file runs past "
						   "the section");
			return PD_ERR_FORMAT;
		}
		rc = parse_format(t, system, (const char *)text, (size_t)size);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * One printk_formats line, as perf's parse_ftrace_printk() and
 * tep_register_print_string() take it: the address in hex before the
 * first ':', the text one character after it, its quotes and a trailing
 * "\n" (written as the two characters) dropped, other escapes kept.
 */
static int printk_line(struct pd_tracing *t, const char *p, const char *end)
{
	const char *colon = memchr(p, ':', (size_t)(end - p));
	const char *s, *e = end;
	char num[24];
	size_t n;

	if (!colon || colon == p || end - colon < 2)
		return 0;
	n = (size_t)(colon - p) < sizeof(num) - 1 ? (size_t)(colon - p)
						  : sizeof(num) - 1;
	memcpy(num, p, n);
	num[n] = '\0';
	s = colon + 2;
	if (s < e && *s == '"')
		s++;
	if (e > s && e[-1] == '"') {
		e--;
		if (e - s >= 2 && e[-2] == '\\' && e[-1] == 'n')
			e -= 2;
	}
	if (PDC_GROW(&t->mem, t->printk, t->alloc_printk, t->nr_printk + 1,
		     MAX_PRINTK) < 0)
		return PD_ERR_NOMEM;
	t->printk[t->nr_printk].addr = strtoull(num, NULL, 16);
	t->printk[t->nr_printk].s =
		pdc_arena_strndup(&t->ar, &t->mem, s, (size_t)(e - s));
	if (!t->printk[t->nr_printk].s)
		return PD_ERR_NOMEM;
	t->nr_printk++;
	return 0;
}

static int printk_cmp(const void *a, const void *b)
{
	const struct tp_printk *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int parse_printk(struct pd_tracing *t, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *le = eol ? eol : end;
		int rc;

		if (le > p && (rc = printk_line(t, p, le)) < 0)
			return rc;
		p = eol ? eol + 1 : end;
	}
	if (t->nr_printk)
		qsort(t->printk, t->nr_printk, sizeof(*t->printk),
		      printk_cmp);
	return 0;
}

static int parse(struct pd_tracing *t, struct pdc_cur *c, char *errbuf,
		 size_t errsize)
{
	const unsigned char *magic;
	const char *version, *name;
	uint8_t big, long_size;
	uint32_t page_size, nr;
	uint64_t size;
	int rc;

	if (pdc_cur_left(c) < 10 || memcmp(c->p, TRACING_MAGIC, 10) != 0) {
		tr_err(errbuf, errsize, c, "no tracing data magic");
		return PD_ERR_FORMAT;
	}
	(void)pdc_cur_take(c, 10, &magic);
	version = take_str(c);
	if (!version || !pdc_cur_u8(c, &big) || !pdc_cur_u8(c, &long_size)) {
		tr_err(errbuf, errsize, c, "cut short in its header");
		return PD_ERR_FORMAT;
	}
	/* the numbers from here on are in the recording host's order */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	c->swap = !big;
#else
	c->swap = big != 0;
#endif
	t->swap = c->swap;
	t->long_size = long_size;
	if (!pdc_cur_u32(c, &page_size)) {
		tr_err(errbuf, errsize, c, "cut short in its header");
		return PD_ERR_FORMAT;
	}
	(void)page_size;
	for (int i = 0; i < 2; i++) {
		static const char *const want[2] = {"header_page",
						    "header_event"};

		name = take_str(c);
		if (!name || strcmp(name, want[i]) != 0 ||
		    !pdc_cur_u64(c, &size) || !pdc_cur_skip(c, size)) {
			tr_err(errbuf, errsize, c, i ? "no header_event"
						     : "no header_page");
			return PD_ERR_FORMAT;
		}
	}
	if (!pdc_cur_u32(c, &nr)) {
		tr_err(errbuf, errsize, c, "no ftrace formats count");
		return PD_ERR_FORMAT;
	}
	if ((rc = parse_files(t, c, "ftrace", nr, errbuf, errsize)) < 0)
		return rc;
	if (!pdc_cur_u32(c, &nr)) {
		tr_err(errbuf, errsize, c, "no event systems count");
		return PD_ERR_FORMAT;
	}
	for (uint32_t s = 0; s < nr; s++) {
		const char *system = take_str(c);
		uint32_t nr_ev;

		if (!system || !pdc_cur_u32(c, &nr_ev)) {
			tr_err(errbuf, errsize, c, "an event system cut short");
			return PD_ERR_FORMAT;
		}
		if ((rc = parse_files(t, c, system, nr_ev, errbuf, errsize)) < 0)
			return rc;
	}
	/* kallsyms (perf writes none: its symbols come from the kernel
	 * map), then the printk formats; saved cmdlines are not kept */
	if (!pdc_cur_u32(c, &nr) || !pdc_cur_skip(c, nr)) {
		tr_err(errbuf, errsize, c, "kallsyms run past the section");
		return PD_ERR_FORMAT;
	}
	{
		const unsigned char *text;
		uint32_t n;

		if (!pdc_cur_u32(c, &n) || !pdc_cur_take(c, n, &text)) {
			tr_err(errbuf, errsize, c,
			       "printk formats run past the section");
			return PD_ERR_FORMAT;
		}
		return parse_printk(t, (const char *)text, n);
	}
}

int pd_tracing_parse(const void *data, size_t size,
		     const struct pd_alloc *alloc, struct pd_tracing **out,
		     char *errbuf, size_t errsize)
{
	static const unsigned char none;
	struct pd_alloc mem = {0};
	struct pd_tracing *t;
	struct pdc_cur c;
	int rc;

	*out = NULL;
	/* no section at all (NULL, 0) is one without the magic; a cursor
	 * over a NULL pointer would be undefined even empty */
	if (!data) {
		data = &none;
		size = 0;
	}
	if (alloc)
		mem = *alloc;
	t = pdc_zalloc(&mem, sizeof(*t));
	if (!t)
		return PD_ERR_NOMEM;
	t->mem = mem;
	pdc_cur_init(&c, data, size, 0);
	rc = parse(t, &c, errbuf, errsize);
	if (rc < 0 && rc != PD_ERR_FORMAT) {
		pd_tracing_free(t);
		return rc;
	}
	/* damage after some formats keeps those read */
	*out = t;
	return rc;
}

void pd_tracing_free(struct pd_tracing *t)
{
	if (!t)
		return;
	pdc_arena_release(&t->ar, &t->mem);
	pdc_free(&t->mem, t->tmp);
	pdc_free(&t->mem, t->fmts);
	pdc_free(&t->mem, t->printk);
	pdc_free(&t->mem, t);
}

const struct pd_tp_format *pd_tracing_format(const struct pd_tracing *t,
					     uint64_t id)
{
	for (size_t i = 0; t && i < t->nr_fmts; i++)
		if (t->fmts[i].id == id && strcmp(t->fmts[i].system, "ftrace"))
			return &t->fmts[i];
	return NULL;
}

const struct pd_tp_format *pd_tracing_format_at(const struct pd_tracing *t,
						size_t i)
{
	return t && i < t->nr_fmts ? &t->fmts[i] : NULL;
}

uint8_t pd_tracing_long_size(const struct pd_tracing *t)
{
	return t->long_size;
}

const char *pd_tracing_printk(const struct pd_tracing *t, uint64_t addr)
{
	size_t lo = 0, hi = t ? t->nr_printk : 0;

	while (lo < hi) {
		const size_t mid = lo + (hi - lo) / 2;

		if (t->printk[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (t ? t->nr_printk : 0) && t->printk[lo].addr == addr
		       ? t->printk[lo].s
		       : NULL;
}

const struct pd_tp_field *pd_tp_field(const struct pd_tp_format *fmt,
				      const char *name)
{
	for (size_t i = 0; fmt && i < fmt->nr_fields; i++)
		if (strcmp(fmt->fields[i].name, name) == 0)
			return &fmt->fields[i];
	return NULL;
}

int pd_tp_field_int(const struct pd_tracing *t, const struct pd_tp_field *fl,
		    const void *raw, size_t raw_size, int64_t *v)
{
	const unsigned char *p = raw;

	if (!fl || fl->offset > raw_size || fl->size > raw_size - fl->offset)
		return PD_ERR_FORMAT;
	p += fl->offset;
	switch (fl->size) {
	case 1:
		*v = fl->is_signed ? (int8_t)p[0] : p[0];
		return 0;
	case 2: {
		const uint16_t u = pd_load_u16(p, t->swap);

		*v = fl->is_signed ? (int16_t)u : u;
		return 0;
	}
	case 4: {
		const uint32_t u = pd_load_u32(p, t->swap);

		*v = fl->is_signed ? (int32_t)u : (int64_t)u;
		return 0;
	}
	case 8:
		*v = (int64_t)pd_load_u64(p, t->swap);
		return 0;
	default:
		return PD_ERR_FORMAT;
	}
}
