/*
 * pda_script.c - `perf script` text into folded stacks, as Brendan Gregg's
 * stackcollapse-perf.pl folds it, so `pdtool fold --from-script` can
 * replace it in a pipeline.  The rules below are that script's (FlameGraph
 * master), restated; each comment names the rule it carries.
 *
 * The text is a sequence of samples, each a header line, frame lines
 * (leaf first) and a blank line:
 *
 *	demo 14261 [001] 541.987909:    6711409 cpu-clock:
 *		    11b2 hash_block+0x29 (/work/bin/demo)
 *		  891f5 start_thread+0x305 (/usr/lib/libc.so.6)
 *	(blank)
 *
 * Lines are handed over in any pieces; a sample's names are kept in one
 * buffer reused from sample to sample, so parsing allocates only when a
 * longer line or a deeper stack than any before arrives.
 */
#include "pda_base_int.h"
#include "pda_fold.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LINE (16u << 20)  /* cap on one line (O5) */
#define MAX_FRAMES (1u << 20) /* cap on one sample's frames */
#define MAX_EVENTS 64	      /* distinct event names remembered */

/* One frame of the sample being read: offsets into names. */
struct sframe {
	size_t name, dso; /* offsets into ps->names; dso SIZE_MAX: none */
	unsigned flags;
};

struct pda_script {
	struct pd_alloc mem;
	unsigned flags;
	struct pda_fold *fd;
	const uint32_t *pids;
	size_t nr_pids;
	bool has_start, has_end;
	uint64_t start, end;
	const struct pda_time_range *ranges; /* or these, borrowed */
	size_t nr_ranges;

	char *line; /* a line that spans feed() calls */
	size_t line_len, line_alloc;

	/* the sample being read */
	bool in_sample; /* a kept header was read ($pname) */
	bool java;	/* its root starts with "java" */
	uint64_t weight;
	bool unresolved;
	char *names; /* NUL-separated root, comm, frame names */
	size_t names_len, names_alloc;
	size_t root, comm;     /* offsets */
	struct sframe *frames; /* leaf first */
	size_t nr_frames, frames_alloc;
	const char **ptrs; /* names and dsos handed to pda_fold */
	unsigned *fflags;
	size_t ptrs_alloc, fflags_alloc;

	/* PDA_SCRIPT_SRCLINE: frames whose source line is on the lines
	 * to come, in that order (indices into frames) */
	size_t src_frames[64];
	size_t nr_src, src_next;

	char *event;		  /* the event kept; owned */
	char *events[MAX_EVENTS]; /* distinct events seen; owned */
	struct pda_script_stats stats;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_word(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '_';
}

static char *dup_n(const struct pd_alloc *m, const char *s, size_t len)
{
	char *p = pdc_malloc(m, len + 1);

	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

int pda_script_new(const struct pda_script_opts *opts, struct pda_fold *fd,
		   struct pda_script **out)
{
	struct pd_alloc m = {NULL, NULL, NULL, NULL};
	struct pda_script_opts o;
	struct pda_script *ps;

	*out = NULL;
	if (!opts || !fd || pdc_opts_copy(&o, sizeof(o), opts) < 0)
		return PD_ERR_API;
	if (o.alloc)
		m = *o.alloc;
	ps = pdc_zalloc(&m, sizeof(*ps));
	if (!ps)
		return PD_ERR_NOMEM;
	ps->mem = m;
	ps->flags = o.flags;
	ps->fd = fd;
	ps->pids = o.pids;
	ps->nr_pids = o.pids ? o.nr_pids : 0;
	ps->has_start = o.has_time_start;
	ps->has_end = o.has_time_end;
	ps->start = o.time_start;
	ps->end = o.time_end;
	ps->ranges = o.time_ranges;
	ps->nr_ranges = o.time_ranges ? o.nr_time_ranges : 0;
	if (o.event) {
		ps->event = dup_n(&m, o.event, strlen(o.event));
		if (!ps->event) {
			pda_script_free(ps);
			return PD_ERR_NOMEM;
		}
	}
	ps->stats.event = ps->event;
	*out = ps;
	return 0;
}

void pda_script_free(struct pda_script *ps)
{
	struct pd_alloc m;

	if (!ps)
		return;
	m = ps->mem;
	pdc_free(&m, ps->line);
	pdc_free(&m, ps->names);
	pdc_free(&m, ps->frames);
	pdc_free(&m, ps->ptrs);
	pdc_free(&m, ps->fflags);
	pdc_free(&m, ps->event);
	for (size_t i = 0; i < ps->stats.nr_events && i < MAX_EVENTS; i++)
		pdc_free(&m, ps->events[i]);
	pdc_free(&m, ps);
}

/* Append len bytes and a NUL to the sample's names; the offset. */
static int add_name(struct pda_script *ps, const char *s, size_t len,
		    size_t *off)
{
	if (PDC_GROW(&ps->mem, ps->names, ps->names_alloc,
			 ps->names_len + len + 1, (size_t)MAX_LINE * 4) < 0)
		return PD_ERR_NOMEM;
	memcpy(ps->names + ps->names_len, s, len);
	ps->names[ps->names_len + len] = '\0';
	*off = ps->names_len;
	ps->names_len += len + 1;
	return 0;
}

static void reset_sample(struct pda_script *ps)
{
	ps->in_sample = false;
	ps->names_len = 0;
	ps->nr_frames = 0;
	ps->unresolved = false;
	ps->nr_src = ps->src_next = 0;
}

/* The blank line after a sample: "remember_stack" with the root first. */
static int end_sample(struct pda_script *ps)
{
	struct pda_fold_names n;
	size_t nr = ps->nr_frames;
	int rc;

	if (!ps->in_sample)
		return 0;
	if (PDC_GROW(&ps->mem, ps->ptrs, ps->ptrs_alloc, 2 * nr + 1,
			 2 * (size_t)MAX_FRAMES + 1) < 0 ||
	    PDC_GROW(&ps->mem, ps->fflags, ps->fflags_alloc, nr + 1,
			 (size_t)MAX_FRAMES + 1) < 0)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i < nr; i++) {
		const struct sframe *f = &ps->frames[i];

		ps->ptrs[i] = ps->names + f->name;
		ps->ptrs[nr + i] =
			f->dso == SIZE_MAX ? NULL : ps->names + f->dso;
		ps->fflags[i] = f->flags;
	}
	memset(&n, 0, sizeof(n));
	n.root = ps->flags & PDA_SCRIPT_NO_COMM ? NULL : ps->names + ps->root;
	n.comm = ps->names + ps->comm;
	n.names = ps->ptrs;
	n.dsos = ps->ptrs + nr;
	n.flags = ps->fflags;
	n.nr = nr;
	n.weight = ps->weight;
	n.unresolved = ps->unresolved;
	/* with no root and no frame there is nothing to count */
	rc = n.root || nr ? pda_fold_add_names(ps->fd, &n) : 0;
	reset_sample(ps);
	return rc < 0 ? rc : 0;
}

static bool remember_event(struct pda_script *ps, const char *ev, size_t len)
{
	for (size_t i = 0; i < ps->stats.nr_events && i < MAX_EVENTS; i++)
		if (strlen(ps->events[i]) == len &&
		    memcmp(ps->events[i], ev, len) == 0)
			return true;
	if (ps->stats.nr_events < MAX_EVENTS) {
		ps->events[ps->stats.nr_events] = dup_n(&ps->mem, ev, len);
		if (!ps->events[ps->stats.nr_events])
			return false;
	}
	ps->stats.nr_events++;
	return true;
}

/* "541.987909:" as nanoseconds. */
static bool parse_time(const char *s, size_t len, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	size_t i = 0, digits = 0;

	if (len < 2 || s[len - 1] != ':')
		return false;
	len--;
	for (; i < len && is_digit(s[i]); i++)
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	if (i == 0 || i == len || s[i] != '.')
		return false;
	for (i++; i < len && is_digit(s[i]); i++, digits++)
		if (digits < 9)
			frac = frac * 10 + (uint64_t)(s[i] - '0');
	if (i != len || digits == 0)
		return false;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000ull + frac;
	return true;
}

/*
 * The header: /^(\S.+?)\s+(\d+)[/]*(\d+)*\s+/ (slash class rewritten).  The
 * comm is the shortest prefix (two characters at least) followed by blanks, a
 * number, optionally '/' and a second number, and a blank.  @return false when
 * the line is not a header.
 */
static bool match_header(const char *l, size_t len, size_t *comm_len,
			 size_t *pid_at, size_t *pid_len, size_t *tid_at,
			 size_t *tid_len, size_t *rest)
{
	if (len < 2 || is_space(l[0]))
		return false;
	for (size_t e = 2; e < len; e++) {
		size_t i = e, d;

		if (!is_space(l[i]))
			continue;
		while (i < len && is_space(l[i]))
			i++;
		for (d = i; i < len && is_digit(l[i]); i++)
			;
		if (i == d)
			continue;
		*pid_at = d;
		*pid_len = i - d;
		while (i < len && l[i] == '/')
			i++;
		for (d = i; i < len && is_digit(l[i]); i++)
			;
		*tid_at = d;
		*tid_len = i - d;
		if (i < len && is_space(l[i])) {
			*comm_len = e;
			*rest = i;
			return true;
		}
	}
	return false;
}

static bool pid_wanted(const struct pda_script *ps, const char *s, size_t len)
{
	uint64_t v = 0;

	if (!ps->nr_pids)
		return true;
	if (len == 0 || len > 10)
		return false;
	for (size_t i = 0; i < len; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	for (size_t i = 0; i < ps->nr_pids; i++)
		if (ps->pids[i] == v)
			return true;
	return false;
}

/*
 * The event and the period: /:\s*(\d+)*\s+(\S+):\s*$/.  The event is the
 * line's last word less the ':' that ends it; blanks come before it, and
 * before those a ':', or a run of digits (the period) after a ':' and
 * optional blanks.  Only one ':' can start such a match, so no search is
 * needed.  @return false when the line has no event (a tracepoint's
 * fields after it, or no time).
 */
static bool match_event(const char *l, size_t len, size_t *ev_at,
			size_t *ev_len, size_t *period_at, size_t *period_len)
{
	size_t end = len, t, w, d, v;

	while (end > 0 && is_space(l[end - 1]))
		end--;
	for (t = end; t > 0 && !is_space(l[t - 1]); t--)
		;
	if (end - t < 2 || l[end - 1] != ':')
		return false;
	for (w = t; w > 0 && is_space(l[w - 1]); w--)
		;
	if (w == t || w == 0)
		return false;
	*ev_at = t;
	*ev_len = end - 1 - t;
	*period_at = w;
	*period_len = 0;
	if (l[w - 1] == ':')
		return true;
	for (d = w; d > 0 && is_digit(l[d - 1]); d--)
		;
	for (v = d; v > 0 && is_space(l[v - 1]); v--)
		;
	if (d == w || v == 0 || l[v - 1] != ':')
		return false;
	*period_at = d;
	*period_len = w - d;
	return true;
}

/* Decimal digits as a count, saturated rather than wrapped. */
static uint64_t parse_count(const char *s, size_t len)
{
	uint64_t v = 0;

	for (size_t i = 0; i < len; i++) {
		const uint64_t digit = (uint64_t)(s[i] - '0');

		if (v > (UINT64_MAX - digit) / 10)
			return UINT64_MAX;
		v = v * 10 + digit;
	}
	return v;
}

static int header_line(struct pda_script *ps, const char *l, size_t len,
		       size_t comm_len, size_t pid_at, size_t pid_len,
		       size_t tid_at, size_t tid_len, size_t rest)
{
	const char *pid = l + pid_at, *tid = l + tid_at;
	size_t ev_at, ev_len, period_at, period_len;
	uint64_t ns;
	char *root;

	ps->stats.nr_samples++;
	/* "$tid = $pid; $pid = '?'" when there is no second number (or it
	 * is 0, which Perl takes for false) */
	if (tid_len == 0 || (tid_len == 1 && tid[0] == '0')) {
		tid = pid;
		tid_len = pid_len;
		pid = "?";
		pid_len = 1;
	}
	/* the event and the period: /:\s*(\d+)*\s+(\S+):\s*$/ over the
	 * whole line, so a comm that swallowed the numbers still has them */
	ps->weight = 1;
	if (match_event(l, len, &ev_at, &ev_len, &period_at, &period_len)) {
		const char *ev = l + ev_at;

		if (!remember_event(ps, ev, ev_len))
			return PD_ERR_NOMEM;
		if (!ps->event && !(ps->flags & PDA_SCRIPT_ALL_EVENTS)) {
			/* "only show events of the first encountered event
			 * type" */
			ps->event = dup_n(&ps->mem, ev, ev_len);
			if (!ps->event)
				return PD_ERR_NOMEM;
			ps->stats.event = ps->event;
		}
		if (ps->event && (strlen(ps->event) != ev_len ||
				  memcmp(ps->event, ev, ev_len) != 0)) {
			ps->stats.nr_event_skipped++;
			return 0;
		}
		/* "$period = 1 if not $period": Perl's false is "" and "0",
		 * so "00" weighs 0 */
		if (ps->flags & PDA_SCRIPT_PERIOD && period_len &&
		    !(period_len == 1 && l[period_at] == '0'))
			ps->weight = parse_count(l + period_at, period_len);
	}
	if (ps->has_start || ps->has_end || ps->nr_ranges) {
		bool have = false;

		/* the time is the first token after the pid that parses */
		for (size_t i = rest; i < len && !have;) {
			size_t j;

			while (i < len && is_space(l[i]))
				i++;
			for (j = i; j < len && !is_space(l[j]); j++)
				;
			have = parse_time(l + i, j - i, &ns);
			i = j;
		}
		if (!have || (ps->has_start && ns < ps->start) ||
		    (ps->has_end && ns > ps->end) ||
		    (ps->nr_ranges &&
		     !pda_time_in_ranges(ps->ranges, ps->nr_ranges, ns))) {
			ps->stats.nr_filtered++;
			reset_sample(ps);
			return 0;
		}
	}
	if (!pid_wanted(ps, pid[0] == '?' ? tid : pid,
			pid[0] == '?' ? tid_len : pid_len)) {
		ps->stats.nr_filtered++;
		reset_sample(ps);
		return 0;
	}
	/* a header without a blank line before it replaces $pname and
	 * keeps the frames read so far, as the pl does */
	/* $pname: "comm", "comm-PID" or "comm-PID/TID", blanks to '_' */
	if (add_name(ps, l, comm_len, &ps->comm) < 0 ||
	    add_name(ps, l, comm_len, &ps->root) < 0)
		return PD_ERR_NOMEM;
	ps->names_len--; /* extend the root in place */
	if (ps->flags & (PDA_SCRIPT_PID | PDA_SCRIPT_TID)) {
		size_t off;

		if (add_name(ps, "-", 1, &off) < 0)
			return PD_ERR_NOMEM;
		ps->names_len--;
		if (add_name(ps, pid, pid_len, &off) < 0)
			return PD_ERR_NOMEM;
		ps->names_len--;
	}
	if (ps->flags & PDA_SCRIPT_TID) {
		size_t off;

		if (add_name(ps, "/", 1, &off) < 0)
			return PD_ERR_NOMEM;
		ps->names_len--;
		if (add_name(ps, tid, tid_len, &off) < 0)
			return PD_ERR_NOMEM;
		ps->names_len--;
	}
	ps->names[ps->names_len++] = '\0';
	root = ps->names + ps->root;
	for (char *p = root; *p; p++)
		if (*p == ' ')
			*p = '_';
	/* Perl's "next if not $pname": a root of "0" drops the sample */
	if (strcmp(root, "0") == 0) {
		reset_sample(ps);
		return 0;
	}
	ps->java = strncmp(root, "java", 4) == 0;
	ps->in_sample = true;
	return 0;
}

/*
 * A frame line: /^\s*(\w+)\s*(.+) \((.*)\)/, unanchored at its end.  The
 * dso runs from the last " (" that a ')' follows to the last ')'; the
 * greedy (.+) starts as far right as the pattern lets it, so on a line
 * such as "foo (dso)" with no address Perl backtracks into the word and
 * the function is its last character: done the same here.
 */
static bool match_frame(const char *l, size_t len, size_t *pc_at,
			size_t *pc_len, size_t *func_at, size_t *func_len,
			size_t *mod_at, size_t *mod_len)
{
	size_t i = 0, word_end, func, close = SIZE_MAX, open = SIZE_MAX;

	while (i < len && is_space(l[i]))
		i++;
	*pc_at = i;
	while (i < len && is_word(l[i]))
		i++;
	if (i == *pc_at)
		return false;
	word_end = i;
	while (i < len && is_space(l[i]))
		i++;
	func = i;
	for (size_t j = len; j-- > 0 && close == SIZE_MAX;)
		if (l[j] == ')')
			close = j;
	if (close == SIZE_MAX || close < 4)
		return false;
	for (size_t j = close - 1; j-- > 0;)
		if (l[j] == ' ' && l[j + 1] == '(') {
			open = j;
			break;
		}
	if (open == SIZE_MAX || open < *pc_at + 2)
		return false;
	if (func > open - 1)
		func = open - 1;
	*pc_len = (func < word_end ? func : word_end) - *pc_at;
	*func_at = func;
	*func_len = open - func;
	*mod_at = open + 2;
	*mod_len = close - open - 2;
	return true;
}

static bool starts(const char *s, size_t len, const char *prefix)
{
	const size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

static bool contains(const char *s, size_t len, const char *needle)
{
	const size_t n = strlen(needle);

	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(s + i, needle, n) == 0)
			return true;
	return false;
}

/* m:/tmp/perf-\d+\.map:, and with jitted_so m:/jitted-\d+-\d+\.so: */
static bool is_jit(const char *m, size_t len, bool jitted_so)
{
	for (size_t i = 0; i < len; i++) {
		size_t j = i, d;

		if (starts(m + i, len - i, "/tmp/perf-")) {
			for (j = i + 10, d = j; j < len && is_digit(m[j]); j++)
				;
			if (j > d && starts(m + j, len - j, ".map"))
				return true;
		} else if (jitted_so && starts(m + i, len - i, "/jitted-")) {
			for (j = i + 8, d = j; j < len && is_digit(m[j]); j++)
				;
			if (j == d || j >= len || m[j] != '-')
				continue;
			for (d = ++j; j < len && is_digit(m[j]); j++)
				;
			if (j > d && starts(m + j, len - j, ".so"))
				return true;
		}
	}
	return false;
}

/* m/\.\(.*\)\./: a Go method name such as "net/http.(*Client).Do" */
static bool is_go_method(const char *s, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (s[i] != '.' || s[i + 1] != '(')
			continue;
		for (size_t j = len; j-- > i + 2;)
			if (s[j] == '.' && s[j - 1] == ')')
				return true;
	}
	return false;
}

/* One name of a frame line, tidied and annotated as the pl does. */
static int frame_name(struct pda_script *ps, const char *func, size_t len,
		      const char *pc, size_t pc_len, const char *mod,
		      size_t mod_len, bool inlined, size_t dso_off)
{
	size_t start = ps->names_len, off, w = 0;
	const char *suffix = NULL;
	unsigned flags = 0;
	bool kernel;
	char *s;

	if (len == 9 && memcmp(func, "[unknown]", 9) == 0) {
		/* "use module name instead, if known" */
		const char *base = "unknown";
		size_t blen = 7;

		if (!(mod_len == 9 && memcmp(mod, "[unknown]", 9) == 0)) {
			base = mod;
			blen = mod_len;
			for (size_t i = 0; i < mod_len; i++)
				if (mod[i] == '/') {
					base = mod + i + 1;
					blen = mod_len - i - 1;
				}
		}
		if (add_name(ps, "[", 1, &off) < 0)
			return PD_ERR_NOMEM;
		ps->names_len--;
		if (add_name(ps, base, blen, &off) < 0)
			return PD_ERR_NOMEM;
		ps->names_len--;
		if (ps->flags & PDA_SCRIPT_ADDRS) {
			if (add_name(ps, " <", 2, &off) < 0)
				return PD_ERR_NOMEM;
			ps->names_len--;
			if (add_name(ps, pc, pc_len, &off) < 0)
				return PD_ERR_NOMEM;
			ps->names_len--;
			if (add_name(ps, ">", 1, &off) < 0)
				return PD_ERR_NOMEM;
			ps->names_len--;
		}
		if (add_name(ps, "]", 1, &off) < 0)
			return PD_ERR_NOMEM;
		flags |= PDA_FRAME_NO_SYMBOL;
		ps->unresolved = true;
	} else if (add_name(ps, func, len, &off) < 0) {
		return PD_ERR_NOMEM;
	}
	s = ps->names + start;
	len = ps->names_len - 1 - start;
	/* tidy_generic: ';' to ':'; unless a Go method, everything from the
	 * first '(' not opening "(anonymous namespace)" goes; quotes go */
	for (size_t i = 0; i < len; i++)
		if (s[i] == ';')
			s[i] = ':';
	if (!is_go_method(s, len)) {
		for (size_t i = 0; i < len; i++) {
			if (s[i] == '(' && !starts(s + i + 1, len - i - 1,
						   "anonymous namespace)")) {
				len = i;
				break;
			}
		}
	}
	for (size_t i = 0; i < len; i++)
		if (s[i] != '"' && s[i] != '\'')
			s[w++] = s[i];
	len = w;
	/* tidy_java, for a root m/^java/ ("java-PID" too) */
	if (ps->java && len > 0 && s[0] == 'L' && memchr(s, '/', len)) {
		memmove(s, s + 1, len - 1);
		len--;
	}
	ps->names_len = start + len;
	ps->names[ps->names_len++] = '\0';
	/* annotations, each once: the pl adds "_[i]" and "_[j]" only to a
	 * name without one, and "_[j]" to perf-PID.map frames only; the
	 * flags also mark jitted-*.so frames as JIT code */
	kernel = ((mod_len > 0 && mod[0] == '[') ||
		  (mod_len >= 7 &&
		   memcmp(mod + mod_len - 7, "vmlinux", 7) == 0)) &&
		 !contains(mod, mod_len, "unknown");
	if (inlined)
		flags |= PDA_FRAME_INLINED;
	else if (kernel)
		flags |= PDA_FRAME_KERNEL;
	else if (is_jit(mod, mod_len, true))
		flags |= PDA_FRAME_JIT;
	if (inlined)
		suffix = contains(s, len, "_[i]") ? NULL : "_[i]";
	else if (ps->flags & PDA_SCRIPT_KERNEL && kernel)
		suffix = "_[k]";
	else if (ps->flags & PDA_SCRIPT_JIT && is_jit(mod, mod_len, false))
		suffix = contains(s, len, "_[j]") ? NULL : "_[j]";
	if (suffix && add_name(ps, suffix, 4, &off) < 0)
		return PD_ERR_NOMEM;
	/* add_name appended its own NUL: join the suffix to the name */
	if (ps->names_len > start + len + 1) {
		memmove(ps->names + start + len, ps->names + start + len + 1,
			ps->names_len - (start + len + 1));
		ps->names_len--;
	}
	if (mod_len == 7 && memcmp(mod, "inlined", 7) == 0)
		flags |= PDA_FRAME_INLINED;
	if (PDC_GROW(&ps->mem, ps->frames, ps->frames_alloc,
			 ps->nr_frames + 1, (size_t)MAX_FRAMES) < 0)
		return PD_ERR_NOMEM;
	ps->frames[ps->nr_frames].name = start;
	ps->frames[ps->nr_frames].dso = dso_off;
	ps->frames[ps->nr_frames].flags = flags;
	ps->nr_frames++;
	return 0;
}

static int frame_line(struct pda_script *ps, const char *l, size_t pc_at,
		      size_t pc_len, size_t func_at, size_t func_len,
		      size_t mod_at, size_t mod_len)
{
	const char *func = l + func_at;
	size_t dso_off, first = ps->nr_frames, nr;
	size_t parts[64][2], nr_parts = 0;
	bool unknown = false;
	int rc;

	if (!ps->in_sample)
		return 0;
	/* "Linux 4.8 included symbol offsets ...: strip these off":
	 * s/\+0x[\da-f]+$// */
	for (size_t i = func_len; i-- > 0;) {
		size_t j = i + 3;

		if (func[i] != '+')
			continue;
		if (j < func_len + 1 && i + 2 < func_len &&
		    func[i + 1] == '0' && func[i + 2] == 'x') {
			while (j < func_len &&
			       (is_digit(func[j]) ||
				(func[j] >= 'a' && func[j] <= 'f')))
				j++;
			if (j == func_len && j > i + 3)
				func_len = i;
		}
		break;
	}
	/* "skip process names" */
	if (func_len > 0 && func[0] == '(')
		return 0;
	if (add_name(ps, l + mod_at, mod_len, &dso_off) < 0)
		return PD_ERR_NOMEM;
	/* "split /\->/": the first is the function, the rest inlined */
	for (size_t i = 0, s = 0; i <= func_len; i++) {
		if (i < func_len &&
		    !(func[i] == '-' && i + 1 < func_len && func[i + 1] == '>'))
			continue;
		if (nr_parts < 64) {
			parts[nr_parts][0] = s;
			parts[nr_parts][1] = i - s;
			nr_parts++;
		}
		s = i + 2;
		i++;
	}
	/* Perl's split drops trailing empty fields */
	while (nr_parts > 0 && parts[nr_parts - 1][1] == 0)
		nr_parts--;
	for (size_t p = 0; p < nr_parts; p++) {
		/* "$is_unknown" is set by an [unknown] in [unknown] and stays
		 * for the rest of the line */
		unknown |= parts[p][1] == 9 &&
			   !memcmp(func + parts[p][0], "[unknown]", 9) &&
			   mod_len == 9 && !memcmp(l + mod_at, "[unknown]", 9);
		rc = frame_name(ps, func + parts[p][0], parts[p][1], l + pc_at,
				pc_len, l + mod_at, mod_len, p > 0, dso_off);
		if (rc < 0)
			return rc;
		/* each name but an unknown one reads a source line */
		if (ps->flags & PDA_SCRIPT_SRCLINE && !unknown &&
		    ps->nr_src < 64)
			ps->src_frames[ps->nr_src++] = ps->nr_frames - 1;
	}
	/* a line's names are root first ("unshift @stack, @inline"); the
	 * frames are kept leaf first */
	nr = ps->nr_frames - first;
	for (size_t i = 0; i < nr / 2; i++) {
		struct sframe t = ps->frames[first + i];

		ps->frames[first + i] = ps->frames[first + nr - 1 - i];
		ps->frames[first + nr - 1 - i] = t;
	}
	/* the source lines still go to the names in the line's order */
	for (size_t i = 0; i < ps->nr_src; i++)
		ps->src_frames[i] = first + nr - 1 - (ps->src_frames[i] - first);
	return 0;
}

/*
 * A source line of PDA_SCRIPT_SRCLINE, whatever it holds (the pl reads
 * it with "<>"): s/\[.*?\]//g, trimmed, appended to its frame's name
 * after a ':' unless empty.  The name moves to the end of names.
 */
static int source_line(struct pda_script *ps, const char *l, size_t len)
{
	struct sframe *f = &ps->frames[ps->src_frames[ps->src_next++]];
	size_t start = ps->names_len, off, name_len, end;
	char *s;

	if (ps->src_next == ps->nr_src)
		ps->nr_src = ps->src_next = 0;
	name_len = strlen(ps->names + f->name);
	if (PDC_GROW(&ps->mem, ps->names, ps->names_alloc,
			 ps->names_len + name_len + len + 2,
			 (size_t)MAX_LINE * 4) < 0)
		return PD_ERR_NOMEM;
	memmove(ps->names + start, ps->names + f->name, name_len);
	ps->names_len += name_len;
	if (add_name(ps, ":", 1, &off) < 0)
		return PD_ERR_NOMEM;
	ps->names_len--;
	for (size_t i = 0; i < len; i++) {
		const char *close;

		if (l[i] == '[' &&
		    (close = memchr(l + i + 1, ']', len - i - 1))) {
			i = (size_t)(close - l);
			continue;
		}
		ps->names[ps->names_len++] = l[i];
	}
	/* trimmed: leading blanks after the ':', trailing ones */
	s = ps->names + start + name_len + 1;
	end = ps->names_len - (start + name_len + 1);
	while (end > 0 && is_space(s[end - 1]))
		end--;
	for (off = 0; off < end && is_space(s[off]); off++)
		;
	memmove(s, s + off, end - off);
	end -= off;
	/* "unless $_ eq ''": no ':' either */
	ps->names_len = start + name_len + (end ? 1 + end : 0);
	ps->names[ps->names_len++] = '\0';
	f->name = start;
	return 0;
}

static int one_line(struct pda_script *ps, const char *l, size_t len)
{
	size_t a, b, c, d, e, f, g;

	ps->stats.nr_lines++;
	/* chomp */
	if (len > 0 && l[len - 1] == '\n')
		len--;
	if (ps->src_next < ps->nr_src)
		return source_line(ps, l, len);
	if (len > 0 && l[0] == '#')
		return 0;
	if (len == 0)
		return end_sample(ps);
	if (match_header(l, len, &a, &b, &c, &d, &e, &f))
		return header_line(ps, l, len, a, b, c, d, e, f);
	if (match_frame(l, len, &a, &b, &c, &d, &e, &g))
		return frame_line(ps, l, a, b, c, d, e, g);
	if (ps->stats.nr_unrecognized++ == 0)
		ps->stats.first_unrecognized = ps->stats.nr_lines;
	return 0;
}

int pda_script_feed(struct pda_script *ps, const char *buf, size_t len)
{
	while (len > 0) {
		const char *nl = memchr(buf, '\n', len);
		const size_t n = nl ? (size_t)(nl - buf) + 1 : len;
		int rc;

		if (!nl || ps->line_len) {
			if (PDC_GROW(&ps->mem, ps->line, ps->line_alloc,
					 ps->line_len + n,
					 (size_t)MAX_LINE) < 0)
				return PD_ERR_NOMEM;
			memcpy(ps->line + ps->line_len, buf, n);
			ps->line_len += n;
			if (nl) {
				rc = one_line(ps, ps->line, ps->line_len);
				ps->line_len = 0;
				if (rc < 0)
					return rc;
			}
		} else {
			rc = one_line(ps, buf, n);
			if (rc < 0)
				return rc;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

int pda_script_finish(struct pda_script *ps)
{
	int rc = 0;

	if (ps->line_len) {
		rc = one_line(ps, ps->line, ps->line_len);
		ps->line_len = 0;
	}
	/* the pl counts a sample only at its blank line: one cut off by
	 * the end of the input is dropped, as it drops it */
	reset_sample(ps);
	return rc;
}

const struct pda_script_stats *pda_script_stats(const struct pda_script *ps)
{
	return &ps->stats;
}
