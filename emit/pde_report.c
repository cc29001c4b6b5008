/*
 * pde_report.c - pdtool report's tables as `perf report --stdio` 6.1
 * prints them (ui/stdio/hist.c, util/sort.c): the header comment lines,
 * then per event the sample count, event count and column headers, and
 * a row per entry.
 *
 * Column widths are perf's: an overhead column is 8 characters a member
 * ("%7.2f%%"), a count 12; a key column is as wide as its header and its
 * widest value over every row of the table (perf's hists__calc_col_len
 * runs over all entries, --percent-limit hides rows only when printing).
 * Names from the capture are written by pdc_text's rule (\xNN for bytes
 * that are not text), and measured so.
 */
#include "pde.h"
#include "pde_text_int.h"
#include "pda_metrics.h"
#include "pda_report.h"
#include "pda_branch_rep.h"
#include "pdc_strbuf.h"
#include "pdc_text.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OVERHEAD_W 8
#define COUNT_W 12
/* perf's unresolved_col_width: an address's hex digits */
#define ADDR_DIGITS 16

struct widths {
	size_t key[PDA_REPORT_MAX_KEYS];
	bool elided[PDA_REPORT_MAX_KEYS]; /* perf's se->elide */
	unsigned last;		/* the last key shown */
};

/* The cell of key k for entry e, as perf's se_snprintf() writes it
 * before padding: into b (escaped). */
/* The latency keys' values: the sample's (local_*), or that times the
 * row's samples nr (perf 6.1's weight and ins_lat; ins_lat a u16 times
 * a u32, an unsigned). */
static uint64_t lat_value(enum pda_report_key k,
			  const struct pda_report_entry *e, uint64_t nr)
{
	if (k == PDA_REPORT_LOCAL_WEIGHT)
		return e->weight;
	if (k == PDA_REPORT_WEIGHT)
		return e->weight * nr;
	if (k == PDA_REPORT_LOCAL_INS_LAT)
		return e->ins_lat;
	return (unsigned)(e->ins_lat * nr);
}

/* perf's get_page_size_name(): unit_number__scnprintf()'s B, K, M or G
 * while the number over 1024 is more than 1 ("1024B", "2K"), N/A for
 * 0. */
static void page_size_text(struct pdc_strbuf *b, uint64_t n)
{
	static const char unit[] = "BKMG";
	int i = 0;

	if (!n) {
		pdc_strbuf_add(b, "N/A", 3);
		return;
	}
	while (n / 1024 > 1 && i < 3) {
		n /= 1024;
		i++;
	}
	pdc_strbuf_addf(b, "%" PRIu64 "%c", n, unit[i]);
}

/* s as a cell's text (escaped), none's when s is NULL. */
static void text_or(struct pdc_strbuf *b, const char *s, const char *none)
{
	if (s)
		pdc_strbuf_add_text(b, s, strlen(s));
	else
		pdc_strbuf_add(b, none, strlen(none));
}

/* perf's symbol_size and dso_size cells: "%d" of the size (an int: its
 * low 32 bits), "unknown" without a symbol or map (what is NULL). */
static void size_text(struct pdc_strbuf *b, const char *what, uint64_t n)
{
	if (what)
		pdc_strbuf_addf(b, "%d", (int)(uint32_t)n);
	else
		pdc_strbuf_add(b, "unknown", 7);
}

/* perf 6.1's hist_entry__transaction_snprintf(): the flags' names, the
 * "skip_for_len" ones included, NEITHER when neither SYNC nor ASYNC,
 * the abort code in hex. */
static void transaction_text(struct pdc_strbuf *b, uint64_t t)
{
	static const struct {
		uint64_t flag;
		const char *name;
	} bits[] = {{0x1, "EL "},	 {0x2, "TX "},	      {0x4, "SYNC "},
		    {0x8, "ASYNC "},	 {0x10, "RETRY "},    {0x20, "CON "},
		    {0x40, "CAP-WRITE "}, {0x80, "CAP-READ "}};

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (t & bits[i].flag)
			pdc_strbuf_add(b, bits[i].name, strlen(bits[i].name));
	if (t && !(t & (0x4 | 0x8)))
		pdc_strbuf_add(b, "NEITHER ", 8);
	if (t >> 32)
		pdc_strbuf_addf(b, ":%" PRIx64, t >> 32);
}

/* "[c] ", perf's level before a symbol, without a format (a
 * --mem-mode row has several) */
static void level_text(struct pdc_strbuf *b, char c)
{
	const char t[4] = {'[', c, ']', ' '};

	pdc_strbuf_add(b, t, sizeof(t));
}

/* "%" PRIx64 of n, with at least digits digits. */
static void hex_text(struct pdc_strbuf *b, uint64_t n, int digits)
{
	char t[16];
	int i = (int)sizeof(t);

	do {
		t[--i] = "0123456789abcdef"[n & 15];
		n >>= 4;
	} while (n);
	while (i > (int)sizeof(t) - digits && i > 0)
		t[--i] = '0';
	pdc_strbuf_add(b, t + i, sizeof(t) - (size_t)i);
}

/* perf's "%#.*llx" of an address (ADDR_DIGITS): no "0x" for 0 */
static void addr_text(struct pdc_strbuf *b, uint64_t addr)
{
	if (addr)
		pdc_strbuf_add(b, "0x", 2);
	hex_text(b, addr, ADDR_DIGITS);
}

/* perf 6.1's _hist_entry__sym_snprintf() of a memory key: "[level] ",
 * then a data object's name and off, a function's name, or without a
 * symbol addr. */
static void sym_text(struct pdc_strbuf *b, char level, const char *sym,
		     bool object, uint64_t off, uint64_t addr)
{
	level_text(b, level);
	if (sym && object) {
		pdc_strbuf_add(b, sym, strlen(sym));
		pdc_strbuf_add(b, "+0x", 3);
		hex_text(b, off, 1);
	} else if (sym) {
		pdc_strbuf_add_text(b, sym, strlen(sym));
	} else {
		addr_text(b, addr);
	}
}

/* Key k's text of entry e; nr: the row's samples (of the table's
 * first member: perf's he->stat.nr_events), which weight and ins_lat
 * multiply. */
static void key_text(struct pdc_strbuf *b, enum pda_report_key k,
		     const struct pda_report_entry *e, uint64_t nr)
{
	switch (k) {
	case PDA_REPORT_COMM:
		pdc_strbuf_add_text(b, e->comm, strlen(e->comm));
		break;
	case PDA_REPORT_PID:
		/* the digits are write_key()'s */
		pdc_strbuf_add_text(b, e->thread_comm, strlen(e->thread_comm));
		break;
	case PDA_REPORT_DSO:
		text_or(b, e->dso, "[unknown]");
		break;
	case PDA_REPORT_SYM:
		level_text(b, e->level);
		if (e->sym)
			pdc_strbuf_add_text(b, e->sym, strlen(e->sym));
		else
			/* perf's "%-#.*llx": no "0x" for 0 */
			addr_text(b, e->addr);
		break;
	case PDA_REPORT_SYMOFF:
		/* perf >= 6.10's hist_entry__symoff_snprintf() */
		pdc_strbuf_addf(b, "[%c] ", e->level);
		if (e->sym) {
			pdc_strbuf_add_text(b, e->sym, strlen(e->sym));
			pdc_strbuf_addf(b, "+0x%" PRIx64, e->sym_off);
		} else {
			pdc_strbuf_addf(b, "%#.*" PRIx64, ADDR_DIGITS,
					e->addr);
		}
		break;
	case PDA_REPORT_SRCLINE:
		pdc_strbuf_add_text(b, e->srcline, strlen(e->srcline));
		break;
	case PDA_REPORT_SRCFILE:
		pdc_strbuf_add_text(b, e->srcfile, strlen(e->srcfile));
		break;
	case PDA_REPORT_CPU:
		pdc_strbuf_addf(b, "%d", e->cpu);
		break;
	case PDA_REPORT_PARALLELISM:
		pdc_strbuf_addf(b, "%u", e->parallelism);
		break;
	case PDA_REPORT_PARENT:
		text_or(b, e->parent, "[other]");
		break;
	case PDA_REPORT_TYPE:
		pdc_strbuf_add_text(b, e->type, strlen(e->type));
		break;
	case PDA_REPORT_TYPEOFF:
		pdc_strbuf_add_text(b, e->typeoff, strlen(e->typeoff));
		break;
	case PDA_REPORT_TYPECLN:
		pdc_strbuf_add_text(b, e->typecln, strlen(e->typecln));
		break;
	case PDA_REPORT_LOCAL_WEIGHT:
	case PDA_REPORT_LOCAL_INS_LAT:
	case PDA_REPORT_WEIGHT:
	case PDA_REPORT_INS_LAT: {
		char t[20];
		uint64_t v = lat_value(k, e, nr);
		size_t i = sizeof(t);

		do {
			t[--i] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		pdc_strbuf_add(b, t + i, sizeof(t) - i);
		break;
	}
	case PDA_REPORT_MEM:
	case PDA_REPORT_SNOOP:
	case PDA_REPORT_TLB:
	case PDA_REPORT_LOCKED:
	case PDA_REPORT_BLOCKED:
		/* the keys' fields of perf's data_src string (LVL, SNP,
		 * TLB, LCK, BLK: its fields after OP), in the keys' order;
		 * analyze/mem's decoder */
		pde_data_src_put(b, e->data_src, 1 + (k - PDA_REPORT_MEM));
		break;
	case PDA_REPORT_DADDR_SYM:
		/* the data address: a data symbol and the offset in it */
		sym_text(b, e->daddr_level, e->daddr_sym, e->daddr_object,
			 e->daddr_off, e->daddr);
		break;
	case PDA_REPORT_SOCKET:
		pdc_strbuf_addf(b, "%d", e->socket);
		break;
	case PDA_REPORT_TRANSACTION:
		transaction_text(b, e->transaction);
		break;
	case PDA_REPORT_CODE_PAGE:
		page_size_text(b, e->code_page);
		break;
	case PDA_REPORT_DATA_PAGE:
		page_size_text(b, e->data_page);
		break;
	case PDA_REPORT_TIME:
		/* timestamp__scnprintf_usec() (nsec with --ns) */
		if (e->time_ns)
			pdc_strbuf_addf(b, "%" PRIu64 ".%09" PRIu64,
					e->time / 1000000000,
					e->time % 1000000000);
		else
			pdc_strbuf_addf(b, "%" PRIu64 ".%06" PRIu64,
					e->time / 1000000000,
					e->time % 1000000000 / 1000);
		break;
	case PDA_REPORT_IADDR:
		/* hist_entry__iaddr_snprintf(): the function, else the
		 * address */
		sym_text(b, e->level, e->sym, false, 0, e->iaddr);
		break;
	case PDA_REPORT_ADDR:
		/* hist_entry__addr_snprintf()'s "%-#*llx": no 0x for 0 */
		pdc_strbuf_addf(b, "%#" PRIx64, e->address);
		break;
	case PDA_REPORT_SYM_SIZE:
		size_text(b, e->sym, e->sym_size);
		break;
	case PDA_REPORT_DSO_SIZE:
		size_text(b, e->dso, e->dso_size);
		break;
	case PDA_REPORT_TRACE:
		/* hist_entry__trace_snprintf(): "N/A" but for a
		 * tracepoint's rows */
		text_or(b, e->trace, "N/A");
		break;
	case PDA_REPORT_CGROUP:
		/* hist_entry__cgroup_snprintf() */
		if (!e->cgroup)
			pdc_strbuf_add(b, "N/A", 3);
		else if (!e->cgroup_path)
			pdc_strbuf_add(b, "unknown", 7);
		else
			pdc_strbuf_add_text(b, e->cgroup_path,
					    strlen(e->cgroup_path));
		break;
	case PDA_REPORT_CGROUP_ID:
		/* hist_entry__cgroup_id_snprintf(): "%lu/0x%lx" */
		pdc_strbuf_addf(b, "%" PRIu64 "/0x%" PRIx64, e->cgroup_ns.dev,
				e->cgroup_ns.ino);
		break;
	case PDA_REPORT_DCACHELINE:
		/* perf 6.1's hist_entry__dcacheline_snprintf() */
		sym_text(b, e->dcl_level, e->daddr_sym, e->daddr_object,
			 e->dcl_off, e->dcacheline);
		break;
	case PDA_REPORT_DADDR_DSO:
		text_or(b, e->daddr_dso, "[unknown]");
		break;
	case PDA_REPORT_PHYS_DADDR:
		/* perf 6.1's "[%c] %-#.*llx": no "0x" for 0 */
		level_text(b, e->daddr_level);
		addr_text(b, e->phys_daddr);
		break;
	case PDA_REPORT_NR_KEYS:
		break;
	}
}

/* What entry e asks of key k's column width (hists__calc_col_len). */
static size_t key_need(const struct pda_report_entry *e, enum pda_report_key k,
		       struct pdc_strbuf *b)
{
	const uint64_t nr = 0; /* no width depends on it */
	size_t n;

	b->len = 0;
	switch (k) {
	case PDA_REPORT_SYM:
		/* "[x] " and the name; an address: "0x" and 16 digits */
		if (!e->sym)
			return ADDR_DIGITS + 4 + 2;
		key_text(b, k, e, nr);
		return b->len;
	case PDA_REPORT_PID:
		key_text(b, k, e, nr);
		return b->len + 8;
	case PDA_REPORT_COMM:
		/* the thread's last comm, whichever the row shows */
		pdc_strbuf_add_text(b, e->thread_comm, strlen(e->thread_comm));
		return b->len;
	case PDA_REPORT_CPU:
		return 3;
	case PDA_REPORT_PARALLELISM:
		/* perf >= 6.15's hists__calc_col_len(): 11, the header */
		return 11;
	case PDA_REPORT_PARENT:
		/* "[other]" asks nothing */
		if (!e->parent)
			return 0;
		key_text(b, k, e, nr);
		return b->len;
	case PDA_REPORT_DSO:
		if (!e->dso)
			return 0;
		key_text(b, k, e, nr);
		return b->len;
	case PDA_REPORT_SRCLINE:
	case PDA_REPORT_SRCFILE:
		key_text(b, k, e, nr);
		return b->len;
	case PDA_REPORT_TYPE:
	case PDA_REPORT_TYPEOFF:
	case PDA_REPORT_TYPECLN:
	case PDA_REPORT_SYMOFF:
		/* perf 7.2's hists__calc_col_len() leaves the type and
		 * symoff columns at their headers' widths: a longer name
		 * runs over */
		return 0;
	/* perf 6.1's hists__calc_col_len(): fixed widths */
	case PDA_REPORT_LOCAL_WEIGHT:
	case PDA_REPORT_WEIGHT:
	case PDA_REPORT_SNOOP:
		return 12;
	case PDA_REPORT_LOCAL_INS_LAT:
	case PDA_REPORT_INS_LAT:
		return 13;
	case PDA_REPORT_MEM:
		return 24;
	case PDA_REPORT_TLB:
		return 22;
	case PDA_REPORT_LOCKED:
		return 6;
	case PDA_REPORT_BLOCKED:
		return 10;
	case PDA_REPORT_DADDR_SYM:
		return (e->daddr_sym ? strlen(e->daddr_sym) : 0) + ADDR_DIGITS +
		       4 + 2;
	case PDA_REPORT_TIME:
		return e->time_ns ? 16 : 12;
	case PDA_REPORT_SOCKET:
	case PDA_REPORT_CODE_PAGE:
	case PDA_REPORT_SYM_SIZE:
	case PDA_REPORT_DSO_SIZE:
		return 0; /* the header's */
	case PDA_REPORT_TRACE:
		/* the text's (perf's he->trace_output, a tracepoint's) */
		return e->trace ? strlen(e->trace) : 0;
	case PDA_REPORT_CGROUP:
		/* the name's, for a cgroup ("N/A" asks nothing) */
		if (!e->cgroup)
			return 0;
		key_text(b, k, e, nr);
		return b->len;
	case PDA_REPORT_CGROUP_ID:
		/* hists__calc_col_len(): 20, under the header's 21; a
		 * longer text runs over */
		return 20;
	case PDA_REPORT_TRANSACTION:
		/* hists__calc_col_len(): for a row with flags,
		 * hist_entry__transaction_len(), the names but those
		 * skip_for_len marks and ":XX " */
		return e->transaction ? 32 : 0;
	case PDA_REPORT_DATA_PAGE:
		return ADDR_DIGITS + 4 + 2;
	case PDA_REPORT_ADDR:
		return ADDR_DIGITS + 2;
	case PDA_REPORT_IADDR:
		return (e->sym ? strlen(e->sym) : 0) + ADDR_DIGITS + 4 + 2;
	case PDA_REPORT_DCACHELINE:
		/* the data symbol's width, one more with a symbol */
		return e->daddr_sym ? strlen(e->daddr_sym) + ADDR_DIGITS + 7
				    : ADDR_DIGITS + 4 + 2;
	case PDA_REPORT_DADDR_DSO:
		return e->daddr_dso ? strlen(e->daddr_dso) : ADDR_DIGITS;
	case PDA_REPORT_PHYS_DADDR:
		return ADDR_DIGITS + 4 + 2;
	case PDA_REPORT_NR_KEYS:
		break;
	}
	n = b->len;
	return n;
}

struct prefix {
	char *keys;	/* the texts of the keys before trace */
	size_t row;
};

static int prefix_cmp(const void *a, const void *b)
{
	return strcmp(((const struct prefix *)a)->keys,
		      ((const struct prefix *)b)->keys);
}

/*
 * Which rows' trace texts perf has when it measures the column (into
 * measured, one a row): it makes an entry's text when it compares the
 * entry with another up to the trace key (sort__trace_cmp), every key
 * before it equal: with a sample of its own (a row of two samples or
 * more) or with another row of the same earlier keys.  Out of memory:
 * every row's.
 */
static void trace_measured(const struct pda_report *rep,
			   const struct pda_report_table *t, unsigned trace_i,
			   bool *measured, struct pdc_strbuf *b)
{
	struct prefix *v = calloc(t->nr_rows ? t->nr_rows : 1, sizeof(*v));
	size_t r, nr = 0;
	/* with --children perf compares a sample's entry with each of its
	 * callchain's (he_cache in iter_next_cumulative_entry), the first
	 * of which is the sample's ip again: the trace key is reached when
	 * the keys before it are equal there (these are; the time and
	 * memory keys perf's he_tmp leaves out are not) */
	bool cum = pda_report_flags(rep) & PDA_REPORT_CHILDREN;

	for (unsigned i = 0; i < trace_i; i++) {
		const enum pda_report_key k = pda_report_key(rep, i);

		cum &= k == PDA_REPORT_COMM || k == PDA_REPORT_PID ||
		       k == PDA_REPORT_CPU || k == PDA_REPORT_DSO ||
		       k == PDA_REPORT_SYM;
	}

	for (r = 0; v && r < t->nr_rows; r++) {
		const struct pda_report_entry *e =
			pda_report_entry(rep, t->rows[r]);
		uint64_t samples = 0;

		for (unsigned m = 0; m < t->nr_members; m++)
			samples += pda_report_val(rep, t->members[m],
						  t->rows[r])->samples;
		measured[r] = samples >= 2 || (cum && samples);
		b->len = 0;
		for (unsigned i = 0; i < trace_i; i++) {
			const enum pda_report_key k = pda_report_key(rep, i);

			/* the keys' values as their cells show them */
			if (k == PDA_REPORT_PID)
				pdc_strbuf_addf(b, "%d:", e->tid);
			key_text(b, k, e, samples);
			pdc_strbuf_add(b, "\x1f", 1);
		}
		v[nr].keys = malloc(b->len + 1);
		v[nr].row = r;
		if (!v[nr].keys)
			break;
		memcpy(v[nr].keys, b->p, b->len);
		v[nr++].keys[b->len] = '\0';
	}
	if (!v || r < t->nr_rows) {
		for (r = 0; r < t->nr_rows; r++)
			measured[r] = true;
	} else {
		qsort(v, nr, sizeof(*v), prefix_cmp);
		for (size_t i = 0; i < nr; i++)
			if ((i > 0 && !strcmp(v[i].keys, v[i - 1].keys)) ||
			    (i + 1 < nr && !strcmp(v[i].keys, v[i + 1].keys)))
				measured[v[i].row] = true;
	}
	for (size_t i = 0; v && i < nr; i++)
		free(v[i].keys);
	free(v);
}

static void calc_widths(const struct pda_report *rep,
			const struct pda_report_table *t, struct widths *w,
			struct pdc_strbuf *b, bool dso_list)
{
	const unsigned nr_keys = pda_report_nr_keys(rep);
	bool unresolved = false;

	bool *measured = NULL;

	for (unsigned i = 0; i < nr_keys; i++) {
		w->key[i] = strlen(pda_report_key_header(pda_report_key(rep, i)));
		if (pda_report_key(rep, i) == PDA_REPORT_TRACE && !measured &&
		    (measured = calloc(t->nr_rows ? t->nr_rows : 1, 1)))
			trace_measured(rep, t, i, measured, b);
	}
	for (size_t r = 0; r < t->nr_rows; r++) {
		const struct pda_report_entry *e =
			pda_report_entry(rep, t->rows[r]);

		unresolved |= !e->sym;
		for (unsigned i = 0; i < nr_keys; i++) {
			const enum pda_report_key k = pda_report_key(rep, i);
			const size_t n = key_need(e, k, b);

			/* a text perf has not made yet is not measured */
			if (k == PDA_REPORT_TRACE && measured && !measured[r])
				continue;
			if (n > w->key[i])
				w->key[i] = n;
		}
	}
	free(measured);
	/* hists__set_unres_dso_col_len(): an entry without a symbol widens
	 * the DSO column to an address's width (not with --dsos) */
	for (unsigned i = 0; unresolved && !dso_list && i < nr_keys; i++)
		if (pda_report_key(rep, i) == PDA_REPORT_DSO &&
		    w->key[i] < ADDR_DIGITS)
			w->key[i] = ADDR_DIGITS;
}

/* perf's convert_unit(): 1234 -> 1 'K' */
static uint64_t convert_unit(uint64_t v, char *unit)
{
	*unit = ' ';
	if (v > 1000) {
		v /= 1000;
		*unit = 'K';
	}
	if (v > 1000) {
		v /= 1000;
		*unit = 'M';
	}
	if (v > 1000) {
		v /= 1000;
		*unit = 'G';
	}
	return v;
}

static double percent(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* perf's get_percent_color(): red from MIN_RED (5%), green over
 * MIN_GREEN (0.5%), else none. */
static const char *percent_color(double pct)
{
	if (fabs(pct) >= 5.0)
		return "\033[31m";
	if (fabs(pct) > 0.5)
		return "\033[32m";
	return NULL;
}

/* A percentage, " %6.2f%%" (a column: perf's hpp__fmt(), one wider
 * from 1000%, which only the time and socket keys' children reach) or
 * "%.2f%%", coloured as perf's percent_color_snprintf() colours it:
 * the whole field. */
/* printf's "%.2f" of pct into buf (its length), without printf (a
 * report's million rows): pct * 100 is exact in a long double of 64
 * bits (53 + 7), rounded to an integer as printf rounds, in the
 * rounding mode, ties to even.  0: printf's to do it (no such long
 * double, a negative zero, a value out of range). */
static size_t percent_text(char *buf, double pct)
{
#if LDBL_MANT_DIG >= 64
	char tmp[24];
	size_t n = 0, len = 0;
	uint64_t k;

	if (!(pct >= 0 && pct < 1e15) || signbit(pct))
		return 0;
	k = (uint64_t)nearbyintl((long double)pct * 100.0L);
	tmp[n++] = (char)('0' + k % 10);
	tmp[n++] = (char)('0' + k / 10 % 10);
	tmp[n++] = '.';
	k /= 100;
	do {
		tmp[n++] = (char)('0' + k % 10);
		k /= 10;
	} while (k);
	while (n)
		buf[len++] = tmp[--n];
	return len;
#else
	(void)buf;
	(void)pct;
	return 0;
#endif
}

static void put_percent(FILE *out, bool column, double pct, bool color)
{
	const char *c = color ? percent_color(pct) : NULL;
	char buf[32];
	size_t len = 0, n;

	if (c)
		fputs(c, out);
	if (column)
		buf[len++] = ' ';
	n = percent_text(buf + 8, pct);
	if (!n && column) {
		fprintf(out, " %6.2f%%", pct);
	} else if (!n) {
		fprintf(out, "%.2f%%", pct);
	} else {
		/* " %6.2f": right-aligned in 6 */
		for (size_t w = n; column && w < 6; w++)
			buf[len++] = ' ';
		memmove(buf + len, buf + 8, n);
		len += n;
		buf[len++] = '%';
		fwrite(buf, 1, len, out);
	}
	if (c)
		fputs("\033[m", out);
}

/* The period of event member m (a table's columns are shares of it). */
static uint64_t member_total(const struct pda_report *rep,
			     const struct pda_report_table *t, unsigned m)
{
	uint64_t nr_samples, period;

	pda_report_event_totals(rep, t->members[m], &nr_samples, &period);
	return period;
}

/* Ratio r of row id: its num event's period over its den event's (its
 * own samples', with children its callees' too), NAN when it has none
 * of den. */
double pde_report_ratio(const struct pda_report *rep,
			const struct pda_ratio *r, uint32_t id)
{
	const bool acc = pda_report_flags(rep) & PDA_REPORT_CHILDREN;
	const struct pda_report_val *n = pda_report_val(rep, (unsigned)r->num, id);
	const struct pda_report_val *d = pda_report_val(rep, (unsigned)r->den, id);
	const uint64_t num = acc ? n->acc_period : n->period;
	const uint64_t den = acc ? d->acc_period : d->period;

	if (!den)
		return NAN;
	return (r->percent ? 100.0 : 1.0) * (double)num / (double)den;
}

/* A ratio cell: "1.23", "4.56%", or "-" without one. */
static void ratio_cell(char *buf, size_t size, const struct pda_ratio *r,
		       double v)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, r->percent ? "%.2f%%" : "%.2f", v);
}

/* A ratio column's text width: its header's, at least an overhead's. */
static size_t ratio_width(const struct pda_ratio *r)
{
	const size_t n = strlen(r->label);

	return n > OVERHEAD_W ? n : OVERHEAD_W;
}

/* Whether --percent-limit hides row id: perf compares a float
 * (hist_entry__get_percent_limit) with the limit, the leader's share. */
static bool hidden(const struct pda_report *rep,
		   const struct pda_report_table *t, uint32_t id,
		   const struct pde_report_opts *o)
{
	const struct pda_report_val *v = pda_report_val(rep, t->members[0], id);
	const uint64_t total = member_total(rep, t, 0);
	const uint64_t period = pda_report_flags(rep) & PDA_REPORT_CHILDREN
					? v->acc_period
					: v->period;
	float pct;

	if (o->percent_limit <= 0)
		return false;
	pct = total ? (float)((double)period * 100.0 / (double)total) : 0;
	return pct < o->percent_limit;
}

/* w - len spaces (none when len >= w): a block at a time, not a
 * character (a --mem-mode row pads ~90) */
static void spaces(FILE *out, size_t len, size_t w)
{
	static const char blank[] = "                                "
				    "                                ";

	while (len < w) {
		const size_t n = w - len < sizeof(blank) - 1 ? w - len
							    : sizeof(blank) - 1;

		fwrite(blank, 1, n, out);
		len += n;
	}
}

/* "%*s" of s in w, right-aligned (alignment true) or left. */
static void pad(FILE *out, const char *s, size_t len, size_t w, bool right)
{
	if (right)
		spaces(out, len, w);
	fwrite(s, 1, len, out);
	if (!right)
		spaces(out, len, w);
}

/* pad() into a row's line l. */
static void lpad(struct pdc_strbuf *l, const char *s, size_t len, size_t w,
		 bool right)
{
	static const char blank[] = "                                "
				    "                                ";
	size_t n = len < w ? w - len : 0;

	if (!right)
		pdc_strbuf_add(l, s, len);
	while (n) {
		const size_t k = n < sizeof(blank) - 1 ? n : sizeof(blank) - 1;

		pdc_strbuf_add(l, blank, k);
		n -= k;
	}
	if (right)
		pdc_strbuf_add(l, s, len);
}

/* A key whose cell perf does not pad when it ends the line. */
static bool unpadded_last(enum pda_report_key k)
{
	return k == PDA_REPORT_SYM || k == PDA_REPORT_SYMOFF ||
	       k == PDA_REPORT_SRCLINE ||
	       k == PDA_REPORT_SRCFILE || k == PDA_REPORT_TYPE ||
	       k == PDA_REPORT_TYPEOFF || k == PDA_REPORT_TYPECLN ||
	       /* "%.*s": perf pads every column but the last
		* (hist_entry__snprintf_alignment) */
	       k == PDA_REPORT_LOCKED || k == PDA_REPORT_BLOCKED ||
	       k == PDA_REPORT_DCACHELINE || k == PDA_REPORT_TIME ||
	       k == PDA_REPORT_CGROUP || k == PDA_REPORT_TRACE ||
	       k == PDA_REPORT_CGROUP_ID;
}

/* perf 6.1's ipc_null column, which its report adds after keys whose
 * text names "symbol": no branch stacks, no IPC */
#define IPC_NULL_HEADER "IPC   [IPC Coverage]"
#define IPC_NULL_CELL "-      -            "

static void write_headers(FILE *out, const struct pda_report *rep,
			  const struct pda_report_table *t,
			  const struct widths *w,
			  const struct pde_report_opts *o)
{
	const unsigned nr = t->nr_members, flags = pda_report_flags(rep);
	const unsigned nr_keys = pda_report_nr_keys(rep);
	const char *names[6 + PDA_RATIOS_MAX];
	size_t widths[6 + PDA_RATIOS_MAX], nr_fixed = 0;

	/* perf >= 6.15 with --latency: latency_children ("Latency"),
	 * overhead_children, latency, overhead; the first as wide as its
	 * header (perf 7.2: "# Latency  Children") */
	if ((flags & PDA_REPORT_LATENCY) && (flags & PDA_REPORT_CHILDREN)) {
		names[nr_fixed] = "Latency";
		widths[nr_fixed++] = (OVERHEAD_W - 1) * nr;
	}
	if (flags & PDA_REPORT_CHILDREN) {
		names[nr_fixed] = "Children";
		widths[nr_fixed++] = OVERHEAD_W * nr;
	}
	if (flags & PDA_REPORT_LATENCY) {
		names[nr_fixed] = "Latency";
		widths[nr_fixed++] = OVERHEAD_W * nr;
	}
	names[nr_fixed] = flags & PDA_REPORT_CHILDREN ? "Self" : "Overhead";
	widths[nr_fixed++] = OVERHEAD_W * nr;
	if (flags & PDA_REPORT_NR_SAMPLES) {
		names[nr_fixed] = "Samples";
		widths[nr_fixed++] = COUNT_W * nr;
	}
	if (flags & PDA_REPORT_PERIOD) {
		names[nr_fixed] = "Period";
		widths[nr_fixed++] = COUNT_W * nr;
	}
	for (size_t r = 0; r < o->nr_ratios && r < PDA_RATIOS_MAX; r++) {
		names[nr_fixed] = o->ratios[r].label;
		widths[nr_fixed++] = ratio_width(&o->ratios[r]);
	}
	fputs("# ", out);
	for (size_t i = 0; i < nr_fixed; i++) {
		if (i)
			fputs("  ", out);
		pad(out, names[i], strlen(names[i]), widths[i], true);
	}
	for (unsigned i = 0; i < nr_keys; i++) {
		const char *h = pda_report_key_header(pda_report_key(rep, i));

		if (w->elided[i])
			continue;
		fputs("  ", out);
		pad(out, h, strlen(h), w->key[i], false);
	}
	if (o->ipc_null)
		fputs("  " IPC_NULL_HEADER, out);
	fputs("\n# ", out);
	for (size_t i = 0; i < nr_fixed + nr_keys; i++) {
		const size_t n = i < nr_fixed ? widths[i] : w->key[i - nr_fixed];

		if (i >= nr_fixed && w->elided[i - nr_fixed])
			continue;
		if (i)
			fputs("  ", out);
		for (size_t d = 0; d < n; d++)
			fputc('.', out);
	}
	if (o->ipc_null)
		fputs("  ....................", out);
	fputs("\n#\n", out);
}

/* Key k's cell of entry e into the row's line l (b: scratch). */
static void write_key(struct pdc_strbuf *l, enum pda_report_key k,
		      const struct pda_report_entry *e, uint64_t nr, size_t w,
		      bool last, struct pdc_strbuf *b)
{
	b->len = 0;
	if (k == PDA_REPORT_PID) {
		const size_t cw = (w > 7 ? w : 7) - 8;

		/* "%7d:%-*.*s" */
		pdc_strbuf_addf(l, "%7d:", e->tid);
		key_text(b, k, e, nr);
		lpad(l, b->p, b->len < cw ? b->len : cw, cw, false);
		return;
	}
	if (k == PDA_REPORT_CPU) {
		/* "%*.*d": at least w digits */
		pdc_strbuf_addf(l, "%*.*d", (int)w, (int)w, e->cpu);
		return;
	}
	if (k == PDA_REPORT_SOCKET) {
		/* "%*.*d" with width - 3 digits */
		pdc_strbuf_addf(l, "%*.*d", (int)w, (int)w > 3 ? (int)w - 3 : 0,
			e->socket);
		return;
	}
	if (k == PDA_REPORT_PARALLELISM) {
		/* perf >= 6.15: "%*d" */
		pdc_strbuf_addf(l, "%*u", (int)w, e->parallelism);
		return;
	}
	key_text(b, k, e, nr);
	if (k == PDA_REPORT_SYM_SIZE || k == PDA_REPORT_DSO_SIZE) {
		/* "%*d", "%*s": right-aligned */
		lpad(l, b->p, b->len, w, true);
		return;
	}
	if (k == PDA_REPORT_SYM && e->inlined)
		pdc_strbuf_add(b, " (inlined)", 10);
	/* "%-.*s": cut to the column, which calc_widths() may have left
	 * narrower than the text */
	if (k == PDA_REPORT_TRACE && b->len > w)
		b->len = w;
	if (last && unpadded_last(k)) {
		pdc_strbuf_add(l, b->p, b->len);
		return;
	}
	/* perf 7.2's type and symoff columns, perf 6.1's transaction and
	 * cgroup_id: never cut */
	if (k == PDA_REPORT_TYPE || k == PDA_REPORT_TYPEOFF ||
	    k == PDA_REPORT_TYPECLN || k == PDA_REPORT_SYMOFF ||
	    k == PDA_REPORT_TRANSACTION || k == PDA_REPORT_CGROUP_ID) {
		lpad(l, b->p, b->len, w, false);
		return;
	}
	/* "%-*.*s": cut to the column (a comm longer than the thread's
	 * last one, which the column is measured by) */
	lpad(l, b->p, b->len < w ? b->len : w, w, false);
}

/* Row id's latency column: its children's (acc) or its own share of
 * each member's latency, and the gap after it. */
static void write_latency(FILE *out, const struct pda_report *rep,
			  const struct pda_report_table *t, uint32_t id,
			  bool acc)
{
	for (unsigned m = 0; m < t->nr_members; m++) {
		const struct pda_report_val *v =
			pda_report_val(rep, t->members[m], id);

		/* perf 7.2 prints the children's as " %5.2f%%": under
		 * its 7-wide header, and one wider at 100.00% */
		fprintf(out, acc ? " %5.2f%%" : "%7.2f%%",
			percent(acc ? v->acc_latency : v->latency,
				pda_report_event_latency(rep, t->members[m])));
	}
	fputs("  ", out);
}

static void write_row(FILE *out, const struct pda_report *rep,
		      const struct pda_report_table *t, uint32_t id,
		      const struct widths *w, struct pdc_strbuf *b,
		      struct pdc_strbuf *line, const struct pde_report_opts *o)
{
	const bool color = o->color;
	const unsigned nr = t->nr_members, flags = pda_report_flags(rep);
	const unsigned nr_keys = pda_report_nr_keys(rep);
	const struct pda_report_entry *e = pda_report_entry(rep, id);

	fputs("  ", out);
	if ((flags & PDA_REPORT_LATENCY) && (flags & PDA_REPORT_CHILDREN))
		write_latency(out, rep, t, id, true);
	if (flags & PDA_REPORT_CHILDREN) {
		for (unsigned m = 0; m < nr; m++)
			put_percent(out, true,
				    percent(pda_report_val(rep, t->members[m], id)
						    ->acc_period,
					    member_total(rep, t, m)),
				    color);
		fputs("  ", out);
	}
	if (flags & PDA_REPORT_LATENCY)
		write_latency(out, rep, t, id, false);
	for (unsigned m = 0; m < nr; m++)
		put_percent(out, true,
			    percent(pda_report_val(rep, t->members[m], id)->period,
				    member_total(rep, t, m)),
			    color);
	if (flags & PDA_REPORT_NR_SAMPLES) {
		fputs("  ", out);
		for (unsigned m = 0; m < nr; m++)
			fprintf(out, "%12" PRIu64,
				pda_report_val(rep, t->members[m], id)->samples);
	}
	if (flags & PDA_REPORT_PERIOD) {
		fputs("  ", out);
		for (unsigned m = 0; m < nr; m++)
			fprintf(out, "%12" PRIu64,
				pda_report_val(rep, t->members[m], id)->period);
	}
	for (size_t r = 0; r < o->nr_ratios && r < PDA_RATIOS_MAX; r++) {
		char cell[32];

		ratio_cell(cell, sizeof(cell), &o->ratios[r],
			   pde_report_ratio(rep, &o->ratios[r], id));
		fputs("  ", out);
		pad(out, cell, strlen(cell), ratio_width(&o->ratios[r]), true);
	}
	/* the keys' cells as one line: a --mem-mode row has ten */
	line->len = 0;
	for (unsigned i = 0; i < nr_keys; i++) {
		if (w->elided[i])
			continue;
		pdc_strbuf_add(line, "  ", 2);
		write_key(line, pda_report_key(rep, i), e,
			  pda_report_val(rep, t->members[0], id)->samples,
			  w->key[i], i == w->last && !o->ipc_null, b);
	}
	if (o->ipc_null)
		pdc_strbuf_add(line, "  " IPC_NULL_CELL,
			       strlen("  " IPC_NULL_CELL));
	pdc_strbuf_add(line, "\n", 1);
	fwrite(line->p, 1, line->len, out);
}

/* ---- call graphs (ui/stdio/hist.c's callchain__fprintf_*) ------------ */

/*
 * perf keeps a graph as a tree of nodes each holding a run of frames: a
 * run goes on while its frame ended no chain and has one child.  The
 * report's graph has a node a frame; a run is found by walking it.
 */
struct graph {
	FILE *out;
	const struct pda_report *rep;
	const struct pde_report_opts *o;
	uint64_t total;		/* the event's period: graph's 100% */
	uint64_t min_hit;	/* graph, flat, folded: the threshold */
	unsigned limit;
	int oom;
};

static const struct pda_report_cnode *cn(const struct graph *g, uint32_t id)
{
	return pda_report_cnode(g->rep, id);
}

static uint64_t cumul(const struct pda_report_cnode *n)
{
	return n->hit + n->children_hit;
}

/* The last frame of the run that starts at id. */
static uint32_t run_end(const struct graph *g, uint32_t id)
{
	for (;;) {
		const struct pda_report_cnode *n = cn(g, id);

		if (n->hit || !n->child || cn(g, n->child)->next)
			return id;
		id = n->child;
	}
}

/* What the graph's orders sort by: a run's cumulated period (graph,
 * fractal) or its own (flat, folded). */
static uint64_t sort_key(const struct graph *g, uint32_t id, bool own)
{
	return own ? cn(g, id)->hit : cumul(cn(g, id));
}

/* Sort ids v[0..n) by sort_key, largest first; equal ones keep their
 * order (rb_insert_callchain() puts a new equal one after).  tmp has
 * room for n. */
static void sort_runs(const struct graph *g, uint32_t *v, uint32_t *tmp,
		      size_t n, bool own)
{
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			const size_t mid = lo + w < n ? lo + w : n;
			const size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, o = lo;

			while (i < mid && j < hi)
				tmp[o++] = sort_key(g, v[j], own) >
						   sort_key(g, v[i], own)
						   ? v[j++]
						   : v[i++];
			while (i < mid)
				tmp[o++] = v[i++];
			while (j < hi)
				tmp[o++] = v[j++];
		}
		memcpy(v, tmp, n * sizeof(*v));
	}
}

/* The runs under run end e worth printing, sorted as perf's
 * sort_chain_graph_*(): cumulated period first, ties in the graph's
 * order.  A malloc'd list (*nr of them), NULL when none. */
static uint32_t *graph_children(struct graph *g, uint32_t e, uint64_t min_hit,
				size_t *nr)
{
	uint32_t *v, *tmp;
	size_t n = 0, k = 0;

	*nr = 0;
	for (uint32_t c = cn(g, e)->child; c; c = cn(g, c)->next)
		n++;
	if (!n)
		return NULL;
	v = malloc(2 * n * sizeof(*v));
	if (!v) {
		g->oom = 1;
		return NULL;
	}
	tmp = v + n;
	for (uint32_t c = cn(g, e)->child; c; c = cn(g, c)->next)
		if (cumul(cn(g, c)) >= min_hit)
			v[k++] = c;
	sort_runs(g, v, tmp, k, false);
	*nr = k;
	return v;
}

/* A threshold for the children of run end e: fractal's is a share of
 * e's children (__sort_chain_graph_rel), graph's the event's. */
static uint64_t child_min(const struct graph *g, uint32_t e)
{
	if (g->o->graph == PDE_GRAPH_REL)
		return (uint64_t)ceil((double)cn(g, e)->children_hit *
				      (g->o->graph_min_percent / 100.0));
	return g->min_hit;
}

static void margin(const struct graph *g, int left)
{
	fprintf(g->out, "%*s", 12 + left, "");
}

static void value(const struct graph *g, uint64_t period, uint64_t total)
{
	put_percent(g->out, false, percent(period, total), g->o->color);
}

static void frame_name(const struct graph *g, const struct pda_report_cnode *n)
{
	pde_text_puts(g->out, n->name);
}

/* ipchain__fprintf_graph(): a frame of a run; the first carries the
 * run's share. */
static void graph_frame(const struct graph *g, uint64_t share, uint32_t id,
			int depth, unsigned mask, bool first, uint64_t total,
			int left)
{
	margin(g, left);
	for (int i = 0; i < depth; i++) {
		fputc(mask & (1u << i) ? '|' : ' ', g->out);
		if (first && i == depth - 1) {
			fputs("--", g->out);
			value(g, share, total);
			fputs("--", g->out);
		} else {
			fputs("          ", g->out);
		}
	}
	if (id)
		frame_name(g, cn(g, id));
	else
		fputs("[...]", g->out);
	fputc('\n', g->out);
}

/* __callchain__fprintf_graph(): the runs under run end e.  Whether it
 * wrote anything. */
static bool graph_level(struct graph *g, uint32_t e, uint64_t total, int depth,
			unsigned mask, int left)
{
	size_t nr;
	uint32_t *kids = graph_children(g, e, child_min(g, e), &nr);
	uint64_t remaining = total;
	unsigned new_mask = mask;
	size_t printed = 0;

	for (size_t k = 0; k < nr; k++) {
		const uint32_t s = kids[k], end = run_end(g, s);
		const uint64_t c = cumul(cn(g, s));

		remaining -= c;
		if (k + 1 == nr &&
		    (g->o->graph != PDE_GRAPH_REL || !remaining))
			new_mask &= ~(1u << (depth - 1));
		/* the separator keeps the old mask */
		margin(g, left);
		for (int i = 0; i < depth; i++)
			fputs(mask & (1u << i) ? "|          " : "           ",
			      g->out);
		fputc('\n', g->out);
		for (uint32_t id = s, first = 1;; id = cn(g, id)->child, first = 0) {
			graph_frame(g, c, id, depth, new_mask, first, total,
				    left);
			if (id == end)
				break;
		}
		graph_level(g, end,
			    g->o->graph == PDE_GRAPH_REL ? cn(g, end)->children_hit
							 : total,
			    depth + 1, new_mask | (1u << depth), left);
		if (++printed == g->limit)
			break;
	}
	if (g->o->graph == PDE_GRAPH_REL && remaining && remaining != total) {
		new_mask &= ~(1u << (depth - 1));
		graph_frame(g, remaining, 0, depth, new_mask, true, total, left);
		printed++;
	}
	free(kids);
	return printed > 0;
}

/* callchain__fprintf_graph(): parent is the row's period (its children's
 * with them).  A lone run with all of it is printed "---" without a
 * share; perf prints the graph's blank line only after something. */
static void graph_print(struct graph *g, uint32_t root, uint64_t parent)
{
	size_t nr;
	uint32_t *kids = graph_children(g, root, child_min(g, root), &nr);
	uint64_t total = g->total;
	uint32_t top = root;
	bool any = false;
	int left = 0;

	if (nr && (nr > 1 || cumul(cn(g, kids[0])) != parent))
		goto rest;
	if (nr) {
		const uint32_t s = kids[0], end = run_end(g, s);
		bool printed = false;
		size_t entries = 0;

		for (uint32_t id = s, i = 0;; id = cn(g, id)->child, i++) {
			if (!(i == 0 && g->o->graph_skip_first)) {
				if (!printed) {
					margin(g, left);
					fputs("|\n", g->out);
					margin(g, left);
					fputs("---", g->out);
					left += 3;
					printed = true;
				} else {
					margin(g, left);
				}
				frame_name(g, cn(g, id));
				fputc('\n', g->out);
				any = true;
				if (++entries == g->limit)
					break;
			}
			if (id == end)
				break;
		}
		top = end;
	}
rest:
	free(kids);
	if (g->o->graph == PDE_GRAPH_REL)
		total = parent;
	if (graph_level(g, top, total, 1, 1, left) || any)
		fputc('\n', g->out);
}

/* Trie nodes under id with chains ending there, in perf's flat order:
 * each node's children (in the graph's order) before it. */
static int flat_collect(struct graph *g, uint32_t id, uint32_t **v, size_t *nr,
			size_t *alloc)
{
	const struct pda_report_cnode *n = cn(g, id);

	for (uint32_t c = n->child; c; c = cn(g, c)->next)
		if (flat_collect(g, c, v, nr, alloc) < 0)
			return -1;
	if (n->parent && n->hit && n->hit >= g->min_hit) {
		if (*nr == *alloc) {
			const size_t want = *alloc ? 2 * *alloc : 16;
			uint32_t *p = realloc(*v, want * sizeof(**v));

			if (!p)
				return -1;
			*v = p;
			*alloc = want;
		}
		(*v)[(*nr)++] = id;
	}
	return 0;
}

/* The path root..id, printed by flat's or folded's rule. */
static void flat_path(const struct graph *g, uint32_t id, bool folded,
		      bool *first)
{
	const struct pda_report_cnode *n = cn(g, id);

	if (!n->parent)
		return;
	flat_path(g, n->parent, folded, first);
	if (folded) {
		if (!*first)
			fputc(';', g->out);
		*first = false;
	} else {
		fputs("                ", g->out);
	}
	frame_name(g, n);
	if (!folded)
		fputc('\n', g->out);
}

/* callchain__fprintf_flat() and _folded(): the chains by their own
 * period, largest first (flat shows the cumulated share, folded the
 * chain's own). */
static void flat_print(struct graph *g, uint32_t root)
{
	const bool folded = g->o->graph == PDE_GRAPH_FOLDED;
	uint32_t *v = NULL, *tmp;
	size_t nr = 0, alloc = 0, printed = 0;

	if (flat_collect(g, root, &v, &nr, &alloc) < 0) {
		free(v);
		g->oom = 1;
		return;
	}
	tmp = nr ? malloc(nr * sizeof(*tmp)) : NULL;
	if (nr && !tmp) {
		free(v);
		g->oom = 1;
		return;
	}
	sort_runs(g, v, tmp, nr, true);
	for (size_t k = 0; k < nr; k++) {
		const struct pda_report_cnode *n = cn(g, v[k]);
		bool first = true;

		if (!folded)
			fputs("           ", g->out);
		value(g, folded ? n->hit : cumul(n), g->total);
		fputc(folded ? ' ' : '\n', g->out);
		flat_path(g, v[k], folded, &first);
		fputc('\n', g->out);
		if (++printed == g->limit)
			break;
	}
	free(tmp);
	free(v);
}

/* Row id's call graph, the table's first member's. */
static void write_graph(FILE *out, const struct pda_report *rep,
			const struct pda_report_table *t, uint32_t id,
			const struct pde_report_opts *o, int *oom)
{
	const struct pda_report_val *v = pda_report_val(rep, t->members[0], id);
	const uint64_t total = member_total(rep, t, 0);
	struct graph g = {
		.out = out, .rep = rep, .o = o, .total = total,
		.min_hit = (uint64_t)((double)total *
				      (o->graph_min_percent / 100.0)),
		.limit = o->graph_limit,
	};

	if (!v->chain)
		return;
	if (o->graph == PDE_GRAPH_FLAT || o->graph == PDE_GRAPH_FOLDED)
		flat_print(&g, v->chain);
	else
		graph_print(&g, v->chain,
			    pda_report_flags(rep) & PDA_REPORT_CHILDREN
				    ? v->acc_period
				    : v->period);
	*oom |= g.oom;
}

/*
 * perf's sort__setup_elide(): a comm, dso or sym column whose filter
 * (--comms, --dsos, --symbols) names one value is left out, the value
 * said in the header ("# dso: libc.so.6"), in the keys' order.
 */
static void elide(FILE *out, const struct pda_report *rep, struct widths *w)
{
	const unsigned nr_keys = pda_report_nr_keys(rep);

	memset(w, 0, sizeof(*w));
	for (unsigned i = 0; i < nr_keys; i++) {
		const enum pda_report_key k = pda_report_key(rep, i);
		const char *one = pda_report_key_elided(rep, i);

		if (!one) {
			w->last = i;
			continue;
		}
		fprintf(out, "# %s: ", k == PDA_REPORT_COMM  ? "comm"
				       : k == PDA_REPORT_DSO ? "dso"
							     : "symbol");
		pde_text_puts(out, one);
		fputc('\n', out);
		w->elided[i] = true;
	}
}

/* What perf report --stdio prints before its tables; with rep, its
 * elided columns' values (*keep, their widths' elided and last). */
static void write_preamble(FILE *out, uint64_t lost,
			   const struct pda_report *rep, struct widths *keep)
{
	fputs("# To display the perf.data header info, please use "
	      "--header/--header-only options.\n#\n",
	      out);
	if (rep)
		elide(out, rep, keep);
	fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n", lost);
}

/* A table's title: its samples (perf's "1K" past 1000), event (events,
 * with a group), the --time slices, and its period; with mem_sort,
 * perf 6.1's --mem-mode lines instead of the period's: the period is
 * the weight, and the sort order follows. */
static void write_table_title(FILE *out, uint64_t nr_samples, bool plural,
			      const char *event, uint64_t period,
			      const char *slices, const char *mem_sort)
{
	char unit;
	const uint64_t n = convert_unit(nr_samples, &unit);

	fprintf(out, "# Samples: %" PRIu64 "%c of event%s '", n, unit,
		plural ? "s" : "");
	pde_text_puts(out, event);
	fputc('\'', out);
	if (slices) {
		fputs(" (time slices: ", out);
		pde_text_puts(out, slices);
		fputc(')', out);
	}
	if (!mem_sort) {
		fprintf(out, "\n# Event count (approx.): %" PRIu64 "\n#\n",
			period);
		return;
	}
	fprintf(out, "\n# Total weight : %" PRIu64 "\n# Sort order   : ",
		period);
	pde_text_puts(out, mem_sort);
	fputs("\n#\n", out);
}

static void write_title_slices(FILE *out, uint64_t nr_samples, bool plural,
			       const char *event, uint64_t period,
			       const char *slices)
{
	write_table_title(out, nr_samples, plural, event, period, slices,
			  NULL);
}

int pde_report_text(FILE *out, const struct pda_report *rep,
		    const struct pde_report_opts *o)
{
	struct pdc_strbuf b, line;
	char small[512], lsmall[1024];
	int rc = 0, oom = 0;
	struct widths keep;

	pdc_strbuf_init(&b, NULL, small, sizeof(small));
	pdc_strbuf_init(&line, NULL, lsmall, sizeof(lsmall));
	write_preamble(out, o->lost, rep, &keep);
	for (size_t i = 0; i < pda_report_nr_tables(rep); i++) {
		const struct pda_report_table *t = pda_report_table(rep, i);
		struct widths w;

		write_table_title(out, t->nr_samples,
				  t->nr_members > 1 || t->leads_group,
				  t->event, t->total_period, o->time_slices,
				  o->mem_sort);
		calc_widths(rep, t, &w, &b, o->dso_list);
		memcpy(w.elided, keep.elided, sizeof(w.elided));
		w.last = keep.last;
		write_headers(out, rep, t, &w, o);
		for (size_t r = 0; r < t->nr_rows; r++) {
			if (hidden(rep, t, t->rows[r], o))
				continue;
			write_row(out, rep, t, t->rows[r], &w, &b, &line, o);
			if (o->graph != PDE_GRAPH_NONE)
				write_graph(out, rep, t, t->rows[r], o, &oom);
		}
		fputs("\n\n", out);
	}
	if (b.oom || line.oom || oom)
		rc = PD_ERR_NOMEM;
	pdc_strbuf_release(&b);
	pdc_strbuf_release(&line);
	if (rc == 0 && ferror(out))
		rc = PD_ERR_IO;
	return rc;
}

/* ---- Markdown, JSON, CSV ----------------------------------------------- */

/* The columns of the values, by name, and what each holds. */
enum col { C_CHILDREN, C_SELF, C_SAMPLES, C_PERIOD };

static const char *const col_name[] = {"Children", "Self", "Samples",
				       "Period"};

/* The value columns the text has (its headers' order). */
static size_t value_cols(const struct pda_report *rep, enum col *cols)
{
	const unsigned flags = pda_report_flags(rep);
	size_t n = 0;

	if (flags & PDA_REPORT_CHILDREN)
		cols[n++] = C_CHILDREN;
	cols[n++] = C_SELF;
	if (flags & PDA_REPORT_NR_SAMPLES)
		cols[n++] = C_SAMPLES;
	if (flags & PDA_REPORT_PERIOD)
		cols[n++] = C_PERIOD;
	return n;
}

static void put_value(FILE *out, const struct pda_report *rep,
		      const struct pda_report_table *t, unsigned m, uint32_t id,
		      enum col c)
{
	const struct pda_report_val *v = pda_report_val(rep, t->members[m], id);

	switch (c) {
	case C_CHILDREN:
		fprintf(out, "%.2f%%", percent(v->acc_period,
					       member_total(rep, t, m)));
		break;
	case C_SELF:
		fprintf(out, "%.2f%%", percent(v->period,
					       member_total(rep, t, m)));
		break;
	case C_SAMPLES:
		fprintf(out, "%" PRIu64, v->samples);
		break;
	case C_PERIOD:
		fprintf(out, "%" PRIu64, v->period);
		break;
	}
}

/* The cell of key k as the text writes it (the sym key with
 * " (inlined)", the pid key "TID:comm"). */
static void cell_text(struct pdc_strbuf *b, enum pda_report_key k,
		      const struct pda_report_entry *e, uint64_t nr)
{
	b->len = 0;
	if (k == PDA_REPORT_PID)
		pdc_strbuf_addf(b, "%d:", e->tid);
	key_text(b, k, e, nr);
	if (k == PDA_REPORT_SYM && e->inlined)
		pdc_strbuf_add(b, " (inlined)", 10);
}

/* Key k's header without perf's padding ("Pid:Command"). */
static const char *key_title(enum pda_report_key k)
{
	const char *h = pda_report_key_header(k);

	return h + strspn(h, " ");
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* A Markdown table's heading, header and alignment lines. */
static void md_head(FILE *out, const struct pda_report *rep,
		    const struct pda_report_table *t, const enum col *cols,
		    size_t nr_cols, const struct pde_report_opts *o)
{
	const unsigned nr_keys = pda_report_nr_keys(rep);

	fputs("\n## ", out);
	pde_md_text(out, t->event, strlen(t->event));
	/* --mem-mode: the period is the weight, as perf's title says */
	fprintf(out, "\n\n%" PRIu64 " sample%s, %s %" PRIu64 "\n\n|",
		t->nr_samples, plural(t->nr_samples),
		o->mem_sort ? "total weight" : "event count", t->total_period);
	for (size_t c = 0; c < nr_cols; c++)
		for (unsigned m = 0; m < t->nr_members; m++) {
			const char *ev = pda_report_event_name(rep, t->members[m]);

			fprintf(out, " %s", col_name[cols[c]]);
			if (t->nr_members > 1) {
				fputs(" (", out);
				pde_md_text(out, ev, strlen(ev));
				fputc(')', out);
			}
			fputs(" |", out);
		}
	for (size_t r = 0; r < o->nr_ratios; r++)
		fprintf(out, " %s |", o->ratios[r].label);
	for (unsigned k = 0; k < nr_keys; k++)
		fprintf(out, " %s |", key_title(pda_report_key(rep, k)));
	fputs("\n|", out);
	for (size_t c = 0; c < nr_cols * t->nr_members + o->nr_ratios; c++)
		fputs(" ---: |", out);
	for (unsigned k = 0; k < nr_keys; k++)
		fputs(" --- |", out);
	fputc('\n', out);
}

/* Row id as a Markdown table row: every member's values side by side. */
static void md_row(FILE *out, const struct pda_report *rep,
		   const struct pda_report_table *t, uint32_t id,
		   const enum col *cols, size_t nr_cols, struct pdc_strbuf *b,
		   const struct pde_report_opts *o)
{
	const struct pda_report_entry *e = pda_report_entry(rep, id);

	fputc('|', out);
	for (size_t c = 0; c < nr_cols; c++)
		for (unsigned m = 0; m < t->nr_members; m++) {
			fputc(' ', out);
			put_value(out, rep, t, m, id, cols[c]);
			fputs(" |", out);
		}
	for (size_t r = 0; r < o->nr_ratios; r++) {
		char cell[32];

		ratio_cell(cell, sizeof(cell), &o->ratios[r],
			   pde_report_ratio(rep, &o->ratios[r], id));
		fprintf(out, " %s |", cell);
	}
	for (unsigned k = 0; k < pda_report_nr_keys(rep); k++) {
		cell_text(b, pda_report_key(rep, k), e,
			  pda_report_val(rep, t->members[0], id)->samples);
		fputc(' ', out);
		pde_md_code(out, b->p, b->len, true);
		fputs(" |", out);
	}
	fputc('\n', out);
}

/* Row id as CSV lines, one a member. */
static void csv_rows(FILE *out, const struct pda_report *rep,
		     const struct pda_report_table *t, uint32_t id,
		     const enum col *cols, size_t nr_cols, struct pdc_strbuf *b,
		     const struct pde_report_opts *o)
{
	const struct pda_report_entry *e = pda_report_entry(rep, id);

	for (unsigned m = 0; m < t->nr_members; m++) {
		pde_csv_str(out, pda_report_event_name(rep, t->members[m]));
		for (size_t c = 0; c < nr_cols; c++) {
			fputc(',', out);
			put_value(out, rep, t, m, id, cols[c]);
		}
		/* the row's ratios, on each member's line: a number, or
		 * empty without one */
		for (size_t r = 0; r < o->nr_ratios; r++) {
			const double v = pde_report_ratio(rep, &o->ratios[r], id);

			fputc(',', out);
			if (!isnan(v))
				fprintf(out, "%.6g", v);
		}
		for (unsigned k = 0; k < pda_report_nr_keys(rep); k++) {
			cell_text(b, pda_report_key(rep, k), e,
				  pda_report_val(rep, t->members[m], id)
					  ->samples);
			/* NUL-terminated for pde_csv_str */
			pdc_strbuf_add(b, "", 1);
			fputc(',', out);
			pde_csv_str(out, b->p);
		}
		fputc('\n', out);
	}
}

/* The rows as Markdown tables (md) or CSV. */
static int write_grid(FILE *out, const struct pda_report *rep,
		      const struct pde_report_opts *o, bool md)
{
	struct pdc_strbuf b;
	char small[512];
	enum col cols[4];
	const size_t nr_cols = value_cols(rep, cols);
	int rc = 0;

	pdc_strbuf_init(&b, NULL, small, sizeof(small));
	if (md) {
		fprintf(out, "# perf report\n\nLost samples: %" PRIu64 "\n",
			o->lost);
	} else {
		fputs("event", out);
		for (size_t c = 0; c < nr_cols; c++)
			fprintf(out, ",%s", col_name[cols[c]]);
		for (size_t r = 0; r < o->nr_ratios; r++)
			fprintf(out, ",%s", o->ratios[r].key);
		for (unsigned k = 0; k < pda_report_nr_keys(rep); k++)
			fprintf(out, ",%s", key_title(pda_report_key(rep, k)));
		fputc('\n', out);
	}
	for (size_t i = 0; i < pda_report_nr_tables(rep); i++) {
		const struct pda_report_table *t = pda_report_table(rep, i);

		if (md)
			md_head(out, rep, t, cols, nr_cols, o);
		for (size_t r = 0; r < t->nr_rows; r++) {
			if (hidden(rep, t, t->rows[r], o))
				continue;
			if (md)
				md_row(out, rep, t, t->rows[r], cols, nr_cols,
				       &b, o);
			else
				csv_rows(out, rep, t, t->rows[r], cols, nr_cols,
					 &b, o);
		}
	}
	if (b.oom)
		rc = PD_ERR_NOMEM;
	pdc_strbuf_release(&b);
	return rc ? rc : pde_out_rc(out);
}

int pde_report_md(FILE *out, const struct pda_report *rep,
		  const struct pde_report_opts *o)
{
	return write_grid(out, rep, o, true);
}

int pde_report_csv(FILE *out, const struct pda_report *rep,
		   const struct pde_report_opts *o)
{
	return write_grid(out, rep, o, false);
}

/* s as a JSON string, or null. */
static void json_str_or_null(struct pde_json *j, const char *key,
			     const char *s)
{
	if (s)
		pde_json_str(j, key, s);
	else
		pde_json_null(j, key);
}

/* Key k of entry e as JSON, by perf's name: what the text shows, in
 * its parts. */
static void json_key(struct pde_json *j, enum pda_report_key k,
		     const struct pda_report_entry *e, uint64_t nr)
{
	switch (k) {
	case PDA_REPORT_COMM:
		pde_json_str(j, "comm", e->comm);
		break;
	case PDA_REPORT_PID:
		pde_json_u64(j, "pid", e->pid);
		pde_json_i64(j, "tid", e->tid);
		pde_json_str(j, "thread_comm", e->thread_comm);
		break;
	case PDA_REPORT_DSO:
		if (e->dso) {
			pde_json_str(j, "dso", e->dso);
			pde_json_str(j, "dso_path", e->dso_path);
		} else {
			pde_json_null(j, "dso");
		}
		break;
	case PDA_REPORT_SYMOFF:
		if (e->sym)
			pde_json_hex(j, "sym_offset", e->sym_off);
		/* the sym key's members: */
		/* fall through */
	case PDA_REPORT_SYM:
		json_str_or_null(j, "sym", e->sym);
		pde_json_hex(j, "addr", e->addr);
		pde_json_str(j, "level", e->level == 'k' ? "k" : ".");
		pde_json_bool(j, "inlined", e->inlined);
		break;
	case PDA_REPORT_SRCLINE:
		pde_json_str(j, "srcline", e->srcline);
		break;
	case PDA_REPORT_SRCFILE:
		pde_json_str(j, "srcfile", e->srcfile);
		break;
	case PDA_REPORT_CPU:
		pde_json_i64(j, "cpu", e->cpu);
		break;
	case PDA_REPORT_PARALLELISM:
		pde_json_i64(j, "parallelism", e->parallelism);
		break;
	case PDA_REPORT_PARENT:
		if (e->parent)
			pde_json_str(j, "parent", e->parent);
		else
			pde_json_null(j, "parent");
		break;
	case PDA_REPORT_TYPE:
		pde_json_str(j, "type", e->type);
		break;
	case PDA_REPORT_TYPEOFF:
		pde_json_str(j, "typeoff", e->typeoff);
		pde_json_i64(j, "type_offset", e->type_off);
		break;
	case PDA_REPORT_TYPECLN:
		pde_json_str(j, "typecln", e->typecln);
		pde_json_i64(j, "type_cacheline", e->type_off / 64);
		break;
	case PDA_REPORT_LOCAL_WEIGHT:
	case PDA_REPORT_LOCAL_INS_LAT:
	case PDA_REPORT_WEIGHT:
	case PDA_REPORT_INS_LAT:
		pde_json_u64(j, pda_report_key_name(k), lat_value(k, e, nr));
		break;
	case PDA_REPORT_MEM:
	case PDA_REPORT_SNOOP:
	case PDA_REPORT_TLB:
	case PDA_REPORT_LOCKED:
	case PDA_REPORT_BLOCKED: {
		struct pdc_strbuf b;
		char small[128];

		pdc_strbuf_init(&b, NULL, small, sizeof(small));

		key_text(&b, k, e, nr);
		pde_json_str(j, pda_report_key_name(k), pdc_strbuf_str(&b));
		pde_json_hex(j, "data_src", e->data_src);
		pdc_strbuf_release(&b);
		break;
	}
	case PDA_REPORT_DADDR_SYM:
		json_str_or_null(j, "daddr_sym", e->daddr_sym);
		pde_json_hex(j, "daddr", e->daddr);
		pde_json_hex(j, "daddr_off", e->daddr_off);
		break;
	case PDA_REPORT_SOCKET:
		pde_json_i64(j, "socket", e->socket);
		break;
	case PDA_REPORT_TRANSACTION:
		pde_json_hex(j, "transaction", e->transaction);
		break;
	case PDA_REPORT_CODE_PAGE:
		pde_json_u64(j, "code_page_size", e->code_page);
		break;
	case PDA_REPORT_DATA_PAGE:
		pde_json_u64(j, "data_page_size", e->data_page);
		break;
	case PDA_REPORT_TIME:
		pde_json_u64(j, "time", e->time);
		break;
	case PDA_REPORT_ADDR:
		pde_json_hex(j, "addr", e->address);
		break;
	case PDA_REPORT_TRACE:
		json_str_or_null(j, "trace", e->trace);
		break;
	case PDA_REPORT_CGROUP:
		/* the path (null: none, the text's "N/A" or "unknown") and
		 * the sample's id (0: none) */
		json_str_or_null(j, "cgroup", e->cgroup_path);
		pde_json_u64(j, "cgroup_sample_id", e->cgroup);
		break;
	case PDA_REPORT_CGROUP_ID:
		/* the namespace's nsfs device and inode (0 and 0: none
		 * known) */
		pde_json_u64(j, "cgroup_ns_dev", e->cgroup_ns.dev);
		pde_json_u64(j, "cgroup_ns_ino", e->cgroup_ns.ino);
		break;
	case PDA_REPORT_SYM_SIZE:
	case PDA_REPORT_DSO_SIZE: {
		/* the size, null where the text says "unknown" */
		const bool known = k == PDA_REPORT_SYM_SIZE ? e->sym != NULL
							    : e->dso != NULL;

		if (known)
			pde_json_u64(j, pda_report_key_name(k),
				     k == PDA_REPORT_SYM_SIZE ? e->sym_size
							      : e->dso_size);
		else
			pde_json_null(j, pda_report_key_name(k));
		break;
	}
	case PDA_REPORT_IADDR:
		json_str_or_null(j, "iaddr_sym", e->sym);
		pde_json_hex(j, "iaddr", e->iaddr);
		break;
	case PDA_REPORT_DCACHELINE: {
		/* the cell as the text prints it, and the line */
		struct pdc_strbuf b;
		char small[128];

		pdc_strbuf_init(&b, NULL, small, sizeof(small));
		key_text(&b, k, e, nr);
		pde_json_str(j, "dcacheline", pdc_strbuf_str(&b));
		pde_json_hex(j, "dcacheline_addr", e->dcacheline);
		pdc_strbuf_release(&b);
		break;
	}
	case PDA_REPORT_DADDR_DSO:
		json_str_or_null(j, "daddr_dso", e->daddr_dso);
		break;
	case PDA_REPORT_PHYS_DADDR:
		pde_json_hex(j, "phys_daddr", e->phys_daddr);
		break;
	case PDA_REPORT_NR_KEYS:
		break;
	}
}

/* Member m's values of row id. */
static void json_values(struct pde_json *j, const struct pda_report *rep,
			const struct pda_report_table *t, unsigned m,
			uint32_t id)
{
	const struct pda_report_val *v = pda_report_val(rep, t->members[m], id);
	const uint64_t total = member_total(rep, t, m);

	if (pda_report_flags(rep) & PDA_REPORT_CHILDREN)
		pde_json_double(j, "children", percent(v->acc_period, total));
	pde_json_double(j, "self", percent(v->period, total));
	pde_json_u64(j, "samples", v->samples);
	pde_json_u64(j, "period", v->period);
	if (pda_report_flags(rep) & PDA_REPORT_CHILDREN) {
		pde_json_u64(j, "children_samples", v->acc_samples);
		pde_json_u64(j, "children_period", v->acc_period);
	}
}

/* Row id's ratios: an object by key, each null without one. */
static void json_ratios(struct pde_json *j, const struct pda_report *rep,
			uint32_t id, const struct pde_report_opts *o)
{
	if (!o->nr_ratios)
		return;
	pde_json_begin_object(j, "ratios");
	for (size_t r = 0; r < o->nr_ratios; r++) {
		const double v = pde_report_ratio(rep, &o->ratios[r], id);

		if (isnan(v))
			pde_json_null(j, o->ratios[r].key);
		else
			pde_json_double(j, o->ratios[r].key, v);
	}
	pde_json_end_object(j);
}

int pde_report_json(FILE *out, const struct pda_report *rep,
		    const struct pde_report_opts *o)
{
	const unsigned nr_keys = pda_report_nr_keys(rep);
	struct pde_json j;

	pde_json_init(&j, out, false);
	pde_json_begin_object(&j, NULL);
	pde_json_u64(&j, "lost", o->lost);
	if (o->nr_ratios) {
		/* what each row's "ratios" are */
		pde_json_begin_array(&j, "ratios");
		for (size_t r = 0; r < o->nr_ratios; r++) {
			const struct pda_ratio *d = &o->ratios[r];

			pde_json_begin_object(&j, NULL);
			pde_json_str(&j, "key", d->key);
			pde_json_str(&j, "label", d->label);
			pde_json_str(&j, "formula", d->formula);
			pde_json_bool(&j, "percent", d->percent);
			pde_json_str(&j, "numerator",
				     pda_report_event_name(rep,
							   (unsigned)d->num));
			pde_json_str(&j, "denominator",
				     pda_report_event_name(rep,
							   (unsigned)d->den));
			pde_json_end_object(&j);
		}
		pde_json_end_array(&j);
	}
	pde_json_begin_array(&j, "tables");
	for (size_t i = 0; i < pda_report_nr_tables(rep); i++) {
		const struct pda_report_table *t = pda_report_table(rep, i);

		pde_json_begin_object(&j, NULL);
		pde_json_str(&j, "event", t->event);
		pde_json_u64(&j, "samples", t->nr_samples);
		pde_json_u64(&j, "period", t->total_period);
		pde_json_begin_array(&j, "rows");
		for (size_t r = 0; r < t->nr_rows; r++) {
			const uint32_t id = t->rows[r];
			const struct pda_report_entry *e =
				pda_report_entry(rep, id);

			if (hidden(rep, t, id, o))
				continue;
			pde_json_begin_object(&j, NULL);
			for (unsigned k = 0; k < nr_keys; k++)
				json_key(&j, pda_report_key(rep, k), e,
					 pda_report_val(rep, t->members[0], id)
						 ->samples);
			json_ratios(&j, rep, id, o);
			if (t->nr_members == 1) {
				json_values(&j, rep, t, 0, id);
			} else {
				pde_json_begin_array(&j, "members");
				for (unsigned m = 0; m < t->nr_members; m++) {
					pde_json_begin_object(&j, NULL);
					pde_json_str(&j, "event",
						     pda_report_event_name(
							     rep, t->members[m]));
					json_values(&j, rep, t, m, id);
					pde_json_end_object(&j);
				}
				pde_json_end_array(&j);
			}
			pde_json_end_object(&j);
		}
		pde_json_end_array(&j);
		pde_json_end_object(&j);
	}
	pde_json_end_array(&j);
	pde_json_end_object(&j);
	pde_json_newline(&j);
	return pde_out_rc(out);
}

/* ---- perf report --branch-stack (pda_branch_rep.h) -------------------- */

#define UNRES_W 16 /* perf's unresolved_col_width: BITS_PER_LONG / 4 */

static size_t max_sz(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* What key k's column needs for row w (hists__calc_col_len()). */
static size_t brep_need(enum pda_brep_key k, const struct pda_brep_row *w)
{
	const struct pda_brep_end *e = k == PDA_BREP_DSO_FROM ||
						       k == PDA_BREP_SYM_FROM
					       ? &w->from
					       : &w->to;

	switch (k) {
	case PDA_BREP_COMM:
		return strlen(w->comm);
	case PDA_BREP_DSO:
	case PDA_BREP_DSO_FROM:
	case PDA_BREP_DSO_TO:
		/* perf measures an end's DSO only where it has a symbol */
		if (!e->sym)
			return UNRES_W;
		return e->dso ? strlen(e->dso) : strlen("[unknown]");
	case PDA_BREP_SYM:
	case PDA_BREP_SYM_FROM:
	case PDA_BREP_SYM_TO:
		return e->sym ? strlen(e->sym) + 4 : UNRES_W + 4 + 2;
	case PDA_BREP_MISPREDICT:
	case PDA_BREP_IN_TX:
	case PDA_BREP_ABORT:
	case PDA_BREP_CYCLES:
	case PDA_BREP_SRCLINE_FROM:
	case PDA_BREP_SRCLINE_TO:
	case PDA_BREP_NR_KEYS:
		break;
	}
	/* the others are as wide as their header (perf measures none) */
	return 0;
}

static void brep_text(struct pdc_strbuf *b, const char *s)
{
	pdc_strbuf_add_text(b, s, strlen(s));
}

static void brep_cell(struct pdc_strbuf *b, enum pda_brep_key k,
		      const struct pda_brep_row *w)
{
	const struct pda_brep_end *e = k == PDA_BREP_DSO_FROM ||
						       k == PDA_BREP_SYM_FROM ||
						       k == PDA_BREP_SRCLINE_FROM
					       ? &w->from
					       : &w->to;
	char tmp[64];

	switch (k) {
	case PDA_BREP_COMM:
		brep_text(b, w->comm);
		break;
	case PDA_BREP_DSO:
	case PDA_BREP_DSO_FROM:
	case PDA_BREP_DSO_TO:
		brep_text(b, e->dso ? e->dso : "[unknown]");
		break;
	case PDA_BREP_SYM:
	case PDA_BREP_SYM_FROM:
	case PDA_BREP_SYM_TO:
		snprintf(tmp, sizeof(tmp), "[%c] ", e->level);
		pdc_strbuf_add(b, tmp, strlen(tmp));
		if (e->sym) {
			brep_text(b, e->sym);
		} else {
			/* the symbol key shows the target as recorded, the
			 * from/to keys perf's map-relative al_addr */
			snprintf(tmp, sizeof(tmp), "%#.*" PRIx64, UNRES_W,
				 k == PDA_BREP_SYM ? e->addr : e->map_ip);
			pdc_strbuf_add(b, tmp, strlen(tmp));
		}
		break;
	case PDA_BREP_MISPREDICT:
		pdc_strbuf_add(b, w->mispred == 'Y'   ? "Y"
				  : w->mispred == 'N' ? "N"
						      : "N/A",
			       w->mispred ? 1 : 3);
		break;
	case PDA_BREP_IN_TX:
		pdc_strbuf_add(b, w->in_tx ? "T" : ".", 1);
		break;
	case PDA_BREP_ABORT:
		pdc_strbuf_add(b, w->abort ? "A" : ".", 1);
		break;
	case PDA_BREP_CYCLES:
		if (w->cycles) {
			snprintf(tmp, sizeof(tmp), "%u", w->cycles);
			pdc_strbuf_add(b, tmp, strlen(tmp));
		} else {
			pdc_strbuf_add(b, "-", 1);
		}
		break;
	case PDA_BREP_SRCLINE_FROM:
	case PDA_BREP_SRCLINE_TO:
		brep_text(b, e->srcline ? e->srcline : "??:0");
		break;
	case PDA_BREP_NR_KEYS:
		break;
	}
}

static void brep_stat(FILE *out, const char *name, uint64_t n, uint64_t total)
{
	if (n)
		fprintf(out, "\n%8s: %5.1f%%", name, percent(n, total));
}

/* util/branch.c branch_type_stat_display(), after the tables */
static void brep_stats(FILE *out, const struct pda_brep_stats *st)
{
	uint64_t total = 0;

	for (unsigned i = 0; i < PDA_BR_NR_TYPES; i++)
		total += st->types[i];
	for (unsigned i = 0; i < PDA_BR_NR_NEW_TYPES; i++)
		total += st->new_types[i];
	if (!total)
		return;
	fputs("\n#\n# Branch Statistics:\n#", out);
	brep_stat(out, "COND_FWD", st->cond_fwd, total);
	brep_stat(out, "COND_BWD", st->cond_bwd, total);
	brep_stat(out, "CROSS_4K", st->cross_4k, total);
	brep_stat(out, "CROSS_2M", st->cross_2m, total);
	for (unsigned i = 0; i < PDA_BR_NR_TYPES; i++)
		brep_stat(out, pda_branch_type_name(i), st->types[i], total);
	for (unsigned i = 0; i < PDA_BR_NR_NEW_TYPES; i++)
		brep_stat(out, pda_branch_new_type_name(i), st->new_types[i],
			  total);
	fputc('\n', out);
}

#define IPC_HEADER "IPC   [IPC Coverage]"

/* sort__setup_elide() in branch mode: the comm, dso and symbol keys
 * whose filter names one value, said in the preamble, in the keys'
 * order, and left out unless no column would be left (ipc one). */
static void brep_preamble(FILE *out, const struct pda_brep *r, bool ipc,
			  const struct pde_report_opts *o, bool *elided)
{
	const unsigned nr_keys = pda_brep_nr_keys(r);
	const char *one[PDA_BREP_MAX_KEYS];
	unsigned n = 0;

	for (unsigned k = 0; k < nr_keys; k++) {
		const enum pda_brep_key key = pda_brep_key(r, k);

		one[k] = key == PDA_BREP_COMM  ? o->one_comm
			 : key == PDA_BREP_DSO ? o->one_dso
			 : key == PDA_BREP_SYM ? o->one_sym
					       : NULL;
		n += one[k] != NULL;
	}
	fputs("# To display the perf.data header info, please use "
	      "--header/--header-only options.\n#\n",
	      out);
	for (unsigned k = 0; k < nr_keys; k++) {
		elided[k] = one[k] && n < nr_keys + ipc;
		if (!one[k])
			continue;
		fprintf(out, "# %s: ", pda_brep_key_name(pda_brep_key(r, k)));
		pde_text_puts(out, one[k]);
		fputc('\n', out);
	}
	fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n", o->lost);
}

/* Member m's entries in row (m 0 of a table of one event). */
static uint64_t brep_count(const struct pda_brep_table *t,
			   const struct pda_brep_row *row, unsigned m)
{
	return t->nr_members > 1 ? row->counts[m] : row->count;
}

/* Member m's share of its entries in row. */
static double brep_share(const struct pda_brep_table *t,
			 const struct pda_brep_row *row, unsigned m)
{
	return percent(brep_count(t, row, m), t->nr_members > 1
						      ? t->member_entries[m]
						      : t->nr_entries);
}

int pde_branch_report_text(FILE *out, const struct pda_brep *r, bool ipc,
			   const struct pde_report_opts *o)
{
	const unsigned nr_keys = pda_brep_nr_keys(r);
	struct pdc_strbuf b;
	char small[512];
	size_t w[PDA_BREP_MAX_KEYS];
	bool elided[PDA_BREP_MAX_KEYS];
	int rc = 0;

	pdc_strbuf_init(&b, NULL, small, sizeof(small));
	brep_preamble(out, r, ipc, o, elided);
	for (size_t i = 0; i < pda_brep_nr_tables(r); i++) {
		const struct pda_brep_table *t = pda_brep_table(r, i);

		/* perf 6.1 counts each entry as a sample of the table */
		write_title_slices(out, t->nr_entries,
				   t->nr_members > 1 || t->leads_group,
				   t->event, t->nr_entries, o->time_slices);
		for (unsigned k = 0; k < nr_keys; k++) {
			const enum pda_brep_key key = pda_brep_key(r, k);

			w[k] = strlen(pda_brep_key_header(key));
			for (size_t j = 0; j < t->nr_rows; j++)
				w[k] = max_sz(w[k], brep_need(key, t->rows[j]));
		}
		/* a group's shares side by side: 8 columns a member */
		fprintf(out, "# %*s", 8 * (int)t->nr_members, "Overhead");
		for (unsigned k = 0; k < nr_keys; k++) {
			const char *h = pda_brep_key_header(pda_brep_key(r, k));

			if (elided[k])
				continue;
			fputs("  ", out);
			pad(out, h, strlen(h), w[k], false);
		}
		if (ipc)
			fputs("  " IPC_HEADER, out);
		fputs("\n# ", out);
		for (unsigned d = 0; d < 8 * t->nr_members; d++)
			fputc('.', out);
		for (unsigned k = 0; k <= nr_keys; k++) {
			const size_t n_dots = k < nr_keys ? w[k]
						: ipc	  ? strlen(IPC_HEADER)
							  : 0;

			if (k < nr_keys && elided[k])
				continue;
			if (k < nr_keys || ipc)
				fputs("  ", out);
			for (size_t d = 0; d < n_dots; d++)
				fputc('.', out);
		}
		fputs("\n#\n", out);
		for (size_t j = 0; j < t->nr_rows; j++) {
			const struct pda_brep_row *row = t->rows[j];
			const double pct = brep_share(t, row, 0);

			if (o->percent_limit > 0 && (float)pct < o->percent_limit)
				continue;
			fputs("  ", out);
			put_percent(out, true, pct, o->color);
			for (unsigned m = 1; m < t->nr_members; m++)
				put_percent(out, true, brep_share(t, row, m),
					    o->color);
			for (unsigned k = 0; k < nr_keys; k++) {
				if (elided[k])
					continue;
				b.len = 0;
				brep_cell(&b, pda_brep_key(r, k), row);
				fputs("  ", out);
				pad(out, b.p, b.len < w[k] ? b.len : w[k], w[k],
				    false);
			}
			if (ipc) {
				/* perf's hist_entry__sym_ipc_snprintf() of the
				 * target's symbol */
				char v[64];

				if (row->to.sym)
					snprintf(v, sizeof(v), "%-5.2f [%5.1f%%]",
						 row->ipc, row->ipc_cover);
				else
					snprintf(v, sizeof(v), "-");
				fputs("  ", out);
				pad(out, v, strlen(v), strlen(IPC_HEADER),
				    false);
			}
			fputc('\n', out);
		}
		fputs("\n\n", out);
	}
	if (!o->branch_stats_apart)
		brep_stats(out, pda_brep_stats(r));
	if (b.oom)
		rc = PD_ERR_NOMEM;
	pdc_strbuf_release(&b);
	if (rc == 0 && ferror(out))
		rc = PD_ERR_IO;
	return rc;
}

int pde_branch_stats_text(FILE *out, const struct pda_brep *r)
{
	brep_stats(out, pda_brep_stats(r));
	return ferror(out) ? PD_ERR_IO : 0;
}

/* ---- perf's block view (report --total-cycles) ---------------------- */

/* util/block-info.c's columns: header, width (perf's fixed widths; the
 * counters' cell is wider with more events) */
enum { BLK_TOTAL_PCT, BLK_CYCLES, BLK_AVG_PCT, BLK_AVG, BLK_CNTR, BLK_RANGE,
       BLK_DSO, BLK_NR };

static const struct {
	const char *name;
	int width;
} blk_cols[BLK_NR] = {
	[BLK_TOTAL_PCT] = {"Sampled Cycles%", 15},
	[BLK_CYCLES] = {"Sampled Cycles", 14},
	[BLK_AVG_PCT] = {"Avg Cycles%", 11},
	[BLK_AVG] = {"Avg Cycles", 10},
	[BLK_CNTR] = {"Branch Counter", 30},
	[BLK_RANGE] = {"[Program Block Range]", 70},
	[BLK_DSO] = {"Shared Object", 20},
};

/* block-info.c cycles_string(): "2.5M", "6.9K", "774" */
static void blk_cycles(char *buf, size_t size, uint64_t cycles)
{
	if (cycles >= 1000000)
		snprintf(buf, size, "%.1fM", (double)cycles / 1000000.0);
	else if (cycles >= 1000)
		snprintf(buf, size, "%.1fK", (double)cycles / 1000.0);
	else
		snprintf(buf, size, "%" PRIu64, cycles);
}

/* color_pct(): "%*.2f%%" one narrower than the column, coloured */
static void blk_pct(FILE *out, int width, double pct, bool color)
{
	const char *c = color ? percent_color(pct) : NULL;

	if (c)
		fputs(c, out);
	fprintf(out, "%*.2f%%", width - 1, pct);
	if (c)
		fputs("\033[m", out);
}

static void blk_table(FILE *out, const struct pda_brep_blocks *bl,
		      const struct pda_brcntr *cntr, const int *width,
		      bool color)
{
	char buf[1024];

	for (size_t j = 0; j < bl->nr; j++) {
		const struct pda_brep_block *b = &bl->blocks[j];
		const uint64_t avg = b->nr ? b->cycles / b->nr : 0;

		fputs("  ", out);
		blk_pct(out, width[BLK_TOTAL_PCT],
			bl->total_cycles ? 100.0 * (double)b->cycles /
						   (double)bl->total_cycles
					 : 0.0,
			color);
		blk_cycles(buf, sizeof(buf), b->cycles);
		fprintf(out, "  %*s  ", width[BLK_CYCLES], buf);
		blk_pct(out, width[BLK_AVG_PCT],
			bl->block_cycles ? 100.0 * (double)avg /
						   (double)bl->block_cycles
					 : 0.0,
			color);
		blk_cycles(buf, sizeof(buf), avg);
		fprintf(out, "  %*s", width[BLK_AVG], buf);
		if (cntr) {
			static const uint64_t none[PDA_BR_CNTR_MAX];

			pda_brcntr_entry(cntr, b->cntr ? b->cntr : none, b->nr,
					 buf, sizeof(buf));
			fprintf(out, "  %*s", width[BLK_CNTR], buf);
		}
		/* perf cuts the range at 127 bytes (its buffer) */
		snprintf(buf, 128, "[%s -> %s]", b->start_line, b->end_line);
		fprintf(out, "  %*s  ", width[BLK_RANGE], buf);
		pad(out, b->dso, strlen(b->dso), (size_t)width[BLK_DSO], true);
		fputc('\n', out);
	}
}

/* Block b's shares: of all the entries' cycles, and its average's of
 * the blocks' averages summed per row. */
static void blk_shares(const struct pda_brep_blocks *bl,
		       const struct pda_brep_block *b, double *total_pct,
		       uint64_t *avg, double *avg_pct)
{
	*avg = b->nr ? b->cycles / b->nr : 0;
	*total_pct = bl->total_cycles ? 100.0 * (double)b->cycles /
						(double)bl->total_cycles
				      : 0.0;
	*avg_pct = bl->block_cycles ? 100.0 * (double)*avg /
					      (double)bl->block_cycles
				    : 0.0;
}

/* The block view in Markdown: a heading and a table an event (group),
 * perf's columns, the counters' cell with counters. */
static int blk_md_table(FILE *out, const struct pda_brep_table *t,
			const struct pda_brep_blocks *bl,
			const struct pda_brcntr *cntr)
{
	char buf[1024];

	fputs("\n## ", out);
	pde_md_text(out, t->event, strlen(t->event));
	fprintf(out,
		"\n\n%" PRIu64 " branch entr%s of %" PRIu64
		" sample%s, %" PRIu64 " cycles\n\n",
		t->nr_entries, t->nr_entries == 1 ? "y" : "ies", t->nr_samples,
		plural(t->nr_samples), bl->total_cycles);
	for (unsigned k = 0; cntr && k < cntr->nr; k++)
		fprintf(out, "%sBranch Counter %c: %s%s", k ? ", " : "",
			'A' + k, cntr->names[k], k + 1 == cntr->nr ? "\n\n" : "");
	fputs("| Sampled Cycles% | Sampled Cycles | Avg Cycles% | Avg Cycles |",
	      out);
	if (cntr)
		fputs(" Branch Counter |", out);
	fputs(" Program Block Range | Shared Object |\n"
	      "| ---: | ---: | ---: | ---: |",
	      out);
	if (cntr)
		fputs(" --- |", out);
	fputs(" --- | --- |\n", out);
	for (size_t j = 0; j < bl->nr; j++) {
		const struct pda_brep_block *b = &bl->blocks[j];
		double tp, ap;
		uint64_t avg;

		blk_shares(bl, b, &tp, &avg, &ap);
		fprintf(out, "| %.2f%% | %" PRIu64 " | %.2f%% | %" PRIu64 " |",
			tp, b->cycles, ap, avg);
		if (cntr) {
			static const uint64_t none[PDA_BR_CNTR_MAX];

			pda_brcntr_entry(cntr, b->cntr ? b->cntr : none, b->nr,
					 buf, sizeof(buf));
			fputc(' ', out);
			pde_md_code(out, buf, strlen(buf), true);
			fputs(" |", out);
		}
		snprintf(buf, sizeof(buf), "%s -> %s", b->start_line,
			 b->end_line);
		fputc(' ', out);
		pde_md_code(out, buf, strlen(buf), true);
		fputs(" | ", out);
		pde_md_code(out, b->dso, strlen(b->dso), true);
		fputs(" |\n", out);
	}
	return 0;
}

/* One block as JSON: every column, and what they are made of. */
static void blk_json(struct pde_json *j, const struct pda_brep_blocks *bl,
		     const struct pda_brep_block *b,
		     const struct pda_brcntr *cntr)
{
	char buf[1024];
	double tp, ap;
	uint64_t avg;

	blk_shares(bl, b, &tp, &avg, &ap);
	pde_json_begin_object(j, NULL);
	pde_json_double(j, "sampled_cycles_pct", tp);
	pde_json_u64(j, "sampled_cycles", b->cycles);
	pde_json_double(j, "avg_cycles_pct", ap);
	pde_json_u64(j, "avg_cycles", avg);
	pde_json_u64(j, "entries", b->nr);
	pde_json_str(j, "symbol", b->sym);
	pde_json_str(j, "dso", b->dso);
	pde_json_u64(j, "start", b->start);
	pde_json_u64(j, "end", b->end);
	pde_json_str(j, "start_line", b->start_line);
	pde_json_str(j, "end_line", b->end_line);
	if (cntr) {
		static const uint64_t none[PDA_BR_CNTR_MAX];
		const uint64_t *sums = b->cntr ? b->cntr : none;

		pde_json_str(j, "branch_counter",
			     pda_brcntr_entry(cntr, sums, b->nr, buf,
					      sizeof(buf)));
		pde_json_begin_array(j, "counters");
		for (unsigned k = 0; k < cntr->nr; k++) {
			pde_json_begin_object(j, NULL);
			pde_json_str(j, "event", cntr->names[k]);
			pde_json_u64(j, "sum", sums[k] & ~PDA_BR_CNTR_SATURATED);
			pde_json_bool(j, "saturated",
				      (sums[k] & PDA_BR_CNTR_SATURATED) != 0);
			pde_json_end_object(j);
		}
		pde_json_end_array(j);
	}
	pde_json_end_object(j);
}

/* What a block view's writer is given for each table. */
struct blk_ctx {
	FILE *out;
	const struct pda_brcntr *cntr; /* NULL: no counters */
	const struct pde_report_opts *o;
	int width[BLK_NR];	       /* text */
	struct pde_json j;	       /* json */
};

/* Each table of r with its blocks, written by fn: 0 or the first
 * error. */
static int blk_each(struct pda_brep *r, struct blk_ctx *c,
		    int (*fn)(struct blk_ctx *c,
			      const struct pda_brep_table *t,
			      const struct pda_brep_blocks *bl))
{
	int rc = 0;

	for (size_t i = 0; i < pda_brep_nr_tables(r) && rc == 0; i++) {
		struct pda_brep_blocks bl;

		rc = pda_brep_blocks(r, i, &bl);
		if (rc < 0)
			break;
		rc = fn(c, pda_brep_table(r, i), &bl);
		pda_brep_blocks_release(r, &bl);
	}
	return rc;
}

static int blk_md_each(struct blk_ctx *c, const struct pda_brep_table *t,
		       const struct pda_brep_blocks *bl)
{
	return blk_md_table(c->out, t, bl, c->cntr);
}

static int blk_json_each(struct blk_ctx *c, const struct pda_brep_table *t,
			 const struct pda_brep_blocks *bl)
{
	pde_json_begin_object(&c->j, NULL);
	pde_json_str(&c->j, "event", t->event);
	pde_json_u64(&c->j, "entries", t->nr_entries);
	pde_json_u64(&c->j, "samples", t->nr_samples);
	pde_json_u64(&c->j, "total_cycles", bl->total_cycles);
	pde_json_u64(&c->j, "block_cycles", bl->block_cycles);
	pde_json_begin_array(&c->j, "blocks");
	for (size_t k = 0; k < bl->nr; k++)
		blk_json(&c->j, bl, &bl->blocks[k], c->cntr);
	pde_json_end_array(&c->j);
	pde_json_end_object(&c->j);
	return 0;
}

int pde_branch_blocks_grid(FILE *out, struct pda_brep *r,
			   const struct pda_brcntr *cntr,
			   const struct pde_report_opts *o, bool json)
{
	struct blk_ctx c = {.out = out, .cntr = cntr && cntr->nr ? cntr : NULL,
			    .o = o};
	int rc;

	if (!json) {
		fprintf(out, "# perf report --total-cycles\n\nLost samples: "
			     "%" PRIu64 "\n",
			o->lost);
		rc = blk_each(r, &c, blk_md_each);
		return rc ? rc : pde_out_rc(out);
	}
	pde_json_init(&c.j, out, false);
	pde_json_begin_object(&c.j, NULL);
	pde_json_u64(&c.j, "lost", o->lost);
	pde_json_begin_array(&c.j, "tables");
	rc = blk_each(r, &c, blk_json_each);
	pde_json_end_array(&c.j);
	pde_json_end_object(&c.j);
	pde_json_newline(&c.j);
	return rc ? rc : pde_out_rc(out);
}

/* A table of the text block view: perf's title, legend, heads, rows. */
static int blk_text_each(struct blk_ctx *c, const struct pda_brep_table *t,
			 const struct pda_brep_blocks *bl)
{
	FILE *out = c->out;
	int rc = 0;

	/* perf 6.1 counts each entry as a sample of the table */
	write_title_slices(out, t->nr_entries,
			   t->nr_members > 1 || t->leads_group, t->event,
			   t->nr_entries, c->o->time_slices);
	if (c->cntr) {
		rc = pda_brcntr_legend(c->cntr, out, "#");
		fputs("#\n", out);
	}
	fputs("#", out);
	for (int k = 0; k < BLK_NR; k++) {
		if (k == BLK_CNTR && !c->cntr)
			continue;
		/* the first left, the others right-aligned */
		fprintf(out, k ? "  %*s" : " %-*s", c->width[k],
			blk_cols[k].name);
	}
	fputs("\n#", out);
	for (int k = 0; k < BLK_NR; k++) {
		if (k == BLK_CNTR && !c->cntr)
			continue;
		fputs(k ? "  " : " ", out);
		for (int d = 0; d < c->width[k]; d++)
			fputc('.', out);
	}
	fputs("\n#\n", out);
	blk_table(out, bl, c->cntr, c->width, c->o->color);
	return rc;
}

int pde_branch_blocks_text(FILE *out, struct pda_brep *r,
			   const struct pda_brcntr *cntr,
			   const struct pde_report_opts *o)
{
	struct blk_ctx c = {.out = out, .cntr = cntr && cntr->nr ? cntr : NULL,
			    .o = o};
	bool elided[PDA_BREP_MAX_KEYS];
	int rc;

	for (int k = 0; k < BLK_NR; k++)
		c.width[k] = blk_cols[k].width;
	if (c.cntr && c.width[BLK_CNTR] < 5 * (int)c.cntr->nr + 1)
		c.width[BLK_CNTR] = 5 * (int)c.cntr->nr + 1;
	brep_preamble(out, r, false, o, elided);
	rc = blk_each(r, &c, blk_text_each);
	brep_stats(out, pda_brep_stats(r));
	if (rc == 0 && ferror(out))
		rc = PD_ERR_IO;
	return rc;
}

/* Rows of t as --percent-limit keeps them (by the first member's). */
static bool brep_hidden(const struct pda_brep_table *t,
			const struct pda_brep_row *row,
			const struct pde_report_opts *o)
{
	return o->percent_limit > 0 &&
	       (float)brep_share(t, row, 0) < o->percent_limit;
}

/* Key k of row as its text cell, NUL-terminated in b. */
static const char *brep_cell_str(struct pdc_strbuf *b, enum pda_brep_key k,
				 const struct pda_brep_row *row)
{
	b->len = 0;
	brep_cell(b, k, row);
	pdc_strbuf_add(b, "", 1);
	return b->p;
}

/* The branch tables as Markdown (md) or CSV: the text's cells. */
/* Table t's Markdown heading and column heads: a group's members'
 * shares and entries side by side. */
static void brep_md_head(FILE *out, const struct pda_brep *r,
			 const struct pda_brep_table *t, bool ipc)
{
	const unsigned nr_keys = pda_brep_nr_keys(r);

	fputs("\n## ", out);
	pde_md_text(out, t->event, strlen(t->event));
	fprintf(out, "\n\n%" PRIu64 " branch entr%s of %" PRIu64 " sample%s\n\n|",
		t->nr_entries, t->nr_entries == 1 ? "y" : "ies", t->nr_samples,
		plural(t->nr_samples));
	for (unsigned m = 0; m < t->nr_members; m++) {
		if (t->nr_members == 1) {
			fputs(" Overhead | Entries |", out);
			continue;
		}
		fputc(' ', out);
		pde_md_text(out, t->member_names[m], strlen(t->member_names[m]));
		fputs(" Overhead | ", out);
		pde_md_text(out, t->member_names[m], strlen(t->member_names[m]));
		fputs(" Entries |", out);
	}
	for (unsigned k = 0; k < nr_keys; k++)
		fprintf(out, " %s |", pda_brep_key_header(pda_brep_key(r, k)));
	fputs(ipc ? " IPC | IPC Coverage |\n|" : "\n|", out);
	for (unsigned m = 0; m < t->nr_members; m++)
		fputs(" ---: | ---: |", out);
	for (unsigned k = 0; k < nr_keys; k++)
		fputs(" --- |", out);
	fputs(ipc ? " ---: | ---: |\n" : "\n", out);
}

/* The key cells (and IPC) of row, ending its md or csv line. */
static void brep_grid_cells(FILE *out, const struct pda_brep *r,
			    const struct pda_brep_row *row, bool ipc, bool md,
			    struct pdc_strbuf *b)
{
	const unsigned nr_keys = pda_brep_nr_keys(r);

	for (unsigned k = 0; k < nr_keys; k++) {
		const char *c = brep_cell_str(b, pda_brep_key(r, k), row);

		if (md) {
			fputc(' ', out);
			pde_md_code(out, c, strlen(c), true);
			fputs(" |", out);
		} else {
			fputc(',', out);
			pde_csv_str(out, c);
		}
	}
	if (ipc && row->to.sym)
		fprintf(out, md ? " %.2f | %.1f%% |" : ",%.2f,%.1f", row->ipc,
			row->ipc_cover);
	else if (ipc)
		fputs(md ? " - | - |" : ",,", out);
	fputc('\n', out);
}

static int brep_grid(FILE *out, const struct pda_brep *r, bool ipc,
		     const struct pde_report_opts *o, bool md)
{
	const unsigned nr_keys = pda_brep_nr_keys(r);
	struct pdc_strbuf b;
	char small[512];
	int rc = 0;

	pdc_strbuf_init(&b, NULL, small, sizeof(small));
	if (md) {
		fprintf(out, "# perf report --branch-stack\n\nLost samples: "
			     "%" PRIu64 "\n",
			o->lost);
	} else {
		fputs("event,overhead,entries", out);
		for (unsigned k = 0; k < nr_keys; k++)
			fprintf(out, ",%s", pda_brep_key_name(pda_brep_key(r, k)));
		fputs(ipc ? ",ipc,ipc_coverage\n" : "\n", out);
	}
	for (size_t i = 0; i < pda_brep_nr_tables(r); i++) {
		const struct pda_brep_table *t = pda_brep_table(r, i);

		if (md)
			brep_md_head(out, r, t, ipc);
		for (size_t j = 0; j < t->nr_rows; j++) {
			const struct pda_brep_row *row = t->rows[j];

			if (brep_hidden(t, row, o))
				continue;
			/* md: a group's members side by side; csv: a line
			 * a member, as the samples' report writes them */
			for (unsigned m = 0; m < t->nr_members; m++) {
				if (md) {
					fprintf(out, "%s %.2f%% | %" PRIu64 " |",
						m ? "" : "|",
						brep_share(t, row, m),
						brep_count(t, row, m));
					if (m + 1 < t->nr_members)
						continue;
				} else {
					pde_csv_str(out,
						    t->nr_members > 1
							    ? t->member_names[m]
							    : t->event);
					fprintf(out, ",%.6f,%" PRIu64,
						brep_share(t, row, m),
						brep_count(t, row, m));
				}
				brep_grid_cells(out, r, row, ipc, md, &b);
			}
		}
	}
	if (b.oom)
		rc = PD_ERR_NOMEM;
	pdc_strbuf_release(&b);
	return rc ? rc : pde_out_rc(out);
}

int pde_branch_report_md(FILE *out, const struct pda_brep *r, bool ipc,
			 const struct pde_report_opts *o)
{
	return brep_grid(out, r, ipc, o, true);
}

int pde_branch_report_csv(FILE *out, const struct pda_brep *r, bool ipc,
			  const struct pde_report_opts *o)
{
	return brep_grid(out, r, ipc, o, false);
}

/* One end of a branch row as JSON. */
static void brep_json_end(struct pde_json *j, const char *key,
			  const struct pda_brep_end *e)
{
	char lv[2] = {e->level, 0};

	pde_json_begin_object(j, key);
	if (e->missing) {
		/* a BRBE half record's missing end: no address */
		pde_json_bool(j, "recorded", false);
		pde_json_end_object(j);
		return;
	}
	if (e->dso)
		pde_json_str(j, "dso", e->dso);
	if (e->sym)
		pde_json_str(j, "symbol", e->sym);
	pde_json_hex(j, "addr", e->addr);
	pde_json_hex(j, "map_addr", e->map_ip);
	pde_json_str(j, "level", lv);
	if (e->srcline)
		pde_json_str(j, "srcline", e->srcline);
	pde_json_end_object(j);
}

int pde_branch_report_json(FILE *out, const struct pda_brep *r, bool ipc,
			   const struct pde_report_opts *o)
{
	const unsigned nr_keys = pda_brep_nr_keys(r);
	const struct pda_brep_stats *st = pda_brep_stats(r);
	struct pdc_strbuf b;
	char small[512];
	struct pde_json j;
	int rc = 0;

	pdc_strbuf_init(&b, NULL, small, sizeof(small));
	pde_json_init(&j, out, false);
	pde_json_begin_object(&j, NULL);
	pde_json_u64(&j, "lost", o->lost);
	pde_json_begin_array(&j, "keys");
	for (unsigned k = 0; k < nr_keys; k++)
		pde_json_str(&j, NULL, pda_brep_key_name(pda_brep_key(r, k)));
	pde_json_end_array(&j);
	pde_json_begin_array(&j, "tables");
	for (size_t i = 0; i < pda_brep_nr_tables(r); i++) {
		const struct pda_brep_table *t = pda_brep_table(r, i);

		pde_json_begin_object(&j, NULL);
		pde_json_str(&j, "event", t->event);
		pde_json_u64(&j, "entries", t->nr_entries);
		pde_json_u64(&j, "samples", t->nr_samples);
		if (t->nr_members > 1) {
			pde_json_begin_array(&j, "members");
			for (unsigned m = 0; m < t->nr_members; m++) {
				pde_json_begin_object(&j, NULL);
				pde_json_str(&j, "event", t->member_names[m]);
				pde_json_u64(&j, "entries", t->member_entries[m]);
				pde_json_end_object(&j);
			}
			pde_json_end_array(&j);
		}
		pde_json_begin_array(&j, "rows");
		for (size_t k2 = 0; k2 < t->nr_rows; k2++) {
			const struct pda_brep_row *row = t->rows[k2];

			if (brep_hidden(t, row, o))
				continue;
			pde_json_begin_object(&j, NULL);
			pde_json_double(&j, "overhead", brep_share(t, row, 0));
			pde_json_u64(&j, "entries", row->count);
			if (t->nr_members > 1) {
				/* a group's: each member's, the first's
				 * above too */
				pde_json_begin_array(&j, "members");
				for (unsigned m = 0; m < t->nr_members; m++) {
					pde_json_begin_object(&j, NULL);
					pde_json_double(&j, "overhead",
							brep_share(t, row, m));
					pde_json_u64(&j, "entries",
						     brep_count(t, row, m));
					pde_json_end_object(&j);
				}
				pde_json_end_array(&j);
			}
			/* the keys as the text shows them, by perf's names */
			for (unsigned k = 0; k < nr_keys; k++) {
				const enum pda_brep_key key = pda_brep_key(r, k);

				pde_json_str(&j, pda_brep_key_name(key),
					     brep_cell_str(&b, key, row));
			}
			brep_json_end(&j, "from", &row->from);
			brep_json_end(&j, "to", &row->to);
			if (ipc && row->to.sym) {
				pde_json_double(&j, "ipc", row->ipc);
				pde_json_double(&j, "ipc_coverage",
						row->ipc_cover);
			}
			pde_json_end_object(&j);
		}
		pde_json_end_array(&j);
		pde_json_end_object(&j);
	}
	pde_json_end_array(&j);
	/* perf's Branch Statistics, where types were recorded */
	pde_json_begin_object(&j, "branch_types");
	for (unsigned i = 0; i < PDA_BR_NR_TYPES; i++)
		if (st->types[i])
			pde_json_u64(&j, pda_branch_type_name(i), st->types[i]);
	for (unsigned i = 0; i < PDA_BR_NR_NEW_TYPES; i++)
		if (st->new_types[i])
			pde_json_u64(&j, pda_branch_new_type_name(i),
				     st->new_types[i]);
	pde_json_u64(&j, "COND_FWD", st->cond_fwd);
	pde_json_u64(&j, "COND_BWD", st->cond_bwd);
	pde_json_u64(&j, "CROSS_4K", st->cross_4k);
	pde_json_u64(&j, "CROSS_2M", st->cross_2m);
	pde_json_end_object(&j);
	pde_json_end_object(&j);
	pde_json_newline(&j);
	if (b.oom)
		rc = PD_ERR_NOMEM;
	pdc_strbuf_release(&b);
	return rc ? rc : pde_out_rc(out);
}
