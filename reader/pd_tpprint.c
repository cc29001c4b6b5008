/*
 * pd_tpprint.c - a tracepoint sample's text as perf 6.1 prints it (its
 * -F trace field): libtraceevent's evaluation of the format file's print
 * fmt (event-parse.c: pretty_print(), eval_num_arg(), print_str_arg())
 * on the sample's raw bytes.
 *
 * The print fmt is a C format string and its arguments, C expressions
 * over REC->field.  They are evaluated while parsed, once per sample (a
 * capture's tracepoint samples are few next to the work of printing
 * them; no tree is kept).  Integers are 64-bit, as libtraceevent's; a
 * value printed with %d without a length is cut to an int, as its
 * printf does.  What is not understood fails the whole print, which
 * then falls back to libtraceevent's output for an event it could not
 * parse: "[FAILED TO PARSE]" and each field as " name=value".
 */
#include "pd_int.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCRATCH 1024	/* __print_flags/__print_symbolic results */
#define MAX_DEPTH 64	/* nested parentheses and unary operators */

struct tp_val {
	bool is_str;
	uint64_t i;
	const char *s;
	size_t len;
	/* the pointer-sized field the value is, unchanged but by casts:
	 * libtraceevent's %s of it prints the printk format it points to */
	const struct pd_tp_field *ptr;
};

struct tp_eval {
	const struct pd_tracing *t;
	const struct pd_tp_format *fmt;
	const unsigned char *raw;
	size_t raw_size;
	const struct pd_tp_syms *syms;
	const char *p, *end;
	bool failed;
	unsigned depth;
	char scratch[SCRATCH];
	size_t used;
};

/* The output: out[0..size) NUL-terminated, len the whole text's. */
struct tp_out {
	char *out;
	size_t size, len;
};

static void out_add(struct tp_out *o, const char *s, size_t n)
{
	if (o->len < o->size) {
		size_t room = o->size - 1 - o->len;

		memcpy(o->out + o->len, s, n < room ? n : room);
		o->out[o->len + (n < room ? n : room)] = '\0';
	}
	o->len += n;
}

/*
 * Both writers below format through here: out_printf() with a literal
 * (checked by the compiler), out_conv() with a conversion rebuilt from
 * the print fmt's own ("%-*.*lld" with its flags), built by convert()
 * from checked parts.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void out_vadd(struct tp_out *o, const char *f, va_list ap)
{
	char buf[512];
	const int n = vsnprintf(buf, sizeof(buf), f, ap);

	if (n > 0)
		out_add(o, buf, (size_t)n < sizeof(buf) ? (size_t)n
							: sizeof(buf) - 1);
}
#pragma GCC diagnostic pop

static void out_printf(struct tp_out *o, const char *f, ...)
	__attribute__((format(printf, 2, 3)));
static void out_printf(struct tp_out *o, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	out_vadd(o, f, ap);
	va_end(ap);
}

static void out_conv(struct tp_out *o, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	out_vadd(o, f, ap);
	va_end(ap);
}

/* ---- the expression ---------------------------------------------------- */

static void skip_ws(struct tp_eval *e)
{
	while (e->p < e->end && isspace((unsigned char)*e->p))
		e->p++;
}

/* Take the token tok (and no longer operator it begins, as "|" of
 * "||"), after blanks. */
static bool take(struct tp_eval *e, const char *tok)
{
	const size_t n = strlen(tok);

	skip_ws(e);
	if ((size_t)(e->end - e->p) < n || memcmp(e->p, tok, n) != 0)
		return false;
	if (n == 1 && e->p + 1 < e->end && strchr("|&<>=", tok[0]) &&
	    (e->p[1] == tok[0] || e->p[1] == '='))
		return false;
	if (n == 1 && e->p + 1 < e->end && strchr("!<>", tok[0]) &&
	    e->p[1] == '=')
		return false;
	e->p += n;
	return true;
}

static size_t ident_len(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && (isalnum((unsigned char)*q) || *q == '_'))
		q++;
	return (size_t)(q - p);
}

static bool fail(struct tp_eval *e)
{
	e->failed = true;
	return false;
}

/* A string literal's text, its escapes kept as written but \" and \\
 * (the print fmt's strings are C literals). */
static bool string_lit(struct tp_eval *e, struct tp_val *v)
{
	const char *q;

	skip_ws(e);
	if (e->p >= e->end || *e->p != '"')
		return fail(e);
	for (q = e->p + 1; q < e->end && *q != '"'; q++)
		if (*q == '\\' && q + 1 < e->end)
			q++;
	if (q >= e->end)
		return fail(e);
	*v = (struct tp_val){.is_str = true, .s = e->p + 1,
			     .len = (size_t)(q - e->p - 1)};
	e->p = q + 1;
	return true;
}

/* The field's unsigned value, as libtraceevent's tep_read_number(). */
static bool field_num(struct tp_eval *e, const struct pd_tp_field *fl,
		      uint64_t *v)
{
	int64_t x;

	if (pd_tp_field_int(e->t, fl, e->raw, e->raw_size, &x) < 0)
		return fail(e);
	*v = fl->size == 8 ? (uint64_t)x
			   : (uint64_t)x & ((1ull << (8 * fl->size)) - 1);
	return true;
}

/* A string field's bytes up to its NUL: in the field (char x[N]) or
 * where its __data_loc/__rel_loc word points. */
static bool field_str(struct tp_eval *e, const struct pd_tp_field *fl,
		      struct tp_val *v)
{
	uint64_t off = fl->offset, len = fl->size;

	if (fl->flags & PD_TP_F_DYNAMIC) {
		uint64_t loc;
		const struct pd_tp_field w = {.offset = fl->offset,
					      .size = 4};

		if (!field_num(e, &w, &loc))
			return false;
		off = loc & 0xffff;
		len = loc >> 16;
		if (fl->flags & PD_TP_F_RELATIVE)
			off += fl->offset + fl->size;
	}
	if (off > e->raw_size || len > e->raw_size - off)
		return fail(e);
	*v = (struct tp_val){.is_str = true,
			     .s = (const char *)e->raw + off,
			     .len = strnlen((const char *)e->raw + off, len)};
	return true;
}

static bool expr(struct tp_eval *e, struct tp_val *v);

/* REC->args[i] of a fixed array ("unsigned long args[6]"): element i,
 * the field's size over its count long. */
static bool array_elem(struct tp_eval *e, const struct pd_tp_field *fl,
		       struct tp_val *v)
{
	const char *br = strrchr(fl->type, '[');
	struct pd_tp_field el;
	struct tp_val i;
	unsigned long count;

	if (!br || (fl->flags & PD_TP_F_DYNAMIC) || !expr(e, &i) ||
	    i.is_str || !take(e, "]"))
		return fail(e);
	count = strtoul(br + 1, NULL, 10);
	if (count == 0 || i.i >= count || fl->size % count)
		return fail(e);
	el = (struct pd_tp_field){.offset = fl->offset +
					    (uint32_t)(i.i * (fl->size / count)),
				  .size = fl->size / (uint32_t)count};
	*v = (struct tp_val){0};
	return field_num(e, &el, &v->i);
}

/* The field named at e->p (taken), or NULL (failed). */
static const struct pd_tp_field *field_at(struct tp_eval *e)
{
	const struct pd_tp_field *fl;
	char name[128];
	size_t n;

	skip_ws(e);
	n = ident_len(e->p, e->end);
	if (n == 0 || n >= sizeof(name)) {
		fail(e);
		return NULL;
	}
	memcpy(name, e->p, n);
	name[n] = '\0';
	e->p += n;
	fl = pd_tp_field(e->fmt, name);
	if (!fl)
		fail(e);
	return fl;
}

static bool rec_field(struct tp_eval *e, struct tp_val *v)
{
	const struct pd_tp_field *fl = field_at(e);

	if (!fl)
		return false;
	if (take(e, "["))
		return array_elem(e, fl, v);
	if (fl->flags & PD_TP_F_STRING)
		return field_str(e, fl, v);
	if (fl->flags & PD_TP_F_ARRAY)
		return fail(e);
	*v = (struct tp_val){0};
	if (fl->size == pd_tracing_long_size(e->t))
		v->ptr = fl;
	return field_num(e, fl, &v->i);
}

static bool num_expr(struct tp_eval *e, uint64_t *i)
{
	struct tp_val v;

	if (!expr(e, &v))
		return false;
	if (v.is_str)
		return fail(e);
	*i = v.i;
	return true;
}

/* Copy s into the scratch space (the result being built at *at). */
static bool scratch_add(struct tp_eval *e, const char *s, size_t n)
{
	if (n > SCRATCH - e->used)
		return fail(e);
	memcpy(e->scratch + e->used, s, n);
	e->used += n;
	return true;
}

/*
 * A value of a __print_flags/__print_symbolic table.  A name there is
 * looked up in libtraceevent's eval_flag() table (the softirq and
 * hrtimer restart names the kernel leaves unconverted); any other name
 * (HRTIMER_MODE_ABS, I_DIRTY_SYNC) is *never, which eval_flag() makes
 * -1 (print_table()).
 */
static bool table_value(struct tp_eval *e, uint64_t *v, bool *never)
{
	static const char *const names[] = {
		"HI_SOFTIRQ", "TIMER_SOFTIRQ", "NET_TX_SOFTIRQ",
		"NET_RX_SOFTIRQ", "BLOCK_SOFTIRQ", "IRQ_POLL_SOFTIRQ",
		"TASKLET_SOFTIRQ", "SCHED_SOFTIRQ", "HRTIMER_SOFTIRQ",
		"RCU_SOFTIRQ",
	};
	size_t n;
	const char *q;

	skip_ws(e);
	n = ident_len(e->p, e->end);
	q = e->p + n;
	while (q < e->end && isspace((unsigned char)*q))
		q++;
	if (n == 0 || isdigit((unsigned char)*e->p) || q >= e->end ||
	    *q != ',')
		return num_expr(e, v);
	*never = true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && memcmp(names[i], e->p, n) == 0)
			*v = i, *never = false;
	if (n == 17 && memcmp(e->p, "HRTIMER_NORESTART", n) == 0)
		*v = 0, *never = false;
	if (n == 15 && memcmp(e->p, "HRTIMER_RESTART", n) == 0)
		*v = 1, *never = false;
	e->p += n;
	return true;
}

/*
 * A table entry's name: a string literal, or another expression (the
 * "{ 0, ((void *)0) }" ending gfp_flags' table) as libtraceevent's
 * arg_eval() gives it, the value in decimal, written in num.
 */
static bool table_name(struct tp_eval *e, struct tp_val *v, char *num,
		       size_t size)
{
	int n;

	skip_ws(e);
	if (e->p < e->end && *e->p == '"')
		return string_lit(e, v);
	if (!num_expr(e, &v->i))
		return false;
	n = snprintf(num, size, "%lld", (long long)v->i);
	*v = (struct tp_val){.is_str = true, .s = num, .len = (size_t)n};
	return true;
}

/*
 * __print_flags(val, delim, { v, "s" }, ...) and __print_symbolic(val,
 * { v, "s" }, ...) as print_str_arg() prints them: the names of the set
 * flags joined by delim and what is left as 0x%llx; the symbol equal to
 * val, else 0x%llx.
 */
static bool print_table(struct tp_eval *e, bool flags, struct tp_val *v)
{
	const size_t start = e->used;
	struct tp_val delim = {.s = "", .len = 0}, name;
	uint64_t val, fval = 0;
	bool printed = false, done = false;
	char hex[24], num[24];

	if (!num_expr(e, &val))
		return false;
	if (flags && (!take(e, ",") || !string_lit(e, &delim)))
		return fail(e);
	while (take(e, ",")) {
		bool never = false;

		if (!take(e, "{") || !table_value(e, &fval, &never) ||
		    !take(e, ",") || !table_name(e, &name, num, sizeof(num)) ||
		    !take(e, "}"))
			return fail(e);
		/* eval_flag() makes an unknown name -1: a flag printed
		 * when nothing is left of val, as the value < 0 is, and
		 * a value of 0 is no flag (print_str_arg()) */
		if (never)
			fval = UINT64_MAX;
		if (done)
			continue;
		if (!flags) {
			if (val == fval) {
				if (!scratch_add(e, name.s, name.len))
					return false;
				done = printed = true;
			}
			continue;
		}
		if (!val && (int64_t)fval < 0) {
			if (!scratch_add(e, name.s, name.len))
				return false;
			done = true;
		} else if ((int64_t)fval > 0 && (val & fval) == fval) {
			if ((printed && !scratch_add(e, delim.s, delim.len)) ||
			    !scratch_add(e, name.s, name.len))
				return false;
			printed = true;
			val &= ~fval;
		}
	}
	if (!take(e, ")"))
		return fail(e);
	if (flags ? val && !done : !done) {
		const int n = snprintf(hex, sizeof(hex), "0x%llx",
				       (unsigned long long)val);

		if ((flags && printed &&
		     !scratch_add(e, delim.s, delim.len)) ||
		    !scratch_add(e, hex, (size_t)n))
			return false;
	}
	*v = (struct tp_val){.is_str = true, .s = e->scratch + start,
			     .len = e->used - start};
	return true;
}

/* A cast's type: "(unsigned int)", "(u64)", "(void *)"; false (e->p
 * unmoved) when the parenthesis opens an expression. */
static bool cast(struct tp_eval *e, unsigned *bytes, bool *is_signed)
{
	static const struct {
		const char *name;
		unsigned bytes;
		bool is_signed;
	} types[] = {
		{"char", 1, true}, {"short", 2, true}, {"int", 4, true},
		{"long", 8, true}, {"u8", 1, false}, {"u16", 2, false},
		{"u32", 4, false}, {"u64", 8, false}, {"s8", 1, true},
		{"s16", 2, true}, {"s32", 4, true}, {"s64", 8, true},
		{"bool", 1, false}, {"void", 8, false}, {"pid_t", 4, true},
	};
	const char *q = e->p, *word = NULL;
	size_t wlen = 0;
	bool is_unsigned = false, pointer = false;

	while (q < e->end && *q != ')') {
		const size_t n = ident_len(q, e->end);

		if (n) {
			if (n == 8 && memcmp(q, "unsigned", 8) == 0)
				is_unsigned = true;
			else if (!(n == 6 && memcmp(q, "signed", 6) == 0) &&
				 !(n == 5 && memcmp(q, "const", 5) == 0))
				word = q, wlen = n;
			q += n;
		} else if (*q == '*') {
			pointer = true;
			q++;
		} else if (isspace((unsigned char)*q)) {
			q++;
		} else {
			return false;
		}
	}
	/* "(unsigned)" alone is a type: unsigned int */
	if (q >= e->end || (!word && !is_unsigned))
		return false;
	{
		/* a type only when an operand follows: "(x) + 1" is none */
		const char *nx = q + 1;

		while (nx < e->end && isspace((unsigned char)*nx))
			nx++;
		if (nx >= e->end ||
		    !(isalnum((unsigned char)*nx) || strchr("_(!~-", *nx)))
			return false;
		if (word && wlen == 3 && memcmp(word, "REC", 3) == 0)
			return false;
	}
	*bytes = 0;
	for (size_t i = 0; word && i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i].name) == wlen &&
		    memcmp(types[i].name, word, wlen) == 0) {
			*bytes = types[i].bytes;
			*is_signed = types[i].is_signed && !is_unsigned;
		}
	if (!word && is_unsigned)
		*bytes = 4, *is_signed = false;
	/* another type (gfp_t, loff_t, struct page *): kept whole, as
	 * libtraceevent casts only to the sizes it knows */
	if (*bytes == 0)
		*bytes = 8, *is_signed = false;
	if (pointer || (*bytes == 8 && pd_tracing_long_size(e->t) == 4 &&
			wlen == 4 && memcmp(word, "long", 4) == 0))
		*bytes = pointer ? pd_tracing_long_size(e->t) : 4;
	e->p = q + 1;
	return true;
}

static uint64_t cut(uint64_t v, unsigned bytes, bool is_signed)
{
	const unsigned sh = 64 - 8 * bytes;

	if (bytes >= 8)
		return v;
	return is_signed ? (uint64_t)((int64_t)(v << sh) >> sh)
			 : v & ((1ull << (8 * bytes)) - 1);
}

static bool unary(struct tp_eval *e, struct tp_val *v);

static bool primary(struct tp_eval *e, struct tp_val *v)
{
	size_t n;

	skip_ws(e);
	if (e->p >= e->end)
		return fail(e);
	if (*e->p == '"')
		return string_lit(e, v);
	if (*e->p == '(') {
		unsigned bytes;
		bool is_signed;

		e->p++;
		skip_ws(e);
		if (cast(e, &bytes, &is_signed)) {
			if (!unary(e, v) || v->is_str)
				return fail(e);
			v->i = cut(v->i, bytes, is_signed);
			return true;
		}
		return expr(e, v) && (take(e, ")") || fail(e));
	}
	if (isdigit((unsigned char)*e->p)) {
		char *q;
		const unsigned long long x = strtoull(e->p, &q, 0);

		if (q > e->end)
			return fail(e);
		e->p = q;
		/* integer suffixes: 1UL, 0x10ULL */
		while (e->p < e->end && strchr("uUlL", *e->p))
			e->p++;
		*v = (struct tp_val){.i = x};
		return true;
	}
	n = ident_len(e->p, e->end);
	if (n == 3 && memcmp(e->p, "REC", 3) == 0) {
		e->p += 3;
		return take(e, "->") ? rec_field(e, v) : fail(e);
	}
	if (n == 13 && memcmp(e->p, "__print_flags", 13) == 0) {
		e->p += n;
		return take(e, "(") ? print_table(e, true, v) : fail(e);
	}
	if (n == 16 && memcmp(e->p, "__print_symbolic", 16) == 0) {
		e->p += n;
		return take(e, "(") ? print_table(e, false, v) : fail(e);
	}
	if (n == 16 && memcmp(e->p, "__builtin_expect", 16) == 0) {
		/* __builtin_expect(x, hint): x */
		struct tp_val hint;

		e->p += n;
		return (take(e, "(") && expr(e, v) && take(e, ",") &&
			expr(e, &hint) && take(e, ")")) ||
		       fail(e);
	}
	if (n == 9 && memcmp(e->p, "__get_str", 9) == 0) {
		const struct pd_tp_field *fl;

		e->p += n;
		if (!take(e, "(") || !(fl = field_at(e)))
			return fail(e);
		if (!(fl->flags & PD_TP_F_STRING) || !take(e, ")"))
			return fail(e);
		return field_str(e, fl, v);
	}
	/* a name that is no function (an enum's, HRTIMER_MODE_ABS) is 0,
	 * as libtraceevent's strtoull() of the atom makes it; functions
	 * (__get_bitmask, __print_hex, sizeof ...) are not understood */
	if (n) {
		e->p += n;
		skip_ws(e);
		if (e->p < e->end && *e->p == '(')
			return fail(e);
		*v = (struct tp_val){0};
		return true;
	}
	return fail(e);
}

static bool unary(struct tp_eval *e, struct tp_val *v)
{
	static const char ops[] = "!~-+";
	char op;

	skip_ws(e);
	if (e->p < e->end && strchr(ops, *e->p) && *e->p &&
	    !(e->p + 1 < e->end && e->p[0] == '-' && e->p[1] == '>')) {
		op = *e->p++;
		if (++e->depth > MAX_DEPTH)
			return fail(e);
		if (!unary(e, v) || v->is_str)
			return fail(e);
		e->depth--;
		v->ptr = NULL;
		v->i = op == '!' ? !v->i
		       : op == '~' ? ~v->i
		       : op == '-' ? (uint64_t)0 - v->i
				   : v->i;
		return true;
	}
	return primary(e, v);
}

/* The binary operators by C's precedence, lowest first. */
static const char *const levels[][5] = {
	{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="},
	{"<=", ">=", "<", ">"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"},
};
#define NR_LEVELS (sizeof(levels) / sizeof(levels[0]))

/* a op b on unsigned 64-bit values, as libtraceevent's eval_num_arg()
 * (so (jiffies - x) / 250 divides a wrapped difference) */
static uint64_t apply(const char *op, uint64_t a, uint64_t b, bool *bad)
{
	switch (op[0]) {
	case '|': return op[1] ? (a || b) : (a | b);
	case '&': return op[1] ? (a && b) : (a & b);
	case '^': return a ^ b;
	case '=': return a == b;
	case '!': return a != b;
	case '<':
		return op[1] == '<' ? (b < 64 ? a << b : 0)
		       : op[1] == '=' ? a <= b : a < b;
	case '>':
		return op[1] == '>' ? (b < 64 ? a >> b : 0)
		       : op[1] == '=' ? a >= b : a > b;
	case '+': return a + b;
	case '-': return a - b;
	case '*': return a * b;
	default:
		if (b == 0) {
			*bad = true;
			return 0;
		}
		return op[0] == '/' ? a / b : a % b;
	}
}

static bool binary(struct tp_eval *e, size_t level, struct tp_val *v)
{
	if (level == NR_LEVELS)
		return unary(e, v);
	if (!binary(e, level + 1, v))
		return false;
	for (;;) {
		const char *op = NULL;
		struct tp_val r;
		bool bad = false;

		for (size_t i = 0; i < 5 && levels[level][i]; i++)
			if (take(e, levels[level][i])) {
				op = levels[level][i];
				break;
			}
		if (!op)
			break;
		if (!binary(e, level + 1, &r) || v->is_str || r.is_str)
			return fail(e);
		v->i = apply(op, v->i, r.i, &bad);
		v->ptr = NULL;
		if (bad)
			return fail(e);
	}
	return true;
}

/* cond ? a : b (both evaluated: they have no effects) */
static bool expr(struct tp_eval *e, struct tp_val *v)
{
	struct tp_val a, b;

	if (++e->depth > MAX_DEPTH)
		return fail(e);
	if (!binary(e, 0, v))
		return false;
	if (take(e, "?")) {
		if (v->is_str || !expr(e, &a) || !take(e, ":") ||
		    !expr(e, &b))
			return fail(e);
		*v = v->i ? a : b;
	}
	e->depth--;
	return true;
}

/* ---- the format -------------------------------------------------------- */

/* A literal's text with its C escapes undone. */
static void add_unescaped(struct tp_out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '\\' && i + 1 < n) {
			c = s[++i];
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
		}
		out_add(o, &c, 1);
	}
}

/* One conversion of spec (from its '%' to its letter) with v; func the
 * letter after a %p (s, S, f, F: a function), else 0. */
static bool convert(struct tp_eval *e, struct tp_out *o, const char *spec,
		    size_t len, const struct tp_val *v, const struct tp_val *w,
		    char func)
{
	const char conv = spec[len - 1];
	char f[32], flags[8];
	size_t nf = 0, i = 1;
	int width = 0, prec = -1, longs = 0, shorts = 0;

	while (i < len && strchr("-+ #0", spec[i]) && nf < sizeof(flags) - 1)
		flags[nf++] = spec[i++];
	flags[nf] = '\0';
	if (i < len && spec[i] == '*') {
		width = (int)(int64_t)w->i;
		i++;
	}
	for (; i < len && isdigit((unsigned char)spec[i]); i++)
		width = width * 10 + (spec[i] - '0');
	if (i < len && spec[i] == '.')
		for (prec = 0, i++; i < len && isdigit((unsigned char)spec[i]);
		     i++)
			prec = prec * 10 + (spec[i] - '0');
	for (; i < len - 1; i++) {
		if (spec[i] == 'l')
			longs++;
		else if (spec[i] == 'h')
			shorts++;
		else if (spec[i] == 'z' || spec[i] == 'L')
			longs = 2;
		else
			return fail(e);
	}
	if (width > 256 || width < -256 || prec > 256)
		return fail(e);
	if (conv == 's' && !v->is_str && v->ptr) {
		/* a pointer field: the kernel string (printk format) at
		 * its address, else the address in hex, width ignored (as
		 * print_str_arg() prints a TEP_PRINT_FIELD) */
		uint64_t addr;
		const char *str;

		if (!field_num(e, v->ptr, &addr))
			return false;
		str = pd_tracing_printk(e->t, addr);
		if (str)
			out_add(o, str, strlen(str));
		else
			out_printf(o, "%llx", (unsigned long long)addr);
		return true;
	}
	if (conv == 's') {
		if (!v->is_str)
			return fail(e);
		snprintf(f, sizeof(f), "%%%s*.*s", flags);
		out_conv(o, f, width,
			   prec < 0 || (size_t)prec > v->len ? (int)v->len
							     : prec,
			   v->s);
		return true;
	}
	if (v->is_str)
		return fail(e);
	if (conv == 'p' && func) {
		/* %ps: the function, %pS with +0xoff (libtraceevent's
		 * show_func, perf's kernel map resolving it) */
		uint64_t off = 0;
		const char *name = e->syms && e->syms->fn
					   ? e->syms->fn(e->syms->arg, v->i, &off)
					   : NULL;

		if (name) {
			out_add(o, name, strlen(name));
			if (func == 'S' || func == 'F')
				out_printf(o, "+0x%llx", (unsigned long long)off);
		} else {
			/* no function there: the address, 0 as 0x0 */
			out_printf(o, "0x%llx", (unsigned long long)v->i);
		}
		return true;
	}
	if (conv == 'p') {
		/* glibc's %p: 0x%lx, or (nil) */
		if (v->i == 0)
			out_add(o, "(nil)", 5);
		else
			out_printf(o, "0x%llx", (unsigned long long)v->i);
		return true;
	}
	{
		/* the value as the conversion's C type holds it */
		const bool is_signed = conv == 'd' || conv == 'i';
		const unsigned bytes =
			longs >= 2 ? 8
			: longs ? pd_tracing_long_size(e->t)
			: shorts >= 2 || conv == 'c' ? 1
			: shorts ? 2 : 4;
		const uint64_t x = cut(v->i, bytes, is_signed);

		if (!strchr("diuxXoc", conv))
			return fail(e);
		snprintf(f, sizeof(f), "%%%s*.*ll%c", flags,
			 conv == 'c' ? 'd' : conv);
		if (conv == 'c') {
			const char ch = (char)x;

			out_add(o, &ch, 1);
		} else if (is_signed) {
			out_conv(o, f, width, prec, (long long)x);
		} else {
			out_conv(o, f, width, prec, (unsigned long long)x);
		}
	}
	return true;
}

/* The print fmt evaluated into o; false on what is not understood. */
static bool pretty(struct tp_eval *e, struct tp_out *o)
{
	struct tp_val f;
	size_t i;

	e->p = e->fmt->print_fmt;
	if (!e->p)
		return false;
	e->end = e->p + strlen(e->p);
	if (!string_lit(e, &f))
		return false;
	for (i = 0; i < f.len;) {
		const char *pc = memchr(f.s + i, '%', f.len - i);
		struct tp_val v, w = {0};
		size_t j;
		char func;

		add_unescaped(o, f.s + i, (size_t)((pc ? pc : f.s + f.len) -
						   (f.s + i)));
		if (!pc)
			break;
		j = (size_t)(pc - f.s) + 1;
		if (j < f.len && f.s[j] == '%') {
			out_add(o, "%", 1);
			i = j + 1;
			continue;
		}
		while (j < f.len && !isalpha((unsigned char)f.s[j]))
			j++;
		while (j < f.len && strchr("hlzL", f.s[j]))
			j++;
		if (j >= f.len)
			return false;
		/* %ps, %pS: functions; %pM, %pI4 ...: not understood */
		func = 0;
		if (f.s[j] == 'p' && j + 1 < f.len &&
		    isalnum((unsigned char)f.s[j + 1])) {
			func = f.s[j + 1];
			if (!strchr("sSfF", func))
				return false;
		}
		if (memchr(pc, '*', (size_t)(f.s + j - pc)) &&
		    (!take(e, ",") || !expr(e, &w)))
			return false;
		if (!take(e, ",") || !expr(e, &v))
			return false;
		e->used = 0;
		if (!convert(e, o, pc, (size_t)(f.s + j - pc) + 1, &v, &w,
			     func))
			return false;
		i = j + 1 + (func != 0);
	}
	skip_ws(e);
	return !e->failed && e->p == e->end;
}

/* libtraceevent's tep_print_fields(): " name=value" per event field. */
static void print_fields(struct tp_eval *e, struct tp_out *o)
{
	for (size_t i = 0; i < e->fmt->nr_fields; i++) {
		const struct pd_tp_field *fl = &e->fmt->fields[i];
		struct tp_val v;
		uint64_t x;

		if (fl->flags & PD_TP_F_COMMON)
			continue;
		out_printf(o, " %s=", fl->name);
		e->failed = false;
		if (fl->flags & PD_TP_F_ARRAY) {
			if ((fl->flags & PD_TP_F_STRING) && field_str(e, fl, &v))
				out_add(o, v.s, v.len);
			else if (fl->offset <= e->raw_size &&
				 fl->size <= e->raw_size - fl->offset &&
				 !(fl->flags & PD_TP_F_DYNAMIC)) {
				out_add(o, "ARRAY[", 6);
				for (uint32_t b = 0; b < fl->size; b++)
					out_printf(o, "%s%02x", b ? ", " : "",
						   e->raw[fl->offset + b]);
				out_add(o, "]", 1);
			}
			continue;
		}
		if (!field_num(e, fl, &x))
			continue;
		if (fl->flags & PD_TP_F_POINTER)
			out_printf(o, "0x%llx", (unsigned long long)x);
		else if (fl->is_signed && fl->size == 4 &&
			 (fl->flags & PD_TP_F_LONG))
			out_printf(o, "0x%x", (unsigned)x);
		else if (fl->is_signed && fl->size == 2)
			out_printf(o, "%2d", (short)x);
		else if (fl->is_signed && fl->size == 1)
			out_printf(o, "%1d", (signed char)x);
		else if (fl->is_signed)
			out_printf(o, "%lld",
				   (long long)cut(x, fl->size, true));
		else if (fl->flags & PD_TP_F_LONG)
			out_printf(o, "0x%llx", (unsigned long long)x);
		else
			out_printf(o, "%llu", (unsigned long long)x);
	}
}

size_t pd_tp_print(const struct pd_tracing *t, const struct pd_tp_format *fmt,
		   const void *raw, size_t raw_size,
		   const struct pd_tp_syms *syms, char *out, size_t size)
{
	struct tp_eval e = {.t = t, .fmt = fmt, .raw = raw,
			    .raw_size = raw_size, .syms = syms};
	struct tp_out o = {.out = out, .size = size};

	if (size)
		out[0] = '\0';
	if (pretty(&e, &o))
		return o.len;
	o.len = 0;
	if (size)
		out[0] = '\0';
	out_add(&o, "[FAILED TO PARSE]", 17);
	print_fields(&e, &o);
	return o.len;
}
