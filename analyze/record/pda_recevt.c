/*
 * pda_recevt.c - event names as perf's -e takes them, made into
 * perf_event_attr type and config: perf's software and generic hardware
 * names, hardware cache events, rNNN, PMU/term=value,.../ and event names
 * from the host's sysfs, SYS:NAME tracepoints by their id in tracefs;
 * the modifiers u, k, h and p.
 */
#include "pda_record_priv.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct named {
	const char *name;
	uint32_t type;
	uint64_t config;
};

/* perf's names (tools/perf/util/parse-events.c event_symbols_*) */
static const struct named symbols[] = {
	{"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
	{"cache-references", PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_CACHE_REFERENCES},
	{"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
	{"branch-instructions", PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
	{"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
	{"stalled-cycles-frontend", PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	{"idle-cycles-frontend", PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	{"stalled-cycles-backend", PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
	{"idle-cycles-backend", PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
	{"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
	{"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
	{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
	{"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
	{"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
	{"context-switches", PERF_TYPE_SOFTWARE,
	 PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
	{"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
	{"alignment-faults", PERF_TYPE_SOFTWARE,
	 PERF_COUNT_SW_ALIGNMENT_FAULTS},
	{"emulation-faults", PERF_TYPE_SOFTWARE,
	 PERF_COUNT_SW_EMULATION_FAULTS},
	{"dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY},
};

/* Hardware cache events, TYPE[-OP|RESULT[-OP|RESULT]] as perf 6.1's
 * lexer takes them (parse-events.l lc_type, lc_op_result), each row one
 * type, op or result and its aliases (evsel.c evsel__hw_cache*): perf
 * list's own names are singular (L1-dcache-load-misses), the plural
 * forms (L1-dcache-loads) its aliases. */
#define CACHE_ALIASES 5
static const char *const cache_types[][CACHE_ALIASES] = {
	{"L1-dcache", "l1-d", "l1d", "L1-data"},
	{"L1-icache", "l1-i", "l1i", "L1-instruction"},
	{"LLC", "L2"},
	{"dTLB", "d-tlb", "Data-TLB"},
	{"iTLB", "i-tlb", "Instruction-TLB"},
	{"branch", "branches", "bpu", "btb", "bpc"},
	{"node"},
};
static const char *const cache_ops[][CACHE_ALIASES] = {
	{"load", "loads", "read"},
	{"store", "stores", "write"},
	{"prefetch", "prefetches", "speculative-read", "speculative-load"},
};
static const char *const cache_results[][CACHE_ALIASES] = {
	{"refs", "Reference", "ops", "access"},
	{"misses", "miss"},
};
/* the operations each type has, bit OP (evsel__hw_cache_stat) */
static const uint8_t cache_type_ops[] = {7, 5, 7, 7, 1, 1, 7};

static int errf(char *err, size_t size, int rc, const char *fmt, ...)
	PD_PRINTF(4, 5);

static int errf(char *err, size_t size, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return rc;
}

int rec_read_line(const char *path, char *buf, size_t size)
{
	FILE *fp = fopen(path, "re");
	char *nl;

	if (!fp)
		return -1;
	if (!fgets(buf, (int)size, fp)) {
		fclose(fp);
		return -1;
	}
	fclose(fp);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

void rec_list_pmus(const char *sysfs, char *buf, size_t size)
{
	char path[512];
	DIR *d;
	struct dirent *de;
	size_t len = 0;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/bus/event_source/devices", sysfs);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		int n;

		if (de->d_name[0] == '.')
			continue;
		n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
			     de->d_name);
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
	}
	closedir(d);
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno == 0 && end != s && *end == '\0';
}

/* A PMU's format term ("config:0-7,32-35") deposits value's bits. */
static int put_format(const char *spec, uint64_t value,
		      struct perf_event_attr *attr)
{
	unsigned long long *field; /* the attr's u64 fields */
	const char *p;

	if (strncmp(spec, "config2:", 8) == 0)
		field = &attr->config2, p = spec + 8;
	else if (strncmp(spec, "config1:", 8) == 0)
		field = &attr->config1, p = spec + 8;
	else if (strncmp(spec, "config:", 7) == 0)
		field = &attr->config, p = spec + 7;
	else
		return -1;
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;

		if (end == p || lo > 63)
			return -1;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (hi < lo || hi > 63)
			return -1;
		for (unsigned long b = lo; b <= hi; b++) {
			*field |= (value & 1) << b;
			value >>= 1;
		}
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return 0;
}

static int pmu_terms(const char *sysfs, const char *pmu, const char *terms,
		     struct perf_event_attr *attr, int depth, char *err,
		     size_t err_size);

/* One term of a PMU event: term=value, or an event name of the PMU. */
static int pmu_term(const char *sysfs, const char *pmu, char *term,
		    struct perf_event_attr *attr, int depth, char *err,
		    size_t err_size)
{
	char path[768], line[512];
	char *eq = strchr(term, '=');
	uint64_t value = 1;

	if (eq) {
		*eq = '\0';
		if (!parse_u64(eq + 1, &value))
			return errf(err, err_size, PD_ERR_API,
				    "'%s': bad value '%s' in PMU '%s'",
				    term, eq + 1, pmu);
	}
	if (strcmp(term, "config") == 0)
		attr->config = value;
	else if (strcmp(term, "config1") == 0)
		attr->config1 = value;
	else if (strcmp(term, "config2") == 0)
		attr->config2 = value;
	else if (!eq && depth == 0 &&
		 (snprintf(path, sizeof(path),
			   "%s/bus/event_source/devices/%s/events/%s", sysfs,
			   pmu, term),
		  rec_read_line(path, line, sizeof(line)) == 0))
		return pmu_terms(sysfs, pmu, line, attr, depth + 1, err,
				 err_size);
	else {
		snprintf(path, sizeof(path),
			 "%s/bus/event_source/devices/%s/format/%s", sysfs, pmu,
			 term);
		if (rec_read_line(path, line, sizeof(line)) < 0)
			return errf(err, err_size, PD_ERR_NOTFOUND,
				    "PMU '%s' has no event or term '%s'", pmu,
				    term);
		if (put_format(line, value, attr) < 0)
			return errf(err, err_size, PD_ERR_UNSUPPORTED,
				    "PMU '%s': cannot read the format '%s' "
				    "of '%s'",
				    pmu, line, term);
	}
	return 0;
}

static int pmu_terms(const char *sysfs, const char *pmu, const char *terms,
		     struct perf_event_attr *attr, int depth, char *err,
		     size_t err_size)
{
	char buf[512], *save = NULL, *t;

	if (strlen(terms) >= sizeof(buf))
		return errf(err, err_size, PD_ERR_API, "'%s': too long",
			    terms);
	memcpy(buf, terms, strlen(terms) + 1);
	for (t = buf; t && *t; t = save) {
		int rc;

		save = strchr(t, ',');
		if (save)
			*save++ = '\0';
		rc = pmu_term(sysfs, pmu, t, attr, depth, err, err_size);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int pmu_type(const char *sysfs, const char *pmu, uint32_t *type)
{
	char path[512], line[64];
	uint64_t v;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/type",
		 sysfs, pmu);
	if (rec_read_line(path, line, sizeof(line)) < 0 ||
	    !parse_u64(line, &v) || v > UINT32_MAX)
		return -1;
	*type = (uint32_t)v;
	return 0;
}

/* A bare event name that one of the host's PMUs lists in sysfs. */
static int find_pmu_event(const char *sysfs, const char *name,
			  struct rec_evsel *ev, char *err, size_t err_size)
{
	char path[256], line[512];
	struct dirent *de;
	DIR *d;
	int rc = PD_ERR_NOTFOUND;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices", sysfs);
	d = opendir(path);
	if (!d)
		return PD_ERR_NOTFOUND;
	while (rc == PD_ERR_NOTFOUND && (de = readdir(d)) != NULL) {
		char file[1024];

		if (de->d_name[0] == '.' || strchr(name, '/'))
			continue;
		snprintf(file, sizeof(file), "%s/%s/events/%s", path,
			 de->d_name, name);
		if (rec_read_line(file, line, sizeof(line)) < 0)
			continue;
		if (pmu_type(sysfs, de->d_name, &ev->attr.type) < 0)
			continue;
		rc = pmu_terms(sysfs, de->d_name, line, &ev->attr, 1, err,
			       err_size);
		ev->needs_pmu = true;
	}
	closedir(d);
	return rc;
}

static int tracepoint(const char *sysfs, const char *name,
		      struct rec_evsel *ev, char *err, size_t err_size)
{
	static const char *const roots[] = {"/kernel/tracing",
					    "/kernel/debug/tracing"};
	char sys[128], path[640], denied[640] = "", line[64];
	const char *colon = strchr(name, ':');
	uint64_t id;

	if ((size_t)(colon - name) >= sizeof(sys))
		return errf(err, err_size, PD_ERR_API, "'%s': too long", name);
	memcpy(sys, name, (size_t)(colon - name));
	sys[colon - name] = '\0';
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s%s/events/%s/%s/id", sysfs,
			 roots[i], sys, colon + 1);
		if (rec_read_line(path, line, sizeof(line)) == 0 &&
		    parse_u64(line, &id)) {
			ev->attr.type = PERF_TYPE_TRACEPOINT;
			ev->attr.config = id;
			ev->tracepoint = true;
			return 0;
		}
		if (errno == EACCES && !denied[0])
			memcpy(denied, path, sizeof(denied));
	}
	/* tracefs is root's alone (mode 700) by default: a user is denied
	 * the id, or the mount point itself, and perf says so too */
	if (denied[0])
		return errf(err, err_size, PD_ERR_IO,
			    "tracepoint '%s': no permission to read %s: run as "
			    "root, or let others read tracefs: 'mount -o "
			    "remount,mode=755 %s/kernel/tracing'",
			    name, denied, sysfs);
	snprintf(path, sizeof(path), "%s/kernel/tracing/events", sysfs);
	if (rec_read_line(path, line, sizeof(line)) < 0 && errno == ENOENT)
		return errf(err, err_size, PD_ERR_NOTFOUND,
			    "tracepoint '%s': tracefs is not mounted (mount "
			    "-t tracefs nodev %s/kernel/tracing)",
			    name, sysfs);
	return errf(err, err_size, PD_ERR_NOTFOUND,
		    "tracepoint '%s' not found in tracefs (its events/%s/%s/id)",
		    name, sys, colon + 1);
}

/* The row of TABLE whose alias is the longest one starting *P and
 * ending at a '-' or the end; *P moved past it.  -1: none. */
static int cache_word(const char **p, const char *const (*table)[CACHE_ALIASES],
		      size_t rows)
{
	size_t best_len = 0;
	int best = -1;

	for (size_t r = 0; r < rows; r++)
		for (size_t a = 0; a < CACHE_ALIASES && table[r][a]; a++) {
			size_t len = strlen(table[r][a]);

			if (len > best_len &&
			    strncmp(*p, table[r][a], len) == 0 &&
			    ((*p)[len] == '\0' || (*p)[len] == '-')) {
				best_len = len;
				best = (int)r;
			}
		}
	if (best >= 0)
		*p += best_len;
	return best;
}

#define ROWS(t) (sizeof(t) / sizeof((t)[0]))

/* perf's parse_events_add_cache: the first op word sets the operation,
 * the first result word the result (a word of a kind already set is
 * ignored, as perf ignores it); without them, loads and accesses. */
static int cache_event(const char *name, struct rec_evsel *ev, char *err,
		       size_t err_size)
{
	const char *p = name;
	int type = cache_word(&p, cache_types, ROWS(cache_types));
	int op = -1, result = -1;

	if (type < 0)
		return PD_ERR_NOTFOUND;
	for (int i = 0; i < 2 && *p == '-'; i++) {
		const char *word = p + 1;
		int o, r;

		p = word;
		o = cache_word(&p, cache_ops, ROWS(cache_ops));
		if (o >= 0) {
			if (op < 0)
				op = o;
			continue;
		}
		r = cache_word(&p, cache_results, ROWS(cache_results));
		if (r < 0)
			return PD_ERR_NOTFOUND;
		if (result < 0)
			result = r;
	}
	if (*p != '\0')
		return PD_ERR_NOTFOUND;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!(cache_type_ops[type] & (1u << op)))
		return errf(err, err_size, PD_ERR_API,
			    "'%s': not a hardware cache event: %s has no "
			    "%s operation",
			    name, cache_types[type][0], cache_ops[op][0]);
	ev->attr.type = PERF_TYPE_HW_CACHE;
	ev->attr.config = (uint64_t)type | ((uint64_t)op << 8) |
			  ((uint64_t)result << 16);
	ev->needs_pmu = true;
	return 0;
}

/* The part before the modifiers, made into type and config. */
static int parse_one(const char *sysfs, const char *name,
		     struct rec_evsel *ev, char *err, size_t err_size)
{
	const char *slash = strchr(name, '/');
	uint64_t v;
	int rc;

	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++)
		if (strcmp(name, symbols[i].name) == 0) {
			ev->attr.type = symbols[i].type;
			ev->attr.config = symbols[i].config;
			ev->needs_pmu = symbols[i].type == PERF_TYPE_HARDWARE;
			return 0;
		}
	if (name[0] == 'r' && name[1] && strspn(name + 1,
		"0123456789abcdefABCDEF") == strlen(name + 1)) {
		char hex[32];

		snprintf(hex, sizeof(hex), "0x%s", name + 1);
		if (!parse_u64(hex, &v))
			return errf(err, err_size, PD_ERR_API,
				    "'%s': bad raw event", name);
		ev->attr.type = PERF_TYPE_RAW;
		ev->attr.config = v;
		ev->needs_pmu = true;
		return 0;
	}
	if (slash) {
		char pmu[128], terms[512];
		size_t plen = (size_t)(slash - name), tlen;

		tlen = strlen(slash + 1);
		if (plen == 0 || plen >= sizeof(pmu) || tlen == 0 ||
		    slash[tlen] != '/' || tlen > sizeof(terms))
			return errf(err, err_size, PD_ERR_API,
				    "'%s': not PMU/TERMS/", name);
		memcpy(pmu, name, plen);
		pmu[plen] = '\0';
		memcpy(terms, slash + 1, tlen - 1);
		terms[tlen - 1] = '\0';
		if (pmu_type(sysfs, pmu, &ev->attr.type) < 0) {
			char pmus[512];

			rec_list_pmus(sysfs, pmus, sizeof(pmus));
			return errf(err, err_size, PD_ERR_NOTFOUND,
				    "'%s': the host has no PMU '%s' (it has: "
				    "%s)",
				    name, pmu, pmus);
		}
		ev->needs_pmu = ev->attr.type != PERF_TYPE_SOFTWARE &&
				ev->attr.type != PERF_TYPE_TRACEPOINT;
		return pmu_terms(sysfs, pmu, terms, &ev->attr, 0, err,
				 err_size);
	}
	if (strchr(name, ':'))
		return tracepoint(sysfs, name, ev, err, err_size);
	rc = cache_event(name, ev, err, err_size);
	if (rc != PD_ERR_NOTFOUND)
		return rc;
	if (find_pmu_event(sysfs, name, ev, err, err_size) == 0)
		return 0;
	return errf(err, err_size, PD_ERR_NOTFOUND,
		    "unknown event '%s' (software events: cpu-clock, "
		    "task-clock, page-faults, minor-faults, major-faults, "
		    "context-switches, cpu-migrations; hardware: cycles, "
		    "instructions, branches, branch-misses, cache-references, "
		    "cache-misses, ...)",
		    name);
}

/* perf's modifiers after the last ':' that is not a tracepoint's. */
static const char *modifiers_at(const char *item)
{
	const char *colon = strrchr(item, ':');

	if (!colon || strchr(colon, '/'))
		return NULL;
	if (strspn(colon + 1, "ukhpPHGS") != strlen(colon + 1) ||
	    colon[1] == '\0')
		return NULL;
	return colon;
}

/*
 * perf 6.1's get_event_modifier: u, k, h choose the levels (the first
 * excludes all, each keeps its own); and the guest/host exclusion, which
 * an event's own modifiers start from none of (a group's from what its
 * members have: both from perf's default, exclude_guest): u and p
 * exclude the guest unless G or H chose.
 */
static int apply_modifiers(const char *mods, struct rec_evsel *ev,
			   bool group, char *err, size_t err_size)
{
	/* a group's levels start from what its member chose */
	bool eu = ev->attr.exclude_user, ek = ev->attr.exclude_kernel;
	bool ehv = ev->attr.exclude_hv, chose_gh = false;
	bool exclude = eu || ek || ehv;
	bool eg = group ? !ev->guest_set || ev->excl_guest : false;
	bool eh = group ? ev->guest_set && ev->excl_host : false;

	for (const char *m = mods; *m; m++) {
		switch (*m) {
		case 'u':
			if (!exclude)
				exclude = eu = ek = ehv = true;
			eu = false;
			eg = eg || !chose_gh;
			break;
		case 'k':
			if (!exclude)
				exclude = eu = ek = ehv = true;
			ek = false;
			break;
		case 'h':
			if (!exclude)
				exclude = eu = ek = ehv = true;
			ehv = false;
			break;
		case 'p':
			if (ev->attr.precise_ip < 3)
				ev->attr.precise_ip++;
			/* perf: a precise ip needs exclude_guest */
			eg = eg || !chose_gh;
			break;
		case 'P':
			ev->attr.precise_ip = 3;
			ev->precise_max = true;
			break;
		case 'H':
		case 'G':
			/* the first of them excludes both, each keeps its
			 * own: H the host, G the guest */
			if (!chose_gh)
				eg = eh = true;
			chose_gh = true;
			if (*m == 'H')
				eh = false;
			else
				eg = false;
			break;
		default:
			return errf(err, err_size, PD_ERR_UNSUPPORTED,
				    "'%s': modifier '%c' is not supported",
				    ev->name, *m);
		}
	}
	ev->attr.exclude_user = eu;
	ev->attr.exclude_kernel = ek;
	ev->attr.exclude_hv = ehv;
	ev->guest_set = true;
	ev->excl_guest = eg;
	ev->excl_host = eh;
	return 0;
}

void rec_attr_modifiers(const struct perf_event_attr *a, char *buf,
			size_t size)
{
	char m[16];
	size_t n = 0;
	bool guest_default = false;

	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		if (!a->exclude_kernel)
			m[n++] = 'k';
		if (!a->exclude_user)
			m[n++] = 'u';
		if (!a->exclude_hv)
			m[n++] = 'h';
		guest_default = true;
	}
	for (unsigned i = 0; i < a->precise_ip && i < 3; i++)
		m[n++] = 'p';
	if (a->precise_ip)
		guest_default = true;
	/* H and G only where they say something the levels did not */
	if (a->exclude_host || (bool)a->exclude_guest == guest_default) {
		if (!a->exclude_host)
			m[n++] = 'H';
		if (!a->exclude_guest)
			m[n++] = 'G';
	}
	m[n] = '\0';
	snprintf(buf, size, "%s%.*s", n ? ":" : "", (int)n, m);
}

/* One item of the list; the name keeps what was given. */
static int parse_item(const char *sysfs, const char *item,
		      struct rec_evsel *ev, char *err, size_t err_size)
{
	const char *mods;
	char base[REC_NAME_MAX];
	size_t blen;
	int rc;

	memset(ev, 0, sizeof(*ev));
	if (strlen(item) >= sizeof(ev->name))
		return errf(err, err_size, PD_ERR_API, "'%s': too long", item);
	memcpy(ev->name, item, strlen(item) + 1);
	mods = modifiers_at(item);
	blen = mods ? (size_t)(mods - item) : strlen(item);
	memcpy(base, item, blen);
	base[blen] = '\0';
	rc = parse_one(sysfs, base, ev, err, err_size);
	/* "sched:sched_switch" parses as a tracepoint, not as modifiers */
	if (rc == PD_ERR_NOTFOUND && mods) {
		rc = parse_one(sysfs, item, ev, err, err_size);
		mods = NULL;
	}
	if (rc < 0)
		return rc;
	return mods ? apply_modifiers(mods + 1, ev, false, err, err_size) : 0;
}

/* The end of one item at p: the next ',' outside PMU/a=1,b=2/ and
 * outside a group's braces. */
static const char *item_end(const char *p)
{
	int slash = 0, brace = 0;

	for (; *p && (*p != ',' || slash || brace); p++) {
		if (*p == '/')
			slash = !slash;
		else if (*p == '{')
			brace++;
		else if (*p == '}' && brace)
			brace--;
	}
	return p;
}

/* The item at *p (up to item_end) into buf, *p past it and its comma,
 * with room for one more event; no group in a group.  @return 0 or
 * PD_ERR_API with what is wrong in err (about bad: the list or group). */
static int take_item(const char **p, char *buf, size_t size, size_t nr,
		     size_t max, const char *bad, bool in_group, char *err,
		     size_t err_size)
{
	const char *q = item_end(*p);

	if (q == *p || (size_t)(q - *p) >= size || (in_group && **p == '{'))
		return errf(err, err_size, PD_ERR_API, "bad event list '%s'",
			    bad);
	if (nr == max)
		return errf(err, err_size, PD_ERR_API, "more than %zu events",
			    max);
	memcpy(buf, *p, (size_t)(q - *p));
	buf[q - *p] = '\0';
	*p = *q ? q + 1 : q;
	return 0;
}

/*
 * A group "{a,b}[:MODS]" (item without the braces' text copied) into
 * ev[*nr...]: each member parsed as an item, MODS applied to each as
 * perf applies a group's modifiers; S makes the leader sample for all.
 */
static int parse_group(const char *sysfs, const char *item,
		       struct rec_evsel *ev, size_t max, size_t *nr, char *err,
		       size_t err_size)
{
	const char *close = strrchr(item, '}'), *mods = NULL;
	char inner[REC_NAME_MAX];
	const size_t first = *nr;
	bool sample_read = false;
	size_t len;

	if (!close || close == item + 1)
		return errf(err, err_size, PD_ERR_API,
			    "'%s': a group is {EVENT,EVENT...}[:MODIFIERS]",
			    item);
	if (close[1] == ':' && close[2] &&
	    strspn(close + 2, "ukhpPHGS") == strlen(close + 2))
		mods = close + 2;
	else if (close[1])
		return errf(err, err_size, PD_ERR_API,
			    "'%s': bad modifiers after the group", item);
	len = (size_t)(close - item - 1);
	memcpy(inner, item + 1, len);
	inner[len] = '\0';
	for (const char *p = inner; *p;) {
		char one[REC_NAME_MAX];
		int rc = take_item(&p, one, sizeof(one), *nr, max, item, true,
				   err, err_size);

		if (rc == 0)
			rc = parse_item(sysfs, one, &ev[*nr], err, err_size);
		if (rc < 0)
			return rc;
		(*nr)++;
	}
	if (mods) {
		/* S is the group's; the others each member's (perf keeps
		 * the members' names as they were written) */
		char each[16];
		size_t n = 0;

		for (const char *m = mods; *m && n + 1 < sizeof(each); m++) {
			if (*m == 'S')
				sample_read = true;
			else
				each[n++] = *m;
		}
		each[n] = '\0';
		for (size_t i = first; n && i < *nr; i++) {
			int rc = apply_modifiers(each, &ev[i], true, err,
						 err_size);

			if (rc < 0)
				return rc;
		}
	}
	for (size_t i = first; i < *nr; i++) {
		ev[i].leader = first;
		ev[i].sample_read = sample_read && *nr - first > 1;
	}
	ev[first].nr_members = (unsigned)(*nr - first);
	return 0;
}

int rec_parse_events(const char *list, const char *sysfs,
		     struct rec_evsel *ev, size_t max, size_t *nr, char *err,
		     size_t err_size)
{
	const char *p = list;

	*nr = 0;
	while (*p) {
		char item[REC_NAME_MAX];
		int rc = take_item(&p, item, sizeof(item), *nr, max, list,
				   false, err, err_size);

		if (rc < 0)
			return rc;
		if (item[0] == '{') {
			rc = parse_group(sysfs, item, ev, max, nr, err,
					 err_size);
		} else {
			rc = parse_item(sysfs, item, &ev[*nr], err, err_size);
			if (rc == 0) {
				ev[*nr].leader = *nr;
				ev[*nr].nr_members = 1;
				(*nr)++;
			}
		}
		if (rc < 0)
			return rc;
	}
	if (*nr == 0)
		return errf(err, err_size, PD_ERR_API, "no events in '%s'",
			    list);
	return 0;
}

/* perf 6.1's branch filter names (util/parse-branch-options.c), and
 * no_flags, no_cycles, hw_index from perf 6.3 on */
static const struct {
	const char *name;
	uint64_t mode;
} branch_modes[] = {
	{"u", PERF_SAMPLE_BRANCH_USER},
	{"k", PERF_SAMPLE_BRANCH_KERNEL},
	{"hv", PERF_SAMPLE_BRANCH_HV},
	{"any", PERF_SAMPLE_BRANCH_ANY},
	{"any_call", PERF_SAMPLE_BRANCH_ANY_CALL},
	{"any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN},
	{"ind_call", PERF_SAMPLE_BRANCH_IND_CALL},
	{"abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX},
	{"in_tx", PERF_SAMPLE_BRANCH_IN_TX},
	{"no_tx", PERF_SAMPLE_BRANCH_NO_TX},
	{"cond", PERF_SAMPLE_BRANCH_COND},
	{"ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP},
	{"call", PERF_SAMPLE_BRANCH_CALL},
	{"no_flags", PERF_SAMPLE_BRANCH_NO_FLAGS},
	{"no_cycles", PERF_SAMPLE_BRANCH_NO_CYCLES},
	{"save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE},
	{"stack", PERF_SAMPLE_BRANCH_CALL_STACK},
	{"hw_index", PERF_SAMPLE_BRANCH_HW_INDEX},
	{"priv", PERF_SAMPLE_BRANCH_PRIV_SAVE},
};

int pda_record_branch_filter(const char *list, uint64_t *mode, char *errbuf,
			     size_t errbuf_size)
{
	const uint64_t levels = PERF_SAMPLE_BRANCH_USER |
				PERF_SAMPLE_BRANCH_KERNEL |
				PERF_SAMPLE_BRANCH_HV;
	const char *p = list;

	*mode = 0;
	while (p) {
		size_t len = strcspn(p, ","), i;
		const size_t n = sizeof(branch_modes) / sizeof(branch_modes[0]);

		for (i = 0; i < n; i++)
			if (strlen(branch_modes[i].name) == len &&
			    strncasecmp(p, branch_modes[i].name, len) == 0)
				break;
		if (i == n)
			return errf(errbuf, errbuf_size, PD_ERR_API,
				    "-j: unknown branch filter '%.*s' (any, "
				    "any_call, any_ret, ind_call, ind_jmp, "
				    "call, cond, abort_tx, in_tx, no_tx, "
				    "save_type, stack, priv, no_flags, "
				    "no_cycles, hw_index; levels u, k, hv)",
				    (int)len, p);
		*mode |= branch_modes[i].mode;
		/* "any," names an empty filter, which perf refuses too */
		p = p[len] == ',' ? p + len + 1 : NULL;
	}
	/* perf 6.1: without a branch kind, any branch at every level */
	if ((*mode & ~levels) == 0)
		*mode = PERF_SAMPLE_BRANCH_ANY;
	return 0;
}
