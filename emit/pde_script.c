/*
 * pde_script.c - sample lines as `perf script` 6.1 prints them: the
 * fields of its perf_sample__fprintf_start() and process_event(), in
 * their widths, then the ip field (sample__fprintf_sym(): one line, or a
 * line per callchain frame), which the caller formats once per distinct
 * stack with pde_script_stack_text() and hands back with each sample.
 *
 * Numbers are formatted by hand into a buffer of the writer's and the
 * buffer goes out in large writes: a capture's text is several lines a
 * sample, and printf per field would be most of the time.
 */
#include "pd_config.h"
#include "pda_branch.h"
#include "pda_session.h"
#include "pde.h"
#include "pde_text_int.h"
#include "pdc_strbuf.h"
#include "pdc_text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- fields and types ----------------------------------------------- */

static const char *const field_names[PDE_SCRIPT_NR_FIELDS] = {
#define PDE_SCRIPT_NAME(name, str) str,
	PDE_SCRIPT_FIELDS(PDE_SCRIPT_NAME)
#undef PDE_SCRIPT_NAME
};

/* perf's PERF_TYPE_SYNTH (util/event.h: INT_MAX + 1U) */
#define PERF_TYPE_SYNTH 0x80000000u

const char *pde_script_field_name(uint64_t bit)
{
	for (unsigned i = 0; i < PDE_SCRIPT_NR_FIELDS; i++)
		if (bit == (uint64_t)1 << i)
			return field_names[i];
	return "?";
}

enum pde_script_type pde_script_type(uint32_t attr_type)
{
	/* perf's PERF_TYPE_SYNTH (INT_MAX + 1U): its synthesized (Intel
	 * PT ...) events */
	if (attr_type == PERF_TYPE_SYNTH)
		return PDE_SCRIPT_SYNTH;
	return attr_type < 6 ? (enum pde_script_type)attr_type
			     : PDE_SCRIPT_OTHER;
}

#define BASE (PDE_SF(COMM) | PDE_SF(TID) | PDE_SF(CPU) | PDE_SF(TIME) | \
	      PDE_SF(EVENT))
#define SYMS (PDE_SF(IP) | PDE_SF(SYM) | PDE_SF(SYMOFF) | PDE_SF(DSO))

void pde_script_fields_default(struct pde_script_fields *f)
{
	memset(f, 0, sizeof(*f));
	/* builtin-script.c's output[] table */
	f->fields[PDE_SCRIPT_HW] = BASE | SYMS | PDE_SF(PERIOD);
	f->fields[PDE_SCRIPT_SW] = BASE | SYMS | PDE_SF(PERIOD) |
				   PDE_SF(BPF_OUTPUT);
	f->fields[PDE_SCRIPT_TRACEPOINT] = BASE | PDE_SF(TRACE);
	f->fields[PDE_SCRIPT_HW_CACHE] = BASE | SYMS | PDE_SF(PERIOD);
	/* perf 6.1's raw events (perf mem's among them) also print what
	 * their sample type holds of data_src, phys_addr, the page sizes
	 * and ins_lat: check_stype() drops the others, as perf's
	 * evsel__check_attr() does a default field */
	f->fields[PDE_SCRIPT_RAW] = BASE | SYMS | PDE_SF(PERIOD) |
				    PDE_SF(ADDR) | PDE_SF(DATA_SRC) |
				    PDE_SF(WEIGHT) | PDE_SF(PHYS_ADDR) |
				    PDE_SF(DATA_PAGE_SIZE) |
				    PDE_SF(CODE_PAGE_SIZE) | PDE_SF(INS_LAT);
	f->fields[PDE_SCRIPT_BREAKPOINT] = BASE | SYMS | PDE_SF(PERIOD);
	f->fields[PDE_SCRIPT_SYNTH] = BASE | SYMS | PDE_SF(SYNTH);
	f->fields[PDE_SCRIPT_OTHER] = BASE | SYMS | PDE_SF(PERIOD);
}

static const struct {
	const char *name;
	enum pde_script_type type;
} type_names[] = {
	{"hw", PDE_SCRIPT_HW},	   {"sw", PDE_SCRIPT_SW},
	{"trace", PDE_SCRIPT_TRACEPOINT}, {"raw", PDE_SCRIPT_RAW},
	{"synth", PDE_SCRIPT_SYNTH},
};

static uint64_t field_bit(const char *s, size_t len)
{
	for (unsigned i = 0; i < PDE_SCRIPT_NR_FIELDS; i++)
		if (strlen(field_names[i]) == len &&
		    memcmp(field_names[i], s, len) == 0)
			return (uint64_t)1 << i;
	return 0;
}

int pde_script_fields_parse(struct pde_script_fields *f, const char *arg,
			    char *err, size_t err_size)
{
	const char *colon = strchr(arg, ':'), *p = arg;
	int type = -1;
	uint64_t set = 0, add = 0, del = 0;
	bool change = false, bare = false, reset;

	if (colon) {
		for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]);
		     i++)
			if (strlen(type_names[i].name) == (size_t)(colon - arg) &&
			    memcmp(type_names[i].name, arg, (size_t)(colon - arg)) ==
				    0)
				type = (int)type_names[i].type;
		if (type < 0) {
			snprintf(err, err_size,
				 "-F '%s': unknown type '%.*s' (hw, sw, "
				 "trace, raw or synth)",
				 arg, (int)(colon - arg), arg);
			return PD_ERR_API;
		}
		p = colon + 1;
	}
	/* perf 6.1 keeps the defaults of a list with a '+' or '-'
	 * anywhere ("Don't override defaults for +-"), the one of
	 * "bpf-output" too: its bare fields are then added to them */
	reset = !strpbrk(p, "+-");
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char sign = 0;
		uint64_t bit;

		if (len && (*p == '+' || *p == '-')) {
			sign = *p++;
			len--;
		}
		bit = field_bit(p, len);
		if (!bit) {
			snprintf(err, err_size,
				 "-F: unknown or unsupported field '%.*s'",
				 (int)len, p);
			return PD_ERR_API;
		}
		if (sign)
			change = true;
		else
			bare = true;
		if (sign == '-')
			del |= bit;
		else if (sign == '+')
			add |= bit;
		else
			set |= bit;
		p = end ? end + 1 : p + len;
	}
	if (change && bare) {
		snprintf(err, err_size,
			 "-F '%s': +field and -field cannot be mixed with "
			 "bare fields",
			 arg);
		return PD_ERR_API;
	}
	if (!change && !set) {
		snprintf(err, err_size, "-F '%s': no fields", arg);
		return PD_ERR_API;
	}
	for (int t = 0; t < PDE_SCRIPT_NR_TYPES; t++) {
		/* perf's invalid_fields: trace is a tracepoint's only, and
		 * an untyped list leaves it out of the other types' */
		const uint64_t keep =
			t == PDE_SCRIPT_TRACEPOINT ? ~(uint64_t)0 : ~PDE_SF(TRACE);

		if (type >= 0 && t != type)
			continue;
		if (change) {
			f->fields[t] = (f->fields[t] | (add & keep)) & ~del;
			f->user[t] = (f->user[t] | (add & keep)) & ~del;
			/* perf's parse_output_fields() marks the type set
			 * by a +field or -field valid for it too, but for
			 * flags (a switch of its own there) */
			if ((add | del) & keep & ~PDE_SF(FLAGS))
				f->user_set[t] = true;
		} else {
			f->fields[t] = (reset ? 0 : f->fields[t]) | (set & keep);
			f->user[t] = (reset ? 0 : f->user[t]) | (set & keep);
			f->user_set[t] = true;
		}
	}
	return 0;
}

/* ---- formatting ------------------------------------------------------ */

static const char hexdig[] = "0123456789abcdef";

#define FLAGS_WIDTH 21 /* perf's SAMPLE_FLAGS_STR_ALIGNED_SIZE */
#define FLAGS_MAX 64   /* perf's SAMPLE_FLAGS_BUF_SIZE */

/*
 * A sample's pd_ip_flags as perf 7's perf_sample__sprintf_flags() writes
 * them into out: a "tr strt"/"tr end" prefix, the kind's name when its
 * table has one ("jcc", "return"), the branch's events ("/miss,
 * not_taken/"), then "()" right-aligned when an additional state bit is
 * set (perf clears those bits before it tests them for "x", "D", "t",
 * and aligns by its last piece's length, not the whole); with none of
 * that, a letter per flag.  @return the length.
 */
static size_t flags_str(uint32_t flags, char out[FLAGS_MAX])
{
	enum { B = PD_IP_FLAG_BRANCH, C = PD_IP_FLAG_CALL,
	       R = PD_IP_FLAG_RETURN, I = PD_IP_FLAG_INTERRUPT };
	static const struct {
		uint32_t flags;
		const char *name;
	} kinds[] = {
		{B | C, "call"},
		{B | R, "return"},
		{B | PD_IP_FLAG_CONDITIONAL, "jcc"},
		{B, "jmp"},
		{B | C | I, "int"},
		{B | R | I, "iret"},
		{B | C | PD_IP_FLAG_SYSCALLRET, "syscall"},
		{B | R | PD_IP_FLAG_SYSCALLRET, "sysret"},
		{B | PD_IP_FLAG_ASYNC, "async"},
		{B | C | PD_IP_FLAG_ASYNC | I, "hw int"},
		{B | PD_IP_FLAG_TX_ABORT, "tx abrt"},
		{B | PD_IP_FLAG_TRACE_BEGIN, "tr strt"},
		{B | PD_IP_FLAG_TRACE_END, "tr end"},
		{B | C | PD_IP_FLAG_VMENTRY, "vmentry"},
		{B | C | PD_IP_FLAG_VMEXIT, "vmexit"},
	};
	static const char chars[] = "bcrosyiABExghDtmn";
	const uint32_t state = PD_IP_FLAG_IN_TX | PD_IP_FLAG_INTR_DISABLE |
			       PD_IP_FLAG_INTR_TOGGLE;
	const uint32_t events = PD_IP_FLAG_BRANCH_MISS | PD_IP_FLAG_NOT_TAKEN;
	uint32_t f = flags & ~state;
	size_t n = 0, last = 0;
	int nev = 0;

	if (f & (PD_IP_FLAG_TRACE_BEGIN | PD_IP_FLAG_TRACE_END)) {
		const char *pre = f & PD_IP_FLAG_TRACE_BEGIN ? "tr strt "
							     : "tr end  ";

		n = last = strlen(pre);
		memcpy(out, pre, n);
	}
	f &= ~(uint32_t)(PD_IP_FLAG_TRACE_BEGIN | PD_IP_FLAG_TRACE_END);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].flags == (f & ~events)) {
			last = strlen(kinds[i].name);
			memcpy(out + n, kinds[i].name, last);
			n += last;
			break;
		}
	if (f & events) {
		static const char *const names[] = {"miss", "not_taken"};
		static const uint32_t bits[] = {PD_IP_FLAG_BRANCH_MISS,
						PD_IP_FLAG_NOT_TAKEN};

		for (size_t i = 0; i < 2; i++)
			if (f & bits[i]) {
				out[n++] = nev++ ? ',' : '/';
				memcpy(out + n, names[i], strlen(names[i]));
				n += strlen(names[i]);
			}
		out[n++] = '/';
		last = 1;
	}
	if (flags & state) {
		if (n + 2 < FLAGS_WIDTH) {
			for (size_t k = 2; k < FLAGS_WIDTH - last; k++)
				out[n++] = ' ';
		} else {
			out[n++] = ' ';
		}
		out[n++] = '(';
		out[n++] = ')';
	}
	if (n)
		return n;
	for (unsigned b = 0; b < 32; b++)
		if (flags >> b & 1)
			out[n++] = b < sizeof(chars) - 1 ? chars[b] : '?';
	return n;
}

/* v in hex, right-aligned in width (0: as long as it is); @return the
 * bytes written at p.  Written from its last digit back (a script line
 * has several: no digit string reversed). */
static size_t put_hex(char *p, uint64_t v, unsigned width)
{
	const size_t n = v ? (67u - (unsigned)__builtin_clzll(v)) / 4 : 1;
	const size_t pad = width > n ? width - n : 0;
	char *q = p + pad + n;

	memset(p, ' ', pad);
	do {
		*--q = hexdig[v & 15];
		v >>= 4;
	} while (v);
	return pad + n;
}

/* "00".."99": two decimal digits at a time */
static const char dec2[] = "00010203040506070809101112131415161718192021222324"
			   "25262728293031323334353637383940414243444546474849"
			   "50515253545556575859606162636465666768697071727374"
			   "75767778798081828384858687888990919293949596979899";

/* v in decimal, right-aligned in width, zero-padded when zero is set. */
static size_t put_dec(char *p, uint64_t v, unsigned width, bool zero)
{
	size_t n = 1, pad;
	char *q;

	for (uint64_t t = v; t >= 10; t /= 10)
		n++;
	pad = width > n ? width - n : 0;
	memset(p, zero ? '0' : ' ', pad);
	q = p + pad + n;
	while (v >= 100) {
		const size_t i = (size_t)(v % 100) * 2;

		v /= 100;
		q -= 2;
		q[0] = dec2[i];
		q[1] = dec2[i + 1];
	}
	if (v >= 10) {
		q[-2] = dec2[v * 2];
		q[-1] = dec2[v * 2 + 1];
	} else {
		q[-1] = (char)('0' + v);
	}
	return pad + n;
}

/* A signed 32-bit value as %5d prints it. */
static size_t put_int(char *p, int32_t v, unsigned width)
{
	char tmp[12];
	size_t n;

	if (v >= 0)
		return put_dec(p, (uint64_t)v, width, false);
	tmp[0] = '-';
	n = 1 + put_dec(tmp + 1, (uint64_t)(-(int64_t)v), 0, false);
	if (width > n) {
		memset(p, ' ', width - n);
		memcpy(p + width - n, tmp, n);
		return width;
	}
	memcpy(p, tmp, n);
	return n;
}

/* Name s (pdc_text.h's rule) into b. */
static void add_name(struct pdc_strbuf *b, const char *s)
{
	pdc_strbuf_add_text(b, s, strlen(s));
}

static void add_hex(struct pdc_strbuf *b, uint64_t v, unsigned width)
{
	char tmp[32];

	pdc_strbuf_add(b, tmp, put_hex(tmp, v, width));
}

/* The file name part of a path, as perf's srclines and short names. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* " sym+0xoff", " sym" or " [unknown]" */
static void add_sym(struct pdc_strbuf *b, const struct pda_frame *fr,
		    uint64_t fields)
{
	pdc_strbuf_add(b, " ", 1);
	if (!fr || !fr->sym) {
		pdc_strbuf_add(b, "[unknown]", 9);
		return;
	}
	add_name(b, fr->sym);
	if (fields & PDE_SF(SYMOFF)) {
		pdc_strbuf_add(b, "+0x", 3);
		add_hex(b, fr->sym_off, 0);
	}
}

/*
 * A kernel module's name as perf names its DSO: "[kvm]" for
 * /lib/modules/.../kvm.ko(.xz), '-' as '_' (kmod_path__parse_name).
 * false when dso is not a module's file.
 */
static bool add_module(struct pdc_strbuf *b, const char *dso)
{
	const char *name = base_name(dso), *ko = strstr(name, ".ko");
	char buf[256];
	size_t len;

	if (!ko || dso[0] != '/' ||
	    (ko[3] && strcmp(ko + 3, ".xz") && strcmp(ko + 3, ".gz") &&
	     strcmp(ko + 3, ".zst")))
		return false;
	len = (size_t)(ko - name);
	if (len + 2 >= sizeof(buf))
		return false;
	buf[0] = '[';
	for (size_t i = 0; i < len; i++)
		buf[1 + i] = name[i] == '-' ? '_' : name[i];
	buf[1 + len] = ']';
	pdc_strbuf_add_text(b, buf, len + 2);
	return true;
}

/* "(dso)" as perf's map__fprintf_dsoname() between parentheses */
static void add_dso_name(struct pdc_strbuf *b, const char *dso, bool module)
{
	pdc_strbuf_add(b, "(", 1);
	if (dso) {
		if (!module || !add_module(b, dso))
			add_name(b, dso);
	} else {
		pdc_strbuf_add(b, "[unknown]", 9);
	}
	pdc_strbuf_add(b, ")", 1);
}

static void add_dso(struct pdc_strbuf *b, const struct pda_frame *fr)
{
	pdc_strbuf_add(b, " ", 1);
	add_dso_name(b, fr ? fr->dso : NULL,
		     fr && (fr->flags & PDA_FRAME_MODULE));
}

/*
 * "\n  file:line" for a frame in a map, as map__fprintf_srcline():
 * the line of the address (src: the innermost frame at it), else the
 * DSO's short name and the address.  Nothing without a map, nor where
 * addr2line answers "??:?" (its "??:0" perf takes for a failure).
 */
/* perf's get_srcline() text: "file:line" (the file's name), else
 * "dso[addr]" (addr in the binary) */
static void add_srcline_text(struct pdc_strbuf *b, const char *srcfile,
			     unsigned line, const char *dso, uint64_t addr)
{
	char tmp[32];

	if (srcfile) {

		add_name(b, base_name(srcfile));
		tmp[0] = ':';
		pdc_strbuf_add(b, tmp, 1 + put_dec(tmp + 1, line, 0, false));
		return;
	}
	if (pda_jit_short_name(dso, tmp, sizeof(tmp)))
		pdc_strbuf_add_text(b, tmp, strlen(tmp));
	else
		add_name(b, base_name(dso));
	pdc_strbuf_add(b, "[", 1);
	add_hex(b, addr, 0);
	pdc_strbuf_add(b, "]", 1);
}

static void add_srcline(struct pdc_strbuf *b, const struct pda_frame *fr,
			const struct pda_frame *src)
{
	if (!fr || !fr->dso || (src && (src->flags & PDA_FRAME_NO_SRCLINE)))
		return;
	pdc_strbuf_add(b, "\n  ", 3);
	add_srcline_text(b, src ? src->srcfile : NULL, src ? src->line : 0,
			 fr->dso,
			 fr->flags & PDA_FRAME_KERNEL ? fr->ip : fr->dso_addr);
}

void pde_script_frame_line(struct pdc_strbuf *b, const struct pda_frame *f,
			   const struct pda_frame *src, uint64_t fields)
{
	const bool inl = f->flags & PDA_FRAME_DWARF_NAMED;

	if (fields & PDE_SF(IP)) {
		char tmp[24];

		tmp[0] = '\t';
		pdc_strbuf_add(b, tmp, 1 + put_hex(tmp + 1, f->map_ip, 16));
	}
	if (fields & PDE_SF(SYM))
		add_sym(b, f, fields);
	if ((fields & PDE_SF(DSO)) && !inl)
		add_dso(b, f);
	if (fields & PDE_SF(SRCLINE))
		add_srcline(b, f, src);
	if (inl)
		pdc_strbuf_add(b, " (inlined)", 10);
	pdc_strbuf_add(b, "\n", 1);
}

const struct pda_frame *pde_script_srcline_frame(const struct pda_frame *fr,
						 size_t i)
{
	/* the frames of an address's inlined functions are one run, the
	 * innermost first */
	while (i > 0 && fr[i - 1].ip == fr[i].ip &&
	       (fr[i - 1].flags & PDA_FRAME_INLINED))
		i--;
	return &fr[i];
}

/* The function holding a sample's ip: the outermost frame of its
 * inlined ones. */
static const struct pda_frame *leaf_frame(const struct pda_frame *fr,
					  size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (!(fr[i].flags & PDA_FRAME_INLINED))
			return &fr[i];
	return NULL;
}

void pde_script_leaf_srcline(struct pdc_strbuf *b, const struct pda_frame *fr,
			     size_t nr)
{
	add_srcline(b, leaf_frame(fr, nr), nr ? &fr[0] : NULL);
}

void pde_script_ip_head(struct pdc_strbuf *b, uint64_t ip, uint64_t fields)
{
	char tmp[24];

	tmp[0] = ' ';
	pdc_strbuf_add(b, tmp,
		       1 + (fields & PDE_SF(IP) ? put_hex(tmp + 1, ip, 16) : 0));
}

void pde_script_leaf_text(struct pdc_strbuf *b, const struct pda_frame *fr,
			  size_t nr, uint64_t fields)
{
	/* the function holding the sample's ip */
	const struct pda_frame *leaf = leaf_frame(fr, nr);

	if (fields & PDE_SF(SYM))
		add_sym(b, leaf, fields);
	if (fields & PDE_SF(DSO))
		add_dso(b, leaf);
	if (fields & PDE_SF(SRCLINE))
		add_srcline(b, leaf, nr ? &fr[0] : NULL);
}

void pde_script_stack_text(struct pdc_strbuf *b, const struct pda_frame *fr,
			   size_t nr, uint64_t fields, bool callchain,
			   uint64_t ip)
{
	if (!callchain) {
		pde_script_ip_head(b, ip, fields);
		pde_script_leaf_text(b, fr, nr, fields);
		return;
	}
	pdc_strbuf_add(b, "\n", 1);
	for (size_t i = 0; i < nr; i++)
		pde_script_frame_line(b, &fr[i],
				      pde_script_srcline_frame(fr, i), fields);
}

/* ---- the writer ------------------------------------------------------ */

#define OUT_FLUSH (1u << 18) /* bytes buffered before a write */
#define LINE_MAX_HEAD 4096   /* a line's fields before its ip text, at
			      * most (a comm and an event name included) */

int pde_script_init(struct pde_script *w, FILE *out, bool ns,
		    unsigned name_width)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->ns = ns;
	w->name_width = name_width > 256 ? 256 : name_width;
	w->cap = OUT_FLUSH + LINE_MAX_HEAD;
	w->buf = malloc(w->cap);
	return w->buf ? 0 : PD_ERR_NOMEM;
}

static int flush(struct pde_script *w)
{
	if (w->len && !w->failed &&
	    fwrite(w->buf, 1, w->len, w->out) != w->len)
		w->failed = true;
	w->len = 0;
	return w->failed ? PD_ERR_IO : 0;
}

/* Room for n more bytes. */
static int room(struct pde_script *w, size_t n)
{
	if (w->len + n <= w->cap)
		return 0;
	if (flush(w) < 0)
		return PD_ERR_IO;
	if (n > w->cap) {
		char *nb = realloc(w->buf, n);

		if (!nb)
			return PD_ERR_NOMEM;
		w->buf = nb;
		w->cap = n;
	}
	return 0;
}

/*
 * perf 6.1's misc field (perf_sample__fprintf_start): a letter for each
 * cpumode the header's misc matches as a mask, (misc & m) == m, so that
 * a hypervisor sample (3) is "KUH" and a guest user one (5) "KGg" as
 * perf prints them, then "%*s" of " " in 6 less the letters.
 */
static size_t put_misc(char *p, unsigned misc, uint32_t type)
{
	static const struct {
		unsigned mode;
		char c;
	} modes[] = {{1, 'K'}, {2, 'U'}, {3, 'H'}, {4, 'G'}, {5, 'g'}};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if ((misc & modes[i].mode) == modes[i].mode)
			p[n++] = modes[i].c;
	/* a side-band record's flags (--show-*-events) */
	if ((type == PD_REC_MMAP || type == PD_REC_MMAP2) &&
	    (misc & PD_MISC_MMAP_DATA))
		p[n++] = 'M';
	if (type == PD_REC_COMM && (misc & PD_MISC_COMM_EXEC))
		p[n++] = 'E';
	if ((type == PD_REC_SWITCH || type == PD_REC_SWITCH_CPU_WIDE) &&
	    (misc & PD_MISC_SWITCH_OUT)) {
		p[n++] = 'S';
		if (misc & PD_MISC_SWITCH_OUT_PREEMPT)
			p[n++] = 'p';
	}
	do
		p[n++] = ' ';
	while (n < 6);
	return n;
}

/*
 * perf 6.1's tod field (tod_scnprintf): the sample's time on the wall
 * clock, from the capture's CLOCK_DATA pair, as local time
 * "%F %H:%M:%S" with 6 decimals (9 with --ns), then a space.
 */
static size_t put_tod(const struct pde_script *w, char *p, uint64_t t)
{
	uint64_t ns = w->tod_ns;
	char date[64];
	struct tm tm;
	time_t sec;
	int n;

	if (!w->tod) {
		memcpy(p, "disabled ", 9);
		return 9;
	}
	if (t > w->clock_ns)
		ns += t - w->clock_ns;
	else
		ns -= w->clock_ns - t;
	sec = (time_t)(ns / 1000000000u);
	ns %= 1000000000u;
	if (!localtime_r(&sec, &tm)) {
		memcpy(p, "failed ", 7);
		return 7;
	}
	strftime(date, sizeof(date), "%F %H:%M:%S", &tm);
	n = snprintf(p, 96, "%s.%0*" PRIu64 " ", date, w->ns ? 9 : 6,
		     w->ns ? ns : ns / 1000);
	return n > 0 ? (size_t)n : 0;
}

/* s as text (pdc_text.h), right-aligned in width. */
static size_t put_name(char *p, size_t cap, const char *s, unsigned width)
{
	const size_t len = strlen(s);
	size_t n = 0;

	if (pdc_text_plain(s, len) == len && len < cap) {
		if (width > len) {
			if (width - len >= cap - len)
				width = (unsigned)(cap - 1);
			memset(p, ' ', width - len);
			n = width - len;
		}
		memcpy(p + n, s, len);
		return n + len;
	} else {
		char small[256];
		struct pdc_strbuf b;

		pdc_strbuf_init(&b, NULL, small, sizeof(small));
		pdc_strbuf_add_text(&b, s, len);
		if (!b.oom) {
			size_t l = b.len < cap / 2 ? b.len : cap / 2;

			if (width > l && width - l < cap / 2) {
				memset(p, ' ', width - l);
				n = width - l;
			}
			memcpy(p + n, b.p, l);
			n += l;
		}
		pdc_strbuf_release(&b);
		return n;
	}
}

/* ---- data_src (perf's mem-events.c) ---------------------------------- */

/* the bits of union perf_mem_data_src, and perf 6.1's names for them */
static const char *const mem_lvl[] = {
	"N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM",
	"Remote RAM (1 hop)", "Remote RAM (2 hops)",
	"Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O", "Uncached",
};
static const char *const mem_lvlnum[16] = {
	[0xb] = "Any cache", [0xc] = "LFB/MAB", [0xd] = "RAM",
	[0xe] = "PMEM", [0xf] = "N/A",
};
static const char *const mem_hops[8] = {
	"N/A", "core, same node", "node, same socket", "socket, same board",
	"board",
};
static const char *const snoop_access[] = {"N/A", "None", "Hit", "Miss",
					    "HitM"};
static const char *const snoopx_access[] = {"Fwd", "Peer"};
static const char *const tlb_access[] = {"N/A", "HIT", "MISS", "L1",
					  "L2", "Walker", "Fault"};

#define DS_FIELD(v, shift, bits)                                            \
	((unsigned)((v) >> (shift)) & ((1u << (bits)) - 1))

static void ds_put(struct pdc_strbuf *b, const char *s)
{
	pdc_strbuf_add(b, s, strlen(s));
}

/* The set bits of m named from names[], " or " between; the length. */
static size_t ds_bits(struct pdc_strbuf *b, uint64_t m,
		      const char *const *names, size_t nr, bool sep)
{
	size_t n = 0;

	for (size_t i = 0; m && i < nr; i++, m >>= 1) {
		if (!(m & 1))
			continue;
		if (n++ || sep)
			ds_put(b, " or ");
		ds_put(b, names[i]);
	}
	return n;
}

/* The fields of perf's data_src string, in its order */
static const char *const ds_names[] = {"OP", "LVL", "SNP", "TLB", "LCK",
				       "BLK"};
#define DS_NR_NAMES (sizeof(ds_names) / sizeof(ds_names[0]))

/* The text of field f (ds_names[f]) of perf's data_src string: each
 * field from its own bits, so that report --mem-mode's cells do not
 * build the whole string for each (a row has several). */
static void ds_field_put(struct pdc_strbuf *b, uint64_t ds, size_t f)
{
	const unsigned op = DS_FIELD(ds, 0, 5), lvl = DS_FIELD(ds, 5, 14);
	const unsigned snoop = DS_FIELD(ds, 19, 5), lock = DS_FIELD(ds, 24, 2);
	const unsigned tlb = DS_FIELD(ds, 26, 7), lvlnum = DS_FIELD(ds, 33, 4);
	const unsigned remote = DS_FIELD(ds, 37, 1);
	const unsigned snoopx = DS_FIELD(ds, 38, 2), blk = DS_FIELD(ds, 40, 3);
	const unsigned hops = DS_FIELD(ds, 43, 3);
	const size_t at = b->len;
	size_t n = 0;

	switch (f) {
	case 0:
		ds_put(b, op & 1    ? "N/A"
			  : op & 2  ? "LOAD"
			  : op & 4  ? "STORE"
			  : op & 8  ? "PFETCH"
			  : op & 16 ? "EXEC"
				    : "No");
		break;
	case 1:
		if (remote)
			ds_put(b, "Remote ");
		if (hops) {
			ds_put(b, mem_hops[hops] ? mem_hops[hops] : "");
			ds_put(b, " ");
		} else {
			n = ds_bits(b, lvl & ~6u, mem_lvl,
				    sizeof(mem_lvl) / sizeof(mem_lvl[0]),
				    false);
		}
		if (lvlnum) {
			char l[8];

			if (n++)
				ds_put(b, " or ");
			snprintf(l, sizeof(l), "L%u", lvlnum);
			ds_put(b, mem_lvlnum[lvlnum] ? mem_lvlnum[lvlnum] : l);
		}
		if (b->len == at)
			ds_put(b, "N/A");
		if (lvl & 2)
			ds_put(b, " hit");
		if (lvl & 4)
			ds_put(b, " miss");
		break;
	case 2:
		n = ds_bits(b, snoop, snoop_access, 5, false);
		ds_bits(b, snoopx, snoopx_access, 2, n > 0);
		if (b->len == at)
			ds_put(b, "N/A");
		break;
	case 3:
		ds_bits(b, tlb & ~6u, tlb_access, 7, false);
		if (b->len == at)
			ds_put(b, "N/A");
		if (tlb & 2)
			ds_put(b, " hit");
		if (tlb & 4)
			ds_put(b, " miss");
		break;
	case 4:
		ds_put(b, lock & 1 ? "N/A" : lock & 2 ? "Yes" : "No");
		break;
	default:
		if (!blk || (blk & 1)) {
			ds_put(b, " N/A");
		} else {
			if (blk & 2)
				ds_put(b, " Data");
			if (blk & 4)
				ds_put(b, " Addr");
		}
		break;
	}
}

/* b's text into out as snprintf; b's length. */
static size_t ds_out(struct pdc_strbuf *b, char *out, size_t size)
{
	const size_t len = b->len;

	if (size) {
		const size_t k = len < size ? len : size - 1;

		memcpy(out, pdc_strbuf_str(b), k);
		out[k] = '\0';
	}
	pdc_strbuf_release(b);
	return len;
}

size_t pde_data_src_str(uint64_t ds, char *out, size_t size)
{
	struct pdc_strbuf b;
	char stack[256];

	pdc_strbuf_init(&b, NULL, stack, sizeof(stack));
	for (size_t f = 0; f < DS_NR_NAMES; f++) {
		ds_put(&b, "|");
		ds_put(&b, ds_names[f]);
		ds_put(&b, " ");
		ds_field_put(&b, ds, f);
	}
	return ds_out(&b, out, size);
}

void pde_data_src_put(struct pdc_strbuf *b, uint64_t ds, unsigned f)
{
	if (f < DS_NR_NAMES)
		ds_field_put(b, ds, f);
}

size_t pde_data_src_field(uint64_t ds, const char *name, char *out,
			  size_t size)
{
	struct pdc_strbuf b;
	char stack[128];
	unsigned f = 0;

	while (f < DS_NR_NAMES && strcmp(ds_names[f], name))
		f++;
	pdc_strbuf_init(&b, NULL, stack, sizeof(stack));
	pde_data_src_put(&b, ds, f);
	return ds_out(&b, out, size);
}

static void add_symoff(struct pdc_strbuf *b,
		       const struct pda_branch_loc *loc);

/* The symbol and DSO perf_sample__fprintf_addr() prints after an
 * address that names one: " sym[+0xoff]" and " (dso)" as the fields
 * say. */
static int add_addr_sym(struct pde_script *w, const struct pde_script_line *l)
{
	const struct pda_branch_loc *loc = l->addr_loc;
	char small[512];
	struct pdc_strbuf b;
	int rc;

	pdc_strbuf_init(&b, NULL, small, sizeof(small));
	if (l->fields & PDE_SF(SYM)) {
		pdc_strbuf_add(&b, " ", 1);
		if (l->fields & PDE_SF(SYMOFF))
			add_symoff(&b, loc);
		else if (loc && loc->sym)
			add_name(&b, loc->sym);
		else
			pdc_strbuf_add(&b, "[unknown]", 9);
	}
	if (l->fields & PDE_SF(DSO)) {
		pdc_strbuf_add(&b, " ", 1);
		add_dso_name(&b, loc ? loc->dso : NULL, loc && loc->module);
	}
	rc = b.oom ? PD_ERR_NOMEM : pde_script_raw(w, b.p, b.len);
	pdc_strbuf_release(&b);
	return rc;
}

/* ---- synth and bpf-output: raw data perf script decodes itself ---- */

/* perf's own isprint() (tools/lib/ctype.c, the kernel's Latin-1
 * table): 0x20..0x7e and 0xa0..0xff */
static bool perf_isprint(unsigned char c)
{
	return (c >= 0x20 && c < 0x7f) || c >= 0xa0;
}

static void add_fmt(struct pdc_strbuf *b, const char *f, ...)
	__attribute__((format(printf, 2, 3)));
static void add_fmt(struct pdc_strbuf *b, const char *f, ...)
{
	char tmp[160];
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(tmp, sizeof(tmp), f, ap);
	va_end(ap);
	if (n > 0)
		pdc_strbuf_add(b, tmp, (size_t)n < sizeof(tmp)
					       ? (size_t)n
					       : sizeof(tmp) - 1);
}

/* perf_sample__fprintf_synth_ptwrite()'s payload as text: printable
 * ASCII up to NULs and NULs after, else "" */
static void ptw_text(uint64_t v, char str[9])
{
	unsigned i = 0;

	str[0] = '\0';
	for (; i < 8 && (v >> (8 * i) & 0xff); i++) {
		const unsigned char c = (unsigned char)(v >> (8 * i));

		if (c >= 0x7f || !perf_isprint(c))
			return;
	}
	if (i < 8 && v >> (8 * i))
		return;
	for (unsigned k = 0; k < i; k++)
		str[k] = (char)(v >> (8 * k));
	str[i] = '\0';
}

/*
 * A PERF_TYPE_SYNTH sample's synth field, as perf 6.1's
 * perf_sample__fprintf_synth() decodes the struct perf_synth_intel_*
 * of its config from the raw data (which is the struct from its second
 * u32 on): nothing when the raw data is shorter than the struct, else
 * the text padded to 34 columns.
 */
static void add_synth(struct pdc_strbuf *b, const struct pd_sample *s)
{
	/* the structs' sizes less their u32 padding, by config */
	static const unsigned char need[] = {12, 12, 12, 4, 12, 12, 12, 4, 12};
	static const char *const cfe[32] = {
		NULL, "INTR", "IRET", "SMI", "RSM", "SIPI", "INIT", "VMENTRY",
		"VMEXIT", "VMEXIT_INTR", "SHUTDOWN",
	}; /* perf 6.1's: no UINTR, UIRET (12, 13) yet */
	static const char *const evd[64] = {"PFA", "VMXQ", "VMXR"};
	const unsigned char *r = s->raw.data;
	const uint64_t cfg = s->evsel->attr.config;
	const size_t start = b->len;
	uint32_t w;
	uint64_t v;

	if (cfg >= sizeof(need) || !r || s->raw.size < need[cfg])
		return;
	w = pd_load_u32(r, s->swap);
	v = s->raw.size >= 12 ? pd_load_u64(r + 4, s->swap) : 0;
	switch (cfg) {
	case 0: { /* ptwrite: flags (ip), payload */
		char str[9];

		ptw_text(v, str);
		add_fmt(b, " IP: %u payload: %#" PRIx64 " %s ", w & 1, v, str);
		break;
	}
	case 1: /* mwait: hints, extensions */
		add_fmt(b, " hints: %#x extensions: %#x ", (unsigned)(v & 0xff),
			(unsigned)(v >> 32 & 3));
		break;
	case 2: /* pwre */
		add_fmt(b, " hw: %u cstate: %u sub-cstate: %u ",
			(unsigned)(v >> 7 & 1), (unsigned)(v >> 12 & 15),
			(unsigned)(v >> 8 & 15));
		break;
	case 3: /* exstop */
		add_fmt(b, " IP: %u ", w & 1);
		break;
	case 4: /* pwrx */
		add_fmt(b, " deepest cstate: %u last cstate: %u wake reason: "
			   "%#x ",
			(unsigned)(v & 15), (unsigned)(v >> 4 & 15),
			(unsigned)(v >> 8 & 15));
		break;
	case 5: { /* cbr: cbr, max_nonturbo; freq */
		const unsigned cbr = w & 0xff, max = w >> 16 & 0xff;
		const uint32_t freq = pd_load_u32(r + 4, s->swap);

		add_fmt(b, " cbr: %2u freq: %4u MHz ", cbr,
			(unsigned)(((uint64_t)freq + 500) / 1000));
		if (max)
			add_fmt(b, "(%3u%%) ", (5 + (1000 * cbr) / max) / 10);
		break;
	}
	case 6: /* psb */
		add_fmt(b, " psb offs: %#" PRIx64, v);
		break;
	case 7: { /* evt: cfe type, ip, vector, evd_cnt; the evds */
		const unsigned type = w & 31, nr = w >> 16;

		if (cfe[type])
			add_fmt(b, " cfe: %s IP: %d vector: %u", cfe[type],
				(int)(w >> 7 & 1), (unsigned)(w >> 8 & 0xff));
		else
			add_fmt(b, " cfe: %u IP: %d vector: %u", type,
				(int)(w >> 7 & 1), (unsigned)(w >> 8 & 0xff));
		/* perf reads evd_cnt entries whatever the size: those the
		 * raw data holds */
		for (unsigned i = 0; i < nr && 4 + 16 * (size_t)i + 16 <=
						     s->raw.size;
		     i++) {
			const unsigned char *e = r + 4 + 16 * (size_t)i;
			const unsigned et = e[0] & 0x3f;
			const uint64_t pl = pd_load_u64(e + 8, s->swap);

			if (evd[et])
				add_fmt(b, " %s: %#" PRIx64, evd[et], pl);
			else
				add_fmt(b, " EVD_%u: %#" PRIx64, et, pl);
		}
		break;
	}
	default: /* 8, iflag_chg: iflag, via_branch */
		add_fmt(b, " IFLAG: %d->%d %s branch", !(w & 1), (int)(w & 1),
			w & 2 ? "via" : "non");
		break;
	}
	/* perf_sample__fprintf_pt_spacing() */
	while (b->len - start > 0 && b->len - start < 34)
		pdc_strbuf_add(b, " ", 1);
}

/*
 * A BPF output sample's raw data as perf 6.1's
 * perf_sample__fprintf_bpf_output() dumps it (binary__fprintf(), 8
 * bytes a line): "\n", then "%17s" of "BPF output:" (blank on later
 * lines), " %04x:", " %02x" a byte, the line padded, two blanks, the
 * bytes as characters ('.' for the unprintable), "\n"; then
 * "BPF string:" and the text when it is text ended by NULs.
 */
static void add_bpf_output(struct pdc_strbuf *b, const struct pd_sample *s)
{
	const unsigned char *r = s->raw.data;
	const size_t n = r ? s->raw.size : 0;
	bool hit_nul = false, printable = true;

	pdc_strbuf_add(b, "\n", 1);
	for (size_t i = 0; i < n; i += 8) {
		const size_t end = i + 8 < n ? i + 8 : n;

		add_fmt(b, "%17s %04x:", i ? "" : "BPF output:", (unsigned)i);
		for (size_t j = i; j < i + 8; j++) {
			if (j < end)
				add_fmt(b, " %02x", r[j]);
			else
				pdc_strbuf_add(b, "   ", 3);
		}
		pdc_strbuf_add(b, "  ", 2);
		for (size_t j = i; j < end; j++) {
			const unsigned char c = r[j];

			if (hit_nul && c)
				printable = false;
			if (!perf_isprint(c)) {
				pdc_strbuf_add(b, ".", 1);
				if (!printable)
					continue;
				if (c == 0)
					hit_nul = true;
				else
					printable = false;
			} else {
				pdc_strbuf_add(b, (const char *)&c, 1);
			}
		}
		for (size_t j = end; j < i + 8; j++)
			pdc_strbuf_add(b, " ", 1);
		pdc_strbuf_add(b, "\n", 1);
	}
	if (printable && hit_nul) {
		/* perf's "%s" of the bytes: up to the first NUL */
		pdc_strbuf_add(b, "      BPF string: \"", 19);
		pdc_strbuf_add(b, (const char *)r, strnlen((const char *)r, n));
		pdc_strbuf_add(b, "\"\n", 2);
	}
}

/* What perf_sample__fprintf_bts() prints of the fields begin prints:
 * those up to flags, and the ip's fields */
#define BTS_BEGIN                                                          \
	(PDE_SF(COMM) | PDE_SF(TID) | PDE_SF(PID) | PDE_SF(CPU) |           \
	 PDE_SF(MISC) | PDE_SF(TOD) | PDE_SF(TIME) | PDE_SF(PERIOD) |       \
	 PDE_SF(EVENT) | PDE_SF(FLAGS) | SYMS | PDE_SF(SRCLINE))

/*
 * perf 6.1's perf_sample__fprintf_start(): the fields f asks for up to
 * the time (comm, pid/tid, cpu, misc, tod, time) of s, whose thread's
 * comm is comm_in, at p; a record of type's (a sample's or a side-band
 * record's: its misc flags).  @return the end.
 */
static char *put_start(const struct pde_script *w, char *p, uint64_t f,
		       const struct pd_sample *s, const char *comm_in,
		       bool callchain, uint32_t type)
{
	if (f & PDE_SF(COMM)) {
		char unknown[16];
		const char *comm = comm_in;

		if (!comm || !comm[0]) {
			/* perf names a thread it saw no COMM of ":TID" */
			unknown[0] = ':';
			unknown[1 + put_int(unknown + 1, (int32_t)s->tid, 0)] =
				'\0';
			comm = unknown;
		}
		p += put_name(p, 1024, comm, callchain ? 0 : 16);
		*p++ = ' ';
	}
	if ((f & PDE_SF(PID)) && (f & PDE_SF(TID))) {
		char tid[16];
		size_t n;

		p += put_int(p, (int32_t)s->pid, 5);
		*p++ = '/';
		n = put_int(tid, (int32_t)s->tid, 0);
		memcpy(p, tid, n);
		p += n;
		for (; n < 5; n++)
			*p++ = ' ';
		*p++ = ' ';
	} else if (f & PDE_SF(PID)) {
		p += put_int(p, (int32_t)s->pid, 5);
		*p++ = ' ';
	} else if (f & PDE_SF(TID)) {
		p += put_int(p, (int32_t)s->tid, 5);
		*p++ = ' ';
	}
	if (f & PDE_SF(CPU)) {
		/* "[%03d] " */
		*p++ = '[';
		if ((int32_t)s->cpu < 0)
			p += put_int(p, (int32_t)s->cpu, 3);
		else
			p += put_dec(p, s->cpu, 3, true);
		*p++ = ']';
		*p++ = ' ';
	}
	if (f & PDE_SF(MISC))
		p += put_misc(p, s->misc, type);
	if (f & PDE_SF(TOD))
		p += put_tod(w, p, s->time);
	if (f & PDE_SF(TIME)) {
		const uint64_t sec = s->time / 1000000000u;
		const uint64_t ns = s->time % 1000000000u;
		char t[48];
		size_t n;

		if (w->ns) {
			n = put_dec(t, sec, 5, false);
			t[n++] = '.';
			n += put_dec(t + n, ns, 9, true);
		} else {
			n = put_dec(t, sec, 0, false);
			t[n++] = '.';
			n += put_dec(t + n, ns / 1000, 6, true);
			if (n < 12) {
				memmove(t + 12 - n, t, n);
				memset(t, ' ', 12 - n);
				n = 12;
			}
		}
		memcpy(p, t, n);
		p += n;
		*p++ = ':';
		*p++ = ' ';
	}
	return p;
}

int pde_script_begin(struct pde_script *w, const struct pde_script_line *l)
{
	const struct pd_sample *s = l->sample;
	const uint64_t f = l->bts ? l->fields & BTS_BEGIN : l->fields;
	char *p;
	int rc;

	/* perf 7.2 prints the counters' legend before every sample; with
	 * -v, which names the events on each branch, none */
	if ((l->fields & PDE_SF(BRCNTR)) && w->brcntr && !w->brcntr->exact &&
	    ((rc = flush(w)) < 0 ||
	     (rc = pda_brcntr_legend(w->brcntr, w->out, "#")) < 0))
		return rc;
	rc = room(w, LINE_MAX_HEAD);
	if (rc < 0)
		return rc;
	p = w->buf + w->len;
	p = put_start(w, p, f, s, l->comm, l->callchain, PD_REC_SAMPLE);
	if (f & PDE_SF(PERIOD)) {
		p += put_dec(p, s->period, 10, false);
		*p++ = ' ';
	}
	if (f & PDE_SF(EVENT)) {
		p += put_name(p, 1024, l->event, w->name_width);
		*p++ = ':';
		*p++ = ' ';
	}
	if (f & PDE_SF(FLAGS)) {
		/* perf_sample__fprintf_flags(): "  %-21s " of the branch
		 * flags a hardware trace's decoder sets; a sample of any
		 * other event has none, and perf prints the blank column */
		char fl[FLAGS_MAX];
		size_t n = flags_str(s->flags, fl);

		*p++ = ' ';
		*p++ = ' ';
		memcpy(p, fl, n);
		p += n;
		for (; n < FLAGS_WIDTH; n++)
			*p++ = ' ';
		*p++ = ' ';
	}
	if ((f & PDE_SF(TRACE)) && l->trace) {
		/* perf's event_format__fprintf(), after the flags */
		w->len = (size_t)(p - w->buf);
		rc = room(w, l->trace_len + LINE_MAX_HEAD);
		if (rc < 0)
			return rc;
		p = w->buf + w->len;
		memcpy(p, l->trace, l->trace_len);
		p += l->trace_len;
	}
	if ((f & PDE_SF(SYNTH)) &&
	    s->evsel->attr.type == PERF_TYPE_SYNTH) {
		char small[256];
		struct pdc_strbuf b;

		w->len = (size_t)(p - w->buf);
		pdc_strbuf_init(&b, NULL, small, sizeof(small));
		add_synth(&b, s);
		rc = b.oom ? PD_ERR_NOMEM : pde_script_raw(w, b.p, b.len);
		pdc_strbuf_release(&b);
		if (rc == 0)
			rc = room(w, LINE_MAX_HEAD);
		if (rc < 0)
			return rc;
		p = w->buf + w->len;
	}
	if (f & PDE_SF(ADDR))
		p += put_hex(p, s->addr, 16);
	if ((f & PDE_SF(ADDR)) && l->addr_sym &&
	    (f & (PDE_SF(SYM) | PDE_SF(DSO)))) {
		w->len = (size_t)(p - w->buf);
		rc = add_addr_sym(w, l);
		if (rc == 0)
			rc = room(w, LINE_MAX_HEAD);
		if (rc < 0)
			return rc;
		p = w->buf + w->len;
	}
	if (f & PDE_SF(DATA_SRC)) {
		/* "%16x %s", padded to the widest so far (perf's static) */
		char d[160];
		size_t n = put_hex(d, s->data_src, 16);

		d[n++] = ' ';
		n += pde_data_src_str(s->data_src, d + n, sizeof(d) - n);
		if (n >= sizeof(d))
			n = sizeof(d) - 1;
		if (n > w->data_src_width)
			w->data_src_width = (unsigned)n;
		memcpy(p, d, n);
		p += n;
		for (; n < w->data_src_width; n++)
			*p++ = ' ';
	}
	if (f & PDE_SF(WEIGHT))
		/* perf's weight: the first of a WEIGHT_STRUCT's */
		p += put_dec(p,
			     s->mask & PD_SAMPLE_WEIGHT_STRUCT ? s->weight_var1
							       : s->weight,
			     16, false);
	if (f & PDE_SF(INS_LAT))
		/* WEIGHT_STRUCT's var2_w: the instruction latency */
		p += put_dec(p, s->weight_var2, 16, false);
	w->len = (size_t)(p - w->buf);
	return 0;
}

int pde_script_raw(struct pde_script *w, const char *text, size_t len)
{
	int rc;

	if (!len) /* text may be NULL then (an empty buffer never grown) */
		return 0;
	rc = room(w, len);
	if (rc < 0)
		return rc;
	memcpy(w->buf + w->len, text, len);
	w->len += len;
	return 0;
}

/*
 * The name perf 6.1's get_branch_type() gives a branch's type: none for
 * PERF_BR_UNKNOWN, the extended type's for PERF_BR_EXTEND_ABI (perf's
 * x86 build's names: the oracle's; an arm64 perf prints ARM64_* for
 * 3..7).
 */
static const char *branch_type(const struct pd_branch *br)
{
	if (br->type == 0)
		return "";
	if (br->type == PDA_BR_NR_TYPES - 1)
		return pda_branch_new_type_name(br->new_type);
	return pda_branch_type_name(br->type);
}

/* "sym+0xoff" as perf's symbol__fprintf_symname_offs(), or "[unknown]" */
static void add_symoff(struct pdc_strbuf *b, const struct pda_branch_loc *loc)
{
	if (!loc || !loc->sym) {
		pdc_strbuf_add(b, "[unknown]", 9);
		return;
	}
	add_name(b, loc->sym);
	pdc_strbuf_add(b, "+0x", 3);
	add_hex(b, loc->sym_off, 0);
}

/*
 * A branch end as perf 6.1's brstackoff prints it: its map's offset
 * (map__map_ip) unless its dso adjusts symbols, which perf sets for a
 * user binary once its symbols have loaded; as recorded without a map.
 * The kernel's map is no identity map there: perf makes it with pgoff
 * 0, so that its ends print as offsets from the map's start.
 */
static uint64_t off_of(const struct pda_branch_loc *loc, uint64_t addr)
{
	if (!loc || !loc->dso || loc->found)
		return addr;
	if (loc->kernel && !loc->module)
		return addr - loc->map_start;
	return loc->map_ip;
}

/*
 * The branch stack as perf 6.1's perf_sample__fprintf_brstack() (" 0xfrom
 * /0xto", each with "(dso)" when dso is printed) or, brstack not asked
 * for, perf_sample__fprintf_brstacksym() ("sym+0xoff/sym+0xoff") or,
 * neither asked for, perf_sample__fprintf_brstackoff() (brstack's form
 * with each end as its map gives it: the offset in its binary), each
 * entry followed by print_bstack_flags()'s "/P/-/-/cycles/TYPE " (perf
 * 7's with l->brstack7: "/PN/-/-/cycles/TYPE/SPEC ").
 */
static int add_brstack(struct pde_script *w, const struct pde_script_line *l)
{
	const struct pd_sample *s = l->sample;
	const bool sym = !(l->fields & PDE_SF(BRSTACK)) &&
			 (l->fields & PDE_SF(BRSTACKSYM));
	const bool off = !(l->fields & (PDE_SF(BRSTACK) | PDE_SF(BRSTACKSYM)));
	const bool dso = (l->fields & PDE_SF(DSO)) && l->br_ends;
	char small[1024];
	struct pdc_strbuf b;
	int rc;

	pdc_strbuf_init(&b, NULL, small, sizeof(small));
	for (uint64_t i = 0; i < s->branch.nr; i++) {
		const struct pda_branch_loc *from = NULL, *to = NULL;
		struct pd_branch br;
		char flags[64];
		size_t n = 0;

		pd_sample_branch(s, i, &br);
		if (l->br_ends) {
			from = l->br_ends[2 * i];
			to = l->br_ends[2 * i + 1];
		}
		if (sym) {
			add_symoff(&b, from);
		} else {
			pdc_strbuf_add(&b, " 0x", 3);
			add_hex(&b, off ? off_of(from, br.from) : br.from, 0);
		}
		if (dso)
			add_dso_name(&b, from ? from->dso : NULL,
				     from && from->module);
		if (sym) {
			pdc_strbuf_add(&b, "/", 1);
			add_symoff(&b, to);
		} else {
			pdc_strbuf_add(&b, "/0x", 3);
			add_hex(&b, off ? off_of(to, br.to) : br.to, 0);
		}
		if (dso)
			add_dso_name(&b, to ? to->dso : NULL, to && to->module);
		flags[n++] = '/';
		if (l->brstack7 &&
		    (br.mispred || br.predicted || br.not_taken)) {
			/* perf 7's bstack_event_str() */
			flags[n++] = br.predicted ? 'P' : 'M';
			if (br.not_taken)
				flags[n++] = 'N';
		} else {
			flags[n++] = br.mispred || br.predicted
					     ? (br.predicted ? 'P' : 'M')
					     : '-';
		}
		flags[n++] = '/';
		flags[n++] = br.in_tx ? 'X' : '-';
		flags[n++] = '/';
		flags[n++] = br.abort ? 'A' : '-';
		flags[n++] = '/';
		n += put_dec(flags + n, br.cycles, 0, false);
		flags[n++] = '/';
		pdc_strbuf_add(&b, flags, n);
		ds_put(&b, branch_type(&br));
		if (l->brstack7) {
			/* perf 7's branch_spec_desc(), "-" for none */
			static const char *const spec[] = {
				"-", "SPEC_WRONG_PATH",
				"NON_SPEC_CORRECT_PATH", "SPEC_CORRECT_PATH"};

			pdc_strbuf_add(&b, "/", 1);
			ds_put(&b, spec[br.spec]);
		}
		pdc_strbuf_add(&b, " ", 1);
	}
	rc = b.oom ? PD_ERR_NOMEM : pde_script_raw(w, b.p, b.len);
	pdc_strbuf_release(&b);
	return rc;
}

/* dump_insn() of perf 6.1's x86 build: "insn: 48 89 e5 ", "<bad>" */
static void add_insn_text(struct pdc_strbuf *b, const struct pda_bb_line *bl)
{
	char tmp[8 + 16 * 3];
	size_t n = 6;

	if (!bl->len) {
		pdc_strbuf_add(b, "<bad>", 5);
		return;
	}
	memcpy(tmp, "insn: ", 6);
	for (unsigned i = 0; i < bl->len && i < 16; i++) {
		tmp[n++] = hexdig[bl->bytes[i] >> 4];
		tmp[n++] = hexdig[bl->bytes[i] & 15];
		tmp[n++] = ' ';
	}
	pdc_strbuf_add(b, tmp, n);
}

/*
 * perf 7.2's brcntr text of a brstackinsn branch, appended to b after
 * its tab: "\t# br_cntr: ", then for each event of the sample's group with counters
 * its letter as often as it occurred in the block, and "+" when its
 * field saturated ("AAA+B"), "-" when none occurred, and a space.  With
 * -v (brcntr->exact), perf's counts by name instead: "cpu-clock 3+
 * task-clock 0 " and the space.
 */
static void add_brcntr(struct pdc_strbuf *b, const struct pde_script *w,
		       const struct pd_sample *s, uint64_t entry)
{
	const uint64_t mask = (1ull << w->brcntr->width) - 1;
	uint64_t counts[PDA_BR_CNTR_MAX];
	unsigned cols = 0;
	size_t at;

	ds_put(b, "\t# br_cntr: ");
	at = b->len;
	if (entry < s->branch.counters.nr)
		cols = pda_brcntr_split(w->brcntr, s->evsel, w->env,
					pd_u64s_get(&s->branch.counters, entry),
					counts);
	for (unsigned i = 0; i < w->brcntr->nr; i++) {
		const char abbr = (char)('A' + i);

		if (!(cols & (1u << i)))
			continue;
		if (w->brcntr->exact) {
			/* perf -v: "cpu-clock 3+ task-clock 0 " */
			ds_put(b, w->brcntr->names[i]);
			pdc_strbuf_addf(b, " %" PRIu64 "%s ", counts[i],
					counts[i] == mask ? "+" : "");
			continue;
		}
		for (uint64_t j = 0; j < counts[i]; j++)
			pdc_strbuf_add(b, &abbr, 1);
		if (counts[i] && counts[i] == mask)
			pdc_strbuf_add(b, "+", 1);
	}
	if (b->len == at)
		pdc_strbuf_add(b, "-", 1);
	pdc_strbuf_add(b, " ", 1);
}

/*
 * A block's branch as perf 6.1's ip__fprintf_jump(): its instruction
 * padded to 30, then "# PRED", "MISPRED", "INTX", "ABORT", its entry's
 * cycles and their running total over the stack, and the block's IPC.
 * With brcntr, perf 7.2's counters (add_brcntr()) take the "#"'s place
 * (the flags follow them: "\t\t# br_cntr: AB  PRED").
 */
static void add_jump(struct pdc_strbuf *b, const struct pde_script *w,
		     const struct pde_script_line *l,
		     const struct pda_bb_line *bl, uint64_t *total)
{
	const struct pd_sample *s = l->sample;
	const size_t at = b->len;
	const bool cntr = (l->fields & PDE_SF(BRCNTR)) && w->brcntr;
	struct pd_branch br;
	char tmp[128];
	int n;

	add_insn_text(b, bl);
	for (size_t i = b->len - at; i < 30; i++)
		pdc_strbuf_add(b, " ", 1);
	pd_sample_branch(s, bl->entry, &br);
	pdc_strbuf_add(b, "\t", 1);
	if (cntr)
		add_brcntr(b, w, s, bl->entry);
	n = snprintf(tmp, sizeof(tmp), cntr ? "%s%s%s%s" : "#%s%s%s%s",
		     br.predicted ? " PRED" : "",
		     br.mispred ? " MISPRED" : "", br.in_tx ? " INTX" : "",
		     br.abort ? " ABORT" : "");
	pdc_strbuf_add(b, tmp, (size_t)n);
	if (br.cycles) {
		*total += br.cycles;
		n = snprintf(tmp, sizeof(tmp), " %u cycles [%" PRIu64 "]",
			     (unsigned)br.cycles, *total);
		pdc_strbuf_add(b, tmp, (size_t)n);
		if (bl->insns) {
			/* perf divides as float */
			n = snprintf(tmp, sizeof(tmp), " %.2f IPC",
				     (double)((float)bl->insns /
					      (float)br.cycles));
			pdc_strbuf_add(b, tmp, (size_t)n);
		}
	}
}

/* map__fprintf_srccode() and its newline: "|%-8d %.*s\n" */
static void add_srccode(struct pdc_strbuf *b, const struct pde_srccode *c)
{
	char tmp[32];
	size_t n;

	if (!c->text)
		return;
	tmp[0] = '|';
	n = 1 + put_dec(tmp + 1, c->line, 0, false);
	while (n < 9)
		tmp[n++] = ' ';
	tmp[n++] = ' ';
	pdc_strbuf_add(b, tmp, n);
	pdc_strbuf_add(b, c->text, c->len);
	pdc_strbuf_add(b, "\n", 1);
}

/*
 * perf 6.1's perf_sample__fprintf_brstackinsn(): a newline, then each
 * of the lines pda_branch_insns() walked: "\tfunc+off:" labels,
 * "\t%016x\tinsn: .." instructions, the blocks' branches.
 */
static int add_brstackinsn(struct pde_script *w,
			   const struct pde_script_line *l)
{
	char small[4096], tmp[32];
	struct pdc_strbuf b;
	uint64_t total = 0;
	int rc;

	if (!l->sample->branch.nr)
		return 0;
	pdc_strbuf_init(&b, NULL, small, sizeof(small));
	pdc_strbuf_add(&b, "\n", 1);
	for (size_t i = 0; i < l->nr_bb; i++) {
		const struct pda_bb_line *bl = &l->bb[i];

		switch (bl->kind) {
		case PDA_BB_SYM:
			pdc_strbuf_add(&b, "\t", 1);
			add_name(&b, bl->loc->sym);
			if (bl->loc->sym_off) {
				pdc_strbuf_add(&b, "+", 1);
				pdc_strbuf_add(&b, tmp,
					       put_dec(tmp, bl->loc->sym_off, 0,
						       false));
			}
			pdc_strbuf_add(&b, ":", 1);
			/* map__fprintf_srcline() */
			if ((l->fields & PDE_SF(SRCLINE)) && bl->loc->dso) {
				pdc_strbuf_add(&b, "\t", 1);
				add_srcline_text(&b, bl->loc->srcfile,
						 bl->loc->line, bl->loc->dso,
						 bl->loc->map_ip);
			}
			pdc_strbuf_add(&b, "\n", 1);
			break;
		case PDA_BB_INSN:
		case PDA_BB_JUMP:
		{
			/* "\t%016x\t" */
			size_t n = put_hex(tmp + 1, bl->addr, 16);

			tmp[0] = '\t';
			for (size_t k = 1; k <= n && tmp[k] == ' '; k++)
				tmp[k] = '0';
			tmp[n + 1] = '\t';
			pdc_strbuf_add(&b, tmp, n + 2);
		}
			if (bl->kind == PDA_BB_JUMP)
				add_jump(&b, w, l, bl, &total);
			else
				add_insn_text(&b, bl);
			pdc_strbuf_add(&b, "\n", 1);
			if (l->bb_src)
				add_srccode(&b, &l->bb_src[i]);
			break;
		case PDA_BB_MISMATCH:
			ds_put(&b, "\tmismatch of LBR data and executable\n");
			break;
		case PDA_BB_NOT_REACHING:
			ds_put(&b, "\t... not reaching sample ...\n");
			break;
		}
	}
	rc = b.oom ? PD_ERR_NOMEM : pde_script_raw(w, b.p, b.len);
	pdc_strbuf_release(&b);
	return rc;
}

/* ---- registers (iregs, uregs) ----------------------------------------- */

/* perf 6.1's __perf_reg_name_x86(): PERF_REG_X86_*, XMMn taking two
 * numbers of which the first is named */
static const char *const regs_x86[64] = {
	"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP",
	"IP", "FLAGS", "CS", "SS", "DS", "ES", "FS", "GS",
	"R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
	[32] = "XMM0", [34] = "XMM1", [36] = "XMM2", [38] = "XMM3",
	[40] = "XMM4", [42] = "XMM5", [44] = "XMM6", [46] = "XMM7",
	[48] = "XMM8", [50] = "XMM9", [52] = "XMM10", [54] = "XMM11",
	[56] = "XMM12", [58] = "XMM13", [60] = "XMM14", [62] = "XMM15",
};

/* __perf_reg_name_arm64(): x0..x29, lr, sp, pc, vg */
static const char *const regs_arm64[47] = {
	"x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",
	"x8",  "x9",  "x10", "x11", "x12", "x13", "x14", "x15",
	"x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23",
	"x24", "x25", "x26", "x27", "x28", "x29", "lr",	 "sp",
	"pc",  [46] = "vg",
};

/* __perf_reg_name_arm(): r0..r10, fp, ip, sp, lr, pc */
static const char *const regs_arm[16] = {
	"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7",
	"r8", "r9", "r10", "fp", "ip", "sp", "lr", "pc",
};

static const struct {
	const char *arch; /* perf_env__arch()'s */
	const char *const *names;
	unsigned nr;
} reg_tables[] = {
	{"x86", regs_x86, 64},
	{"arm64", regs_arm64, 47},
	{"arm", regs_arm, 16},
};

const char *pde_script_reg_arch(const char *m)
{
	if (!m)
		return NULL;
	/* perf's normalize_arch() */
	if (!strcmp(m, "x86_64") || !strcmp(m, "x86") ||
	    (m[0] == 'i' && strlen(m) >= 4 && m[2] == '8' && m[3] == '6'))
		return "x86";
	if (!strcmp(m, "aarch64") || !strcmp(m, "arm64"))
		return "arm64";
	if (!strncmp(m, "arm", 3) || !strcmp(m, "sa110"))
		return "arm";
	return NULL;
}

/* perf_reg_name(): "unknown" for a number the architecture does not
 * name */
static const char *reg_name(const char *arch, unsigned r)
{
	for (size_t i = 0; arch && i < sizeof(reg_tables) / sizeof(reg_tables[0]);
	     i++)
		if (!strcmp(arch, reg_tables[i].arch))
			return r < reg_tables[i].nr && reg_tables[i].names[r]
				       ? reg_tables[i].names[r]
				       : "unknown";
	return "unknown";
}

/* perf_sample__fprintf_regs(): " ABI:2 " then "%5s:0x%x " for each
 * register of the mask, none without registers (ABI 0) */
static int add_regs(struct pde_script *w, const struct pd_regs *r)
{
	char small[1024], tmp[24];
	struct pdc_strbuf b;
	uint64_t i = 0;
	int rc;

	if (!r->abi || !r->regs.raw)
		return 0;
	pdc_strbuf_init(&b, NULL, small, sizeof(small));
	ds_put(&b, " ABI:");
	pdc_strbuf_add(&b, tmp, put_dec(tmp, r->abi, 0, false));
	pdc_strbuf_add(&b, " ", 1);
	for (unsigned bit = 0; bit < 64 && i < r->regs.nr; bit++) {
		const char *name;
		size_t len;

		if (!(r->mask >> bit & 1))
			continue;
		name = reg_name(w->reg_arch, bit);
		len = strlen(name);
		for (; len < 5; len++)
			pdc_strbuf_add(&b, " ", 1);
		ds_put(&b, name);
		pdc_strbuf_add(&b, ":0x", 3);
		add_hex(&b, pd_u64s_get(&r->regs, i++), 0);
		pdc_strbuf_add(&b, " ", 1);
	}
	rc = b.oom ? PD_ERR_NOMEM : pde_script_raw(w, b.p, b.len);
	pdc_strbuf_release(&b);
	return rc;
}

/* " %s" of perf 6.1's get_page_size_name(): unit_number__scnprintf()'s
 * "4K", "2M" (divided by 1024 while the quotient is over 1), "N/A" for
 * none. */
static int add_page_size(struct pde_script *w, uint64_t size)
{
	static const char unit[] = "BKMGTPEZY";
	char tmp[32];
	size_t n = 1, i = 0;

	tmp[0] = ' ';
	if (!size) {
		memcpy(tmp + 1, "N/A", 3);
		return pde_script_raw(w, tmp, 4);
	}
	while (size / 1024 > 1 && i < 8) {
		size /= 1024;
		i++;
	}
	n += put_dec(tmp + 1, size, 0, false);
	tmp[n++] = unit[i];
	return pde_script_raw(w, tmp, n);
}

/* perf_sample__fprintf_bts()'s branch target: " => ", the addr as
 * perf_sample__fprintf_addr() prints it (with its symbol and DSO), the
 * ip's deferred srcline */
static int add_bts_to(struct pde_script *w, const struct pde_script_line *l)
{
	int rc = room(w, 4 + 16);

	if (rc < 0)
		return rc;
	memcpy(w->buf + w->len, " => ", 4);
	w->len += 4;
	w->len += put_hex(w->buf + w->len, l->sample->addr, 16);
	if (l->fields & (PDE_SF(SYM) | PDE_SF(DSO))) {
		rc = add_addr_sym(w, l);
		if (rc < 0)
			return rc;
	}
	if (l->bts_srcline)
		rc = pde_script_raw(w, l->bts_srcline, l->bts_srcline_len);
	return rc;
}

int pde_script_end(struct pde_script *w, const struct pde_script_line *l)
{
	const struct pd_sample *s = l->sample;
	int rc;

	if (l->bts && l->bts_to) {
		rc = add_bts_to(w, l);
		if (rc < 0)
			return rc;
	}
	if (!l->bts && (l->fields & PDE_SF(IREGS)) &&
	    (rc = add_regs(w, &s->regs_intr)) < 0)
		return rc;
	if (!l->bts && (l->fields & PDE_SF(UREGS)) &&
	    (rc = add_regs(w, &s->regs_user)) < 0)
		return rc;
	if (!l->bts && (l->fields & (PDE_SF(BRSTACK) | PDE_SF(BRSTACKSYM) |
				     PDE_SF(BRSTACKOFF)))) {
		rc = add_brstack(w, l);
		if (rc < 0)
			return rc;
	}
	if ((l->fields & PDE_SF(BPF_OUTPUT)) && !l->bts &&
	    s->evsel->attr.type == 1 /* PERF_TYPE_SOFTWARE */ &&
	    s->evsel->attr.config == 10 /* PERF_COUNT_SW_BPF_OUTPUT */) {
		char small[1024];
		struct pdc_strbuf b;

		pdc_strbuf_init(&b, NULL, small, sizeof(small));
		add_bpf_output(&b, s);
		rc = b.oom ? PD_ERR_NOMEM : pde_script_raw(w, b.p, b.len);
		pdc_strbuf_release(&b);
		if (rc < 0)
			return rc;
	}
	if (l->fields & PDE_SF(INSNLEN)) {
		char tmp[32];

		memcpy(tmp, " ilen: ", 7);
		rc = pde_script_raw(w, tmp,
				    7 + put_dec(tmp + 7, l->insn_len, 0, false));
		if (rc < 0)
			return rc;
	}
	if ((l->fields & PDE_SF(INSN)) && l->insn && l->insn_len) {
		static const char hex[] = "0123456789abcdef";
		char tmp[8 + 16 * 3];
		size_t n = 6;

		memcpy(tmp, " insn:", 6);
		for (unsigned i = 0; i < l->insn_len && i < 16; i++) {
			tmp[n++] = ' ';
			tmp[n++] = hex[l->insn[i] >> 4];
			tmp[n++] = hex[l->insn[i] & 15];
		}
		rc = pde_script_raw(w, tmp, n);
		if (rc < 0)
			return rc;
	}
	if (l->fields & PDE_SF(BRSTACKINSN)) {
		rc = add_brstackinsn(w, l);
		if (rc < 0)
			return rc;
	}
	if (l->bts)
		goto newline;
	if (l->fields & PDE_SF(PHYS_ADDR)) {
		if ((rc = room(w, 16)) < 0)
			return rc;
		w->len += put_hex(w->buf + w->len, s->phys_addr, 16);
	}
	if (l->fields & PDE_SF(DATA_PAGE_SIZE)) {
		rc = add_page_size(w, s->data_page_size);
		if (rc < 0)
			return rc;
	}
	if (l->fields & PDE_SF(CODE_PAGE_SIZE)) {
		rc = add_page_size(w, s->code_page_size);
		if (rc < 0)
			return rc;
	}
newline:
	rc = room(w, 1);
	if (rc < 0)
		return rc;
	w->buf[w->len++] = '\n';
	if ((l->fields & PDE_SF(SRCCODE)) && l->src.text) {
		char small[512];
		struct pdc_strbuf b;

		pdc_strbuf_init(&b, NULL, small, sizeof(small));
		add_srccode(&b, &l->src);
		rc = b.oom ? PD_ERR_NOMEM : pde_script_raw(w, b.p, b.len);
		pdc_strbuf_release(&b);
		if (rc < 0)
			return rc;
	}
	if (w->len >= OUT_FLUSH)
		return flush(w);
	return 0;
}

int pde_script_sample(struct pde_script *w, const struct pde_script_line *l)
{
	int rc;

	if (!l->fields)
		return 0;
	rc = pde_script_begin(w, l);
	if (rc == 0 && (l->fields & PDE_SF(IP)) && l->ip_text)
		rc = pde_script_raw(w, l->ip_text, l->ip_len);
	if (rc == 0)
		rc = pde_script_end(w, l);
	return rc;
}

int pde_script_finish(struct pde_script *w)
{
	int rc = flush(w);

	free(w->buf);
	w->buf = NULL;
	w->cap = 0;
	if (rc == 0)
		rc = pde_out_rc(w->out);
	return rc;
}

/* perf 6.1's perf_ns__name(): a NAMESPACES link's name by its index */
static const char *ns_name(uint64_t idx)
{
	static const char *const names[] = {"net", "uts",  "ipc",   "pid",
					    "user", "mnt", "cgroup"};

	return idx < sizeof(names) / sizeof(names[0]) ? names[idx]
						      : "UNKNOWN";
}

/* perf 6.1's perf_event__fprintf() of ev after "PERF_RECORD_NAME", the
 * newline included, into b. */
static void side_text(struct pdc_strbuf *b, const struct pd_event *ev)
{
	switch (ev->type) {
	case PD_REC_COMM:
		pdc_strbuf_addf(b, "%s: %.*s:%d/%d\n",
				  ev->misc & PD_MISC_COMM_EXEC ? " exec" : "",
				  (int)ev->comm.comm.len, ev->comm.comm.ptr,
				  (int32_t)ev->comm.pid,
				  (int32_t)ev->comm.tid);
		break;
	case PD_REC_FORK:
	case PD_REC_EXIT:
		pdc_strbuf_addf(b, "(%d:%d):(%d:%d)\n", (int32_t)ev->fork.pid,
				  (int32_t)ev->fork.tid,
				  (int32_t)ev->fork.ppid,
				  (int32_t)ev->fork.ptid);
		break;
	case PD_REC_MMAP:
		pdc_strbuf_addf(
			b, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64
			   "]: %c %.*s\n",
			(int32_t)ev->mmap.pid, (int32_t)ev->mmap.tid,
			ev->mmap.start, ev->mmap.len, ev->mmap.pgoff,
			ev->misc & PD_MISC_MMAP_DATA ? 'r' : 'x',
			(int)ev->mmap.filename.len, ev->mmap.filename.ptr);
		break;
	case PD_REC_MMAP2: {
		const struct pd_ev_mmap2 *m = &ev->mmap2;

		pdc_strbuf_addf(b, " %d/%d: [%#" PRIx64 "(%#" PRIx64
				     ") @ %#" PRIx64,
				  (int32_t)m->pid, (int32_t)m->tid, m->start,
				  m->len, m->pgoff);
		if (m->has_build_id) {
			pdc_strbuf_addf(b, " <");
			for (unsigned i = 0; i < m->build_id_size; i++)
				pdc_strbuf_addf(b, "%02x", m->build_id[i]);
			pdc_strbuf_addf(b, ">");
		} else {
			pdc_strbuf_addf(b, " %02x:%02x %" PRIu64 " %" PRIu64,
					  m->maj, m->min, m->ino,
					  m->ino_generation);
		}
		/* PROT_READ 1, PROT_WRITE 2, PROT_EXEC 4; MAP_SHARED 1 */
		pdc_strbuf_addf(b, "]: %c%c%c%c %.*s\n",
				  m->prot & 1 ? 'r' : '-',
				  m->prot & 2 ? 'w' : '-',
				  m->prot & 4 ? 'x' : '-',
				  m->flags & 1 ? 's' : 'p',
				  (int)m->filename.len, m->filename.ptr);
		break;
	}
	case PD_REC_SWITCH:
	case PD_REC_SWITCH_CPU_WIDE: {
		const bool out = ev->misc & PD_MISC_SWITCH_OUT;
		const char *io = !out ? "IN         "
				 : ev->misc & PD_MISC_SWITCH_OUT_PREEMPT
					 ? "OUT preempt"
					 : "OUT        ";

		if (ev->type == PD_REC_SWITCH)
			pdc_strbuf_addf(b, " %s\n", io);
		else
			pdc_strbuf_addf(
				b, " %s  %s pid/tid: %5d/%-5d\n", io,
				out ? "next" : "prev",
				(int32_t)ev->context_switch.next_prev_pid,
				(int32_t)ev->context_switch.next_prev_tid);
		break;
	}
	case PD_REC_LOST:
		pdc_strbuf_addf(b, " lost %" PRIu64 "\n", ev->lost.lost);
		break;
	case PD_REC_NAMESPACES: {
		const struct pd_ev_namespaces *ns = &ev->namespaces;

		pdc_strbuf_addf(b, " %d/%d - nr_namespaces: %" PRIu64
				     "\n\t\t[",
				  (int32_t)ns->pid, (int32_t)ns->tid,
				  ns->nr_namespaces);
		for (uint64_t i = 0; i < ns->nr_namespaces; i++) {
			if (i && i % 4 == 0)
				pdc_strbuf_addf(b, "\n\t\t ");
			pdc_strbuf_addf(
				b, "%u/%s: %" PRIu64 "/%#" PRIx64 "%s",
				(unsigned)i, ns_name(i),
				pd_u64s_get(&ns->link_info, 2 * i),
				pd_u64s_get(&ns->link_info, 2 * i + 1),
				i + 1 != ns->nr_namespaces ? ", " : "]\n");
		}
		break;
	}
	default:
		pdc_strbuf_addf(b, "\n");
		break;
	}
}

int pde_script_side(struct pde_script *w, const struct pde_script_line *l,
		    const struct pd_event *ev, struct pdc_strbuf *scratch)
{
	const char *name = pd_rec_type_name(ev->type);
	int rc;

	scratch->len = 0;
	pdc_strbuf_addf(scratch, "PERF_RECORD_%s", name ? name : "");
	side_text(scratch, ev);
	if (scratch->oom)
		return PD_ERR_NOMEM;
	rc = room(w, LINE_MAX_HEAD + scratch->len);
	if (rc < 0)
		return rc;
	if (l->fields) {
		char *p = w->buf + w->len;

		p = put_start(w, p, l->fields, l->sample, l->comm,
			      l->callchain, ev->type);
		w->len = (size_t)(p - w->buf);
	}
	memcpy(w->buf + w->len, scratch->p, scratch->len);
	w->len += scratch->len;
	return 0;
}
