/*
 * pda_record.c - the recorder's run (pda_record.h): the targets, the
 * events' attrs as perf 6.1's `perf record` sets them, perf_event_open
 * per CPU and thread, one ring buffer per CPU (the other events of that
 * CPU write into it: PERF_EVENT_IOC_SET_OUTPUT), the poll loop that
 * copies the buffers into the capture with a FINISHED_ROUND after each
 * pass, and what perf writes at the end: LOST_SAMPLES from the counters,
 * EVENT_DESC, BUILD_ID and SAMPLE_TIME.
 */
#include "pda_record_priv.h"
#include "pd_write.h"
#include "pdc_alloc.h"
#include "pdc_opts.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS 4096
#define MAX_THREADS 65536
#define MAX_FDS (1u << 20)
#define DEFAULT_FREQ 4000	 /* perf's default -F */
#define DEFAULT_STACK 8192	 /* perf's --call-graph dwarf size */
#define POLL_MS 100		 /* how soon a stop or an exit is seen */
#define PERF_CONTEXT_KERNEL_MARK ((uint64_t)-128)
#define PERF_CONTEXT_USER_MARK ((uint64_t)-512)

int rec_errf(struct rec *r, int rc, const char *fmt, ...)
{
	va_list ap;

	if (r->err && r->err_size) {
		va_start(ap, fmt);
		vsnprintf(r->err, r->err_size, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static void rlog(struct rec *r, enum pd_log_level level, const char *fmt,
		 ...) PD_PRINTF(3, 4);

static void rlog(struct rec *r, enum pd_log_level level, const char *fmt,
		 ...)
{
	char msg[512];
	va_list ap;

	if (!r->o.log || level > r->o.log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->o.log(r->o.log_arg, level, msg);
}

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid,
			       int cpu, int group, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

/* "0,2-3" into a sorted list without repeats. */
static int parse_list(struct rec *r, const char *s, const char *what,
		      int32_t max, int32_t **out, size_t *nr)
{
	size_t alloc = 0;
	const char *p = s;

	*nr = 0;
	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0 || lo > max)
			return rec_errf(r, PD_ERR_API, "bad %s list '%s'", what, s);
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo || hi > max)
				return rec_errf(r, PD_ERR_API, "bad %s list '%s'",
					    what, s);
		}
		for (long v = lo; v <= hi; v++) {
			bool dup = false;

			for (size_t i = 0; i < *nr && !dup; i++)
				dup = (*out)[i] == v;
			if (dup)
				continue;
			if (PDC_GROW(r->a, *out, alloc, *nr + 1, MAX_THREADS) <
			    0)
				return rec_errf(r, PD_ERR_NOMEM, "out of memory");
			(*out)[(*nr)++] = (int32_t)v;
		}
		if (*end && *end != ',')
			return rec_errf(r, PD_ERR_API, "bad %s list '%s'", what, s);
		p = *end ? end + 1 : end;
	}
	if (*nr == 0)
		return rec_errf(r, PD_ERR_API, "empty %s list", what);
	return 0;
}

static int online_cpus(struct rec *r, const char *want)
{
	char line[1024];
	int32_t *online = NULL, *list = NULL;
	size_t nr_online = 0, nr_list = 0;
	int rc;

	if (rec_read_line("/sys/devices/system/cpu/online", line,
			  sizeof(line)) < 0)
		snprintf(line, sizeof(line), "0-%ld",
			 sysconf(_SC_NPROCESSORS_ONLN) - 1);
	rc = parse_list(r, line, "cpu", MAX_CPUS - 1, &online, &nr_online);
	if (rc == 0 && want) {
		rc = parse_list(r, want, "cpu", MAX_CPUS - 1, &list, &nr_list);
		for (size_t i = 0; rc == 0 && i < nr_list; i++) {
			bool on = false;

			for (size_t j = 0; j < nr_online && !on; j++)
				on = online[j] == list[i];
			if (!on)
				rc = rec_errf(r, PD_ERR_NOTFOUND,
					  "CPU %d is not online (online: %s)",
					  list[i], line);
		}
		pdc_free(r->a, online);
		online = list;
		nr_online = nr_list;
	}
	if (rc < 0) {
		pdc_free(r->a, online);
		return rc;
	}
	r->cpus = (int *)online;
	r->nr_cpus = nr_online;
	return 0;
}

static int add_thread(struct rec *r, size_t *alloc, int32_t tid)
{
	for (size_t i = 0; i < r->nr_threads; i++)
		if (r->threads[i] == tid)
			return 0;
	if (PDC_GROW(r->a, r->threads, *alloc, r->nr_threads + 1,
		     MAX_THREADS) < 0)
		return rec_errf(r, PD_ERR_NOMEM, "out of memory");
	r->threads[r->nr_threads++] = tid;
	return 0;
}

/* -p: every thread of each process, as perf's thread map has them. */
static int pid_threads(struct rec *r)
{
	int32_t *pids = NULL;
	size_t nr = 0, alloc = 0;
	int rc = parse_list(r, r->o.pids, "pid", INT32_MAX, &pids, &nr);

	for (size_t i = 0; rc == 0 && i < nr; i++) {
		char path[64];
		DIR *d;
		struct dirent *de;

		snprintf(path, sizeof(path), "/proc/%d/task", pids[i]);
		d = opendir(path);
		if (!d) {
			rc = rec_errf(r, PD_ERR_NOTFOUND,
				  "no process %d (/proc/%d: %s)", pids[i],
				  pids[i], strerror(errno));
			break;
		}
		while (rc == 0 && (de = readdir(d)) != NULL)
			if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
				rc = add_thread(r, &alloc,
						(int32_t)strtol(de->d_name,
								NULL, 10));
		closedir(d);
	}
	pdc_free(r->a, pids);
	return rc;
}

static int tid_threads(struct rec *r)
{
	int32_t *tids = NULL;
	size_t nr = 0, alloc = 0;
	int rc = parse_list(r, r->o.tids, "tid", INT32_MAX, &tids, &nr);

	for (size_t i = 0; rc == 0 && i < nr; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/task/%d", tids[i],
			 tids[i]);
		if (access(path, F_OK) != 0 &&
		    (snprintf(path, sizeof(path), "/proc/self/task/../../%d",
			      tids[i]),
		     access(path, F_OK) != 0))
			rc = rec_errf(r, PD_ERR_NOTFOUND, "no thread %d", tids[i]);
		else
			rc = add_thread(r, &alloc, tids[i]);
	}
	pdc_free(r->a, tids);
	return rc;
}

/* The workload, forked now and waiting on go_fd to exec, so that its
 * events exist before its first instruction (enable_on_exec). */
static int fork_workload(struct rec *r)
{
	int go[2], er[2];
	size_t alloc = 0;

	if (pipe(go) < 0)
		return rec_errf(r, PD_ERR_IO, "pipe: %s", strerror(errno));
	if (pipe(er) < 0) {
		close(go[0]);
		close(go[1]);
		return rec_errf(r, PD_ERR_IO, "pipe: %s", strerror(errno));
	}
	/* close-on-exec: the error pipe's end closes when exec works */
	for (int i = 0; i < 2; i++) {
		fcntl(go[i], F_SETFD, FD_CLOEXEC);
		fcntl(er[i], F_SETFD, FD_CLOEXEC);
	}
	r->child = fork();
	if (r->child < 0) {
		close(go[0]), close(go[1]), close(er[0]), close(er[1]);
		return rec_errf(r, PD_ERR_IO, "fork: %s", strerror(errno));
	}
	if (r->child == 0) {
		char c = 'r';
		int e;

		close(go[1]);
		close(er[0]);
		/* perf's name for its workload until the exec, which the
		 * COMM synthesized for it carries (rec_synth_comm), so that
		 * its first samples are not taken for the recorder's */
		prctl(PR_SET_NAME, "perf-exec");
		if (write(er[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(127); /* the recorder gave up */
		/* the capture is on standard output: the workload's output
		 * goes to standard error, as perf sends it */
		if (r->o.pipe && r->o.out_fd == STDOUT_FILENO)
			dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(r->o.argv[0], r->o.argv);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	r->go_fd = go[1];
	r->err_fd = er[0];
	r->st->workload = true;
	{
		/* renamed: the COMM synthesized for it reads its name */
		char c;
		ssize_t n;

		do
			n = read(r->err_fd, &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			return rec_errf(r, PD_ERR_IO,
				    "cannot start '%s': the child died",
				    r->o.argv[0]);
	}
	/* whole CPUs (-a, -C) count it already: no events of its own */
	if (r->o.system_wide || r->o.cpus)
		return 0;
	return add_thread(r, &alloc, r->child);
}

/* Let the workload exec; @return 0, or its exec's failure. */
int rec_start_workload(struct rec *r)
{
	int e = 0;
	ssize_t n;

	if (write(r->go_fd, "g", 1) != 1)
		return rec_errf(r, PD_ERR_IO, "cannot start '%s': %s",
			    r->o.argv[0], strerror(errno));
	close(r->go_fd);
	r->go_fd = -1;
	do
		n = read(r->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(r->err_fd);
	r->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		waitpid(r->child, &r->st->workload_status, 0);
		r->child_done = true;
		return rec_errf(r, PD_ERR_NOTFOUND, "cannot run '%s': %s",
			    r->o.argv[0], strerror(e));
	}
	return 0;
}

/* perf's user register mask for --call-graph dwarf on this machine,
 * 0 where pdtool knows none. */
static uint64_t regs_user_mask(void)
{
	struct utsname u;

	if (uname(&u) < 0)
		return 0;
	if (strcmp(u.machine, "x86_64") == 0)
		return 0xff0fffull; /* PERF_REGS_MASK: no segment regs */
	if (strcmp(u.machine, "aarch64") == 0)
		return (1ull << 33) - 1;
	return 0;
}

/* perf's evlist__config: with several events every sample names its
 * event, by PERF_SAMPLE_ID where their sample types agree, else by
 * PERF_SAMPLE_IDENTIFIER (at a fixed place). */
static void set_sample_id(struct rec *r)
{
	uint64_t bit = PERF_SAMPLE_ID;

	/* perf 6.1's __cmd_record: a pipe's lone event has its id too
	 * (opts->sample_id), as several events always do */
	if (r->nr_ev < 2 && !r->o.pipe)
		return;
	for (size_t i = 1; i < r->nr_ev; i++)
		if (r->ev[i].attr.sample_type != r->ev[0].attr.sample_type)
			bit = PERF_SAMPLE_IDENTIFIER;
	for (size_t i = 0; i < r->nr_ev; i++) {
		r->ev[i].attr.sample_type &= ~(uint64_t)PERF_SAMPLE_ID;
		r->ev[i].attr.sample_type |= bit;
	}
}

/* --call-graph lbr on event e as perf 6.1's __evsel__config_callchain:
 * the user part of the callchain from the LBR call stack, where the
 * event counts user code and no -b/-j takes the branch stack; else frame
 * pointers only, with perf's warning. */
static void lbr_callstack(struct rec *r, size_t e)
{
	struct perf_event_attr *a = &r->ev[e].attr;

	if (r->o.branch_sample_type) {
		rlog(r, PD_LOG_WARN, "Cannot use LBR callstack with branch "
				     "stack. Falling back to framepointers.");
	} else if (a->exclude_user) {
		rlog(r, PD_LOG_WARN, "LBR callstack option is only available "
				     "to get user callchain information. "
				     "Falling back to framepointers.");
	} else {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = PERF_SAMPLE_BRANCH_USER |
					PERF_SAMPLE_BRANCH_CALL_STACK |
					PERF_SAMPLE_BRANCH_NO_CYCLES |
					PERF_SAMPLE_BRANCH_NO_FLAGS |
					PERF_SAMPLE_BRANCH_HW_INDEX;
	}
}

/* The attrs as perf 6.1's evsel__config sets them for these options. */
static int config_events(struct rec *r)
{
	const struct pda_record_opts *o = &r->o;
	uint64_t type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	bool per_cpu_target = o->system_wide || o->cpus;

	if (o->period == 0 || o->freq)
		type |= PERF_SAMPLE_PERIOD;
	if (o->call_graph != PDA_REC_CG_NONE)
		type |= PERF_SAMPLE_CALLCHAIN;
	if (o->call_graph == PDA_REC_CG_DWARF) {
		if (!regs_user_mask())
			return rec_errf(r, PD_ERR_UNSUPPORTED,
				    "--call-graph dwarf: no register set for "
				    "this architecture");
		type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	}
	if (per_cpu_target)
		type |= PERF_SAMPLE_CPU;
	/* perf 6.1 records data addresses and every map for dwarf too:
	 * the unwinders find .eh_frame_hdr in a read-only map */
	if (o->data_addr || o->call_graph == PDA_REC_CG_DWARF)
		type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	for (size_t i = 0; i < r->nr_ev; i++)
		if (r->ev[i].tracepoint)
			type |= PERF_SAMPLE_CPU; /* perf's, for tracepoints */
	for (size_t i = 0; i < r->nr_ev; i++) {
		struct perf_event_attr *a = &r->ev[i].attr;
		const bool member = r->ev[i].leader != i;
		const bool tracking = r->ev[i].tracking;
		/* the side band: on the tracking dummy, else the first */
		const bool side_band = tracking || (i == 0 && !r->ev[r->nr_ev - 1]
							      .tracking);

		a->size = sizeof(*a);
		a->sample_type = type | (r->ev[i].tracepoint ? PERF_SAMPLE_RAW
							     : 0);
		if (o->period) {
			a->sample_period = o->period;
		} else if ((r->ev[i].tracepoint || tracking) && !o->freq) {
			/* every hit, as perf: a tracepoint's default, and
			 * the tracking dummy's (perf 6.1's evlist__add_dummy
			 * gives it period 1; only -F or -c override it) */
			a->sample_period = 1;
			a->sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
		} else {
			a->freq = 1;
			a->sample_freq = o->freq ? o->freq : DEFAULT_FREQ;
		}
		a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
		if (o->inherit_stat) {
			/* perf 6.1's evsel__config for -s: the READ
			 * records carry the times the count covers */
			a->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED |
					  PERF_FORMAT_TOTAL_TIME_RUNNING;
			a->inherit_stat = 1;
		}
		/* a group's members start with their leader; the tracking
		 * dummy at once, as perf's */
		a->disabled = !member && !tracking;
		a->inherit = o->tids ? 0 : 1;
		a->enable_on_exec = o->argv && !per_cpu_target && !member;
		a->sample_id_all = 1;
		a->exclude_guest = !tracking && (!r->ev[i].guest_set ||
						 r->ev[i].excl_guest);
		a->exclude_host = r->ev[i].guest_set && r->ev[i].excl_host;
		if (r->ev[i].sample_read) {
			/* perf 6.1's leader sampling: every sample reads the
			 * group; the members never sample themselves, and
			 * the kernel reads no group of inherited events */
			a->sample_type |= PERF_SAMPLE_READ;
			a->read_format |= PERF_FORMAT_GROUP;
			a->inherit = 0;
			if (member) {
				a->freq = 0;
				a->sample_period = 0;
			}
		}
		if (o->branch_sample_type && !tracking) {
			/* perf 6.1's evsel__config: every event but the
			 * side band's dummy */
			a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
			a->branch_sample_type = o->branch_sample_type;
		}
		if (o->call_graph == PDA_REC_CG_LBR && !tracking)
			lbr_callstack(r, i);
		if (o->call_graph == PDA_REC_CG_DWARF) {
			a->sample_regs_user = regs_user_mask();
			a->sample_stack_user = o->stack_size ? o->stack_size
							     : DEFAULT_STACK;
			a->exclude_callchain_user = 1;
		}
		if (o->use_clockid) {
			a->use_clockid = 1;
			a->clockid = o->clockid;
		}
		if (side_band) {
			/* one event carries the side band */
			a->mmap = a->mmap2 = a->comm = a->comm_exec = 1;
			a->task = 1;
			a->ksymbol = a->bpf_event = 1;
			a->context_switch = o->switch_events || o->latency;
			a->mmap_data = o->data_addr ||
				       o->call_graph == PDA_REC_CG_DWARF;
		}
	}
	set_sample_id(r);
	type = r->ev[0].attr.sample_type;
	r->sample_type = type;
	/* sample_id_all: pid, tid, time, [id], [stream_id], [cpu, res],
	 * [identifier] */
	r->id_hdr_size = 8 * (2 + !!(type & PERF_SAMPLE_ID) +
			      !!(type & PERF_SAMPLE_CPU) +
			      !!(type & PERF_SAMPLE_IDENTIFIER));
	return 0;
}

/* /proc/sys/kernel/perf_event_paranoid (2, the kernel's default, when
 * it cannot be read) */
static long paranoid_level(void)
{
	char line[32];

	if (rec_read_line("/proc/sys/kernel/perf_event_paranoid", line,
			  sizeof(line)) < 0)
		return 2;
	return strtol(line, NULL, 10);
}

/* perf 6.1's perf_event_can_profile_kernel: CAP_SYS_ADMIN or CAP_PERFMON
 * in effect (/proc/self/status's CapEff), or a paranoid level of 1 or
 * less. */
static bool can_profile_kernel(void)
{
	char line[256];
	unsigned long long eff = 0;
	FILE *fp;

	if (paranoid_level() <= 1)
		return true;
	fp = fopen("/proc/self/status", "re");
	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(fp);
	return (eff >> 21 & 1) || (eff >> 38 & 1); /* SYS_ADMIN, PERFMON */
}

/*
 * perf 6.1's evsel__fallback for EACCES/EPERM: with perf_event_paranoid
 * above 1 an unprivileged user may not sample the kernel, so an event
 * that does not exclude it (nor the user: then there is nothing left)
 * is tried again on user space alone, and named so ("cpu-clock:u").
 * @return whether it was.
 */
static bool user_only_fallback(struct rec *r, struct rec_evsel *ev)
{
	long paranoid = paranoid_level();
	size_t len = strlen(ev->name);

	if (ev->attr.exclude_kernel || ev->attr.exclude_user || paranoid <= 1 ||
	    len + 2 >= sizeof(ev->name))
		return false;
	snprintf(ev->name + len, sizeof(ev->name) - len, "%su",
		 strchr(ev->name, '/') || strchr(ev->name, ':') ? "" : ":");
	ev->attr.exclude_kernel = 1;
	ev->attr.exclude_hv = 1;
	ev->dumped = false;
	rlog(r, PD_LOG_INFO,
	     "kernel.perf_event_paranoid=%ld: recording '%s' without the "
	     "kernel and hypervisor, as perf does",
	     paranoid, ev->name);
	return true;
}

static int rec_perm_error(struct rec *r, const struct rec_evsel *ev, int e)
{
	long paranoid = paranoid_level();

	return rec_errf(r, PD_ERR_IO,
		    "no permission to record '%s' (%s): "
		    "/proc/sys/kernel/perf_event_paranoid is %ld; run as root, "
		    "give pdtool CAP_PERFMON (setcap cap_perfmon+ep), or lower "
		    "it: 'sysctl kernel.perf_event_paranoid=%d' (%s)",
		    ev->name, strerror(e), paranoid,
		    r->o.system_wide || r->o.cpus ? 0 : 1,
		    r->o.system_wide || r->o.cpus
			    ? "0: CPU-wide recording"
			    : "1: your own processes, user and kernel");
}

static int unsupported_error(struct rec *r, const struct rec_evsel *ev, int e)
{
	char pmus[512];

	rec_list_pmus("/sys", pmus, sizeof(pmus));
	if (ev->needs_pmu && ev->attr.type < PERF_TYPE_MAX &&
	    ev->attr.type != PERF_TYPE_SOFTWARE)
		return rec_errf(r, PD_ERR_UNSUPPORTED,
			    "event '%s' is not supported on this host: it "
			    "has no hardware performance counters (%s; its "
			    "PMUs: %s); record a software event instead: "
			    "cpu-clock, task-clock, page-faults, "
			    "context-switches, cpu-migrations, minor-faults, "
			    "major-faults",
			    ev->name, strerror(e), pmus);
	/* perf 6.1's evsel__open_strerror: an uncore or other CPU-wide
	 * PMU's event (msr/tsc/) refuses a task context with EINVAL */
	if (e == EINVAL && !r->o.system_wide && !r->o.cpus)
		return rec_errf(r, PD_ERR_UNSUPPORTED,
			    "event '%s' is invalid in per-thread mode (%s): "
			    "record system-wide with -a (or CPUs with -C)",
			    ev->name, strerror(e));
	return rec_errf(r, PD_ERR_UNSUPPORTED,
		    "event '%s' cannot be opened: %s (the host's PMUs: %s)",
		    ev->name, strerror(e), pmus);
}

/* perf 6.1's "PMU Hardware or event type doesn't support branch stack
 * sampling", with what to record instead. */
static int branch_stack_error(struct rec *r, const struct rec_evsel *ev,
			      int e)
{
	char pmus[512];

	rec_list_pmus("/sys", pmus, sizeof(pmus));
	return rec_errf(r, PD_ERR_UNSUPPORTED,
		    "event '%s' cannot sample branch stacks (%s): %s (the "
		    "host's PMUs: %s); record without -b, -j and --call-graph "
		    "lbr (callchains: -g or --call-graph dwarf)",
		    ev->name, strerror(e),
		    ev->needs_pmu ? "the host's PMU records no branch stack "
				    "(Intel LBR, Arm BRBE, AMD LbrExtV2)"
		    : ev->fell_back ? "a software event has no branch stack, "
				      "and the default cycles fell back to it: "
				      "the host has no hardware counters"
				    : "a software event has no branch stack",
		    pmus);
}

/* -vv: the attr before its first open (again after a fallback changed
 * it), then the call and its result, in perf record -vv's words. */
static void dump_open(struct rec *r, struct rec_evsel *ev, int32_t tid,
		      int cpu, int group_fd, unsigned long flags, int fd,
		      int err)
{
	struct pdc_strbuf b;
	static const char rule[] =
		"------------------------------------------------------------\n";

	pdc_strbuf_init(&b, r->a, NULL, 0);
	if (!ev->dumped) {
		pdc_strbuf_addf(&b, "%sperf_event_attr:\n", rule);
		rec_attr_text(&ev->attr, &b);
		pdc_strbuf_addf(&b, "%s", rule);
		ev->dumped = true;
	}
	pdc_strbuf_addf(&b,
			"sys_perf_event_open: pid %d  cpu %d  group_fd %d  "
			"flags %#x",
			tid, cpu, group_fd, (unsigned)flags);
	if (fd >= 0)
		pdc_strbuf_addf(&b, " = %d\n", fd);
	else
		pdc_strbuf_addf(&b, "\nsys_perf_event_open failed, error %d\n",
				-err);
	if (!b.oom)
		r->o.dump(r->o.dump_arg, pdc_strbuf_str(&b));
	pdc_strbuf_release(&b);
}

/* What r->missing switched off, off in ev's attr too (perf 6.1's
 * evsel__disable_missing_features before each open). */
static void disable_missing(struct rec *r, struct rec_evsel *ev)
{
	struct perf_event_attr *a = &ev->attr;

	if (!r->read_lost)
		a->read_format &= ~(uint64_t)PERF_FORMAT_LOST;
	if (r->missing.bpf)
		a->bpf_event = 0;
	if (r->missing.ksymbol)
		a->ksymbol = 0;
	if (r->missing.mmap2)
		a->mmap2 = 0;
	if (r->missing.sample_id_all)
		a->sample_id_all = 0;
}

/*
 * perf 6.1's evsel__detect_missing_features, after EINVAL: the next
 * feature ev asks for, newest first, that the kernel or the event's PMU
 * may not know (PERF_FORMAT_LOST before 6.0; an uncore, msr or power
 * PMU refusing exclude_guest), marked missing for every later open (the
 * guest exclusion for this event only), with perf -vv's line.  @return false when none is left to try.
 */
static bool detect_missing(struct rec *r, struct rec_evsel *ev)
{
	const struct perf_event_attr *a = &ev->attr;
	const char *what;

	if (r->read_lost && (a->read_format & PERF_FORMAT_LOST)) {
		r->read_lost = false;
		what = "PERF_FORMAT_LOST support";
	} else if (!r->missing.bpf && a->bpf_event) {
		r->missing.bpf = true;
		what = "bpf_event";
	} else if (!r->missing.ksymbol && a->ksymbol) {
		r->missing.ksymbol = true;
		what = "ksymbol";
	} else if (!r->missing.cloexec) {
		r->missing.cloexec = true;
		what = "cloexec flag";
	} else if (!r->missing.mmap2 && a->mmap2) {
		r->missing.mmap2 = true;
		what = "mmap2";
	} else if (a->exclude_guest || a->exclude_host) {
		/* a PMU's refusal (msr, uncore, power: the others take
		 * it), so each event's own, as perf 6.1 finds it: after
		 * its own EINVAL, said once */
		ev->attr.exclude_guest = ev->attr.exclude_host = 0;
		ev->dumped = false;
		if (r->missing.exclude_guest)
			return true;
		r->missing.exclude_guest = true;
		what = "exclude_guest, exclude_host";
	} else if (!r->missing.sample_id_all && !a->sample_id_all) {
		/* perf tries it last; a sampling capture's records need
		 * it (what they are read by), so only where unset */
		r->missing.sample_id_all = true;
		what = "sample_id_all";
	} else {
		return false;
	}
	ev->dumped = false;
	if (r->o.dump) {
		char msg[64];

		snprintf(msg, sizeof(msg), "switching off %s\n", what);
		r->o.dump(r->o.dump_arg, msg);
	}
	return true;
}

/* perf_event_open with perf's fallbacks; @return the fd or a pd_err. */
int rec_open_one(struct rec *r, size_t e, int32_t tid, int cpu, int group_fd,
		 bool *gone)
{
	struct rec_evsel *ev = &r->ev[e];

	for (;;) {
		unsigned long flags =
			r->missing.cloexec ? 0 : PERF_FLAG_FD_CLOEXEC;
		int fd, err;

		disable_missing(r, ev);
		fd = sys_perf_event_open(&ev->attr, tid, cpu, group_fd, flags);
		err = errno;
		if (r->o.dump)
			dump_open(r, ev, tid, cpu, group_fd, flags, fd, err);

		if (fd >= 0) {
			if (ev->fell_back) {
				/* perf names the event anew from the attr
				 * it opened with: "cpu-clock:pppH" */
				char mods[16];

				rec_attr_modifiers(&ev->attr, mods,
						   sizeof(mods));
				snprintf(ev->name, sizeof(ev->name),
					 "cpu-clock%s", mods);
			}
			return fd;
		}
		if (err == ESRCH && tid > 0) {
			*gone = true;
			return -1;
		}
		if (ev->precise_max && !ev->precise_spent &&
		    ev->attr.precise_ip) {
			/* perf 6.1's evsel__precise_ip_fallback, on any
			 * failure */
			ev->attr.precise_ip--;
			ev->dumped = false;
			if (r->o.dump) {
				char msg[64];

				snprintf(msg, sizeof(msg),
					 "decreasing precise_ip by one (%u)\n",
					 (unsigned)ev->attr.precise_ip);
				r->o.dump(r->o.dump_arg, msg);
			}
			continue;
		}
		if (ev->precise_max && !ev->precise_spent) {
			/* every level tried: the most precise back, for
			 * the fallback below, which tries them all again
			 * (as perf: a cpu-clock that fails on its own,
			 * with a branch stack, fails at each level) */
			ev->attr.precise_ip = 3;
			ev->precise_spent = true;
			ev->dumped = false;
		}
		if (err == EINVAL && detect_missing(r, ev))
			continue;
		if ((err == ENOENT || err == EOPNOTSUPP || err == ENODEV ||
		     err == EINVAL) &&
		    ev->fallback) {
			rlog(r, PD_LOG_INFO,
			     "'%s' is not supported here (%s): recording "
			     "cpu-clock instead, as perf does",
			     ev->name, strerror(err));
			ev->attr.type = PERF_TYPE_SOFTWARE;
			ev->attr.config = PERF_COUNT_SW_CPU_CLOCK;
			snprintf(ev->name, sizeof(ev->name), "cpu-clock");
			ev->fallback = false;
			ev->fell_back = true;
			ev->needs_pmu = false;
			ev->dumped = false;
			ev->precise_spent = false;
			continue;
		}
		if ((err == EOPNOTSUPP || err == EINVAL) &&
		    ev->attr.precise_ip && !ev->precise_max) {
			rlog(r, PD_LOG_INFO, "'%s': no precise ip here",
			     ev->name);
			ev->attr.precise_ip--;
			ev->dumped = false;
			continue;
		}
		if (err == EOPNOTSUPP &&
		    (ev->attr.sample_type & PERF_SAMPLE_BRANCH_STACK))
			return branch_stack_error(r, ev, err);
		if ((err == EACCES || err == EPERM) &&
		    user_only_fallback(r, ev))
			continue;
		if (err == EACCES || err == EPERM)
			return rec_perm_error(r, ev, err);
		if (err == EMFILE)
			return rec_errf(r, PD_ERR_IO,
				    "too many open files (%zu events x %zu "
				    "CPUs x %zu threads): raise 'ulimit -n'",
				    r->nr_ev, r->nr_cpus, r->nr_threads);
		if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV ||
		    err == EINVAL)
			return unsupported_error(r, ev, err);
		return rec_errf(r, PD_ERR_IO, "cannot open event '%s': %s",
			    ev->name, strerror(err));
	}
}

static size_t buffer_pages(struct rec *r)
{
	if (r->o.mmap_pages)
		return r->o.mmap_pages;
	/* perf's default: 512 KiB, or what perf_event_mlock_kb allows an
	 * unprivileged user (its 516 KiB less the control page) */
	return 512 * 1024 / r->page_size;
}

static int map_buffer(struct rec *r, int fd, int cpu)
{
	size_t pages = buffer_pages(r);
	size_t len = (pages + 1) * r->page_size;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	struct rbuf *b;

	if (p == MAP_FAILED) {
		if (errno == EPERM)
			return rec_errf(r, PD_ERR_IO,
				    "cannot map a %zu KiB ring buffer: over "
				    "/proc/sys/kernel/perf_event_mlock_kb; "
				    "give fewer pages with -m, or raise it",
				    pages * r->page_size / 1024);
		return rec_errf(r, PD_ERR_IO, "cannot map the ring buffer: %s",
			    strerror(errno));
	}
	b = &r->bufs[r->nr_bufs++];
	b->base = p;
	b->data_size = pages * r->page_size;
	b->cpu = cpu;
	return 0;
}

static int open_events(struct rec *r)
{
	size_t nr = r->nr_cpus * r->nr_threads * r->nr_ev;

	if (nr > MAX_FDS)
		return rec_errf(r, PD_ERR_API, "%zu events to open: too many", nr);
	r->fds = pdc_malloc(r->a, nr * sizeof(*r->fds));
	r->ids = pdc_zalloc(r->a, nr * sizeof(*r->ids));
	r->bufs = pdc_zalloc(r->a, r->nr_cpus * sizeof(*r->bufs));
	if (!r->fds || !r->ids || !r->bufs)
		return rec_errf(r, PD_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < nr; i++)
		r->fds[i] = -1;
	r->nr_fds = nr;
	r->read_lost = true;
	for (size_t c = 0; c < r->nr_cpus; c++) {
		int out = -1;

		for (size_t t = 0; t < r->nr_threads; t++) {
			for (size_t e = 0; e < r->nr_ev; e++) {
				size_t i = (c * r->nr_threads + t) * r->nr_ev + e;
				bool gone = false;
				const size_t lead = r->ev[e].leader;
				int fd = rec_open_one(r, e, r->threads[t],
						      r->cpus[c],
						      lead == e ? -1
								: r->fds[i - e +
									 lead],
						      &gone);
				int rc;

				if (gone)
					break;
				if (fd < 0)
					return fd;
				r->fds[i] = fd;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &r->ids[i]) < 0)
					return rec_errf(r, PD_ERR_IO,
						    "PERF_EVENT_IOC_ID: %s",
						    strerror(errno));
				if (out < 0) {
					rc = map_buffer(r, fd, r->cpus[c]);
					if (rc < 0)
						return rc;
					out = fd;
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT,
						 out) < 0) {
					return rec_errf(r, PD_ERR_IO,
						    "PERF_EVENT_IOC_SET_OUTPUT:"
						    " %s",
						    strerror(errno));
				}
			}
		}
	}
	for (size_t i = 0; i < nr; i++)
		if (r->fds[i] >= 0)
			return 0;
	return rec_errf(r, PD_ERR_NOTFOUND, "every thread to record has exited");
}

void rec_close_events(struct rec *r)
{
	for (size_t i = 0; i < r->nr_bufs; i++)
		munmap(r->bufs[i].base,
		       r->bufs[i].data_size + r->page_size);
	for (size_t i = 0; i < r->nr_fds; i++)
		if (r->fds[i] >= 0)
			close(r->fds[i]);
}

void rec_ioctl_all(struct rec *r, unsigned long req)
{
	for (size_t i = 0; i < r->nr_fds; i++)
		if (r->fds[i] >= 0)
			(void)ioctl(r->fds[i], req, 0);
}

/* ---- the records read ----------------------------------------------- */

static uint64_t ld64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t ld32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* The sample type of the event whose fd has id (PERF_SAMPLE_IDENTIFIER
 * samples; they differ where a tracepoint or a group reads more). */
/* The words of a read's times (TOTAL_TIME_ENABLED, _RUNNING: -s), and
 * of each counter's value, id and lost in it. */
static size_t read_time_words(uint64_t read_format)
{
	return !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
	       !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
}

static size_t read_entry_words(uint64_t read_format)
{
	return 1 + !!(read_format & PERF_FORMAT_ID) +
	       !!(read_format & PERF_FORMAT_LOST);
}

static uint64_t event_sample_type(const struct rec *r, uint64_t id)
{
	for (size_t i = 0; i < r->nr_fds; i++)
		if (r->fds[i] >= 0 && r->ids[i] == id)
			return r->ev[i % r->nr_ev].attr.sample_type;
	return r->sample_type;
}

/* The binaries a sample's branch stack at q went from and to (perf
 * marks them hit too, for their build-ids).  An entry has no CPU mode:
 * the kernel's addresses are the upper half. */
static void note_branches(struct rec *r, int32_t pid, const unsigned char *q,
			  const unsigned char *end)
{
	const uint64_t bst = r->o.branch_sample_type;
	/* -b/-j's filter, else --call-graph lbr's, which has hw_index */
	const bool hw_index = bst ? (bst & PERF_SAMPLE_BRANCH_HW_INDEX) != 0
				  : r->o.call_graph == PDA_REC_CG_LBR;
	uint64_t nr = ld64(q);

	q += 8 + 8 * hw_index;
	if (q > end || nr > (uint64_t)(end - q) / 24)
		return;
	for (uint64_t i = 0; i < nr; i++, q += 24)
		for (int j = 0; j < 2; j++) {
			uint64_t a = ld64(q + 8 * j);

			rec_dsos_hit(r->dsos, pid, a, (int64_t)a < 0);
		}
}

/* A sample's time, and the binaries its ip and callchain fell in. */
static void note_sample(struct rec *r, const unsigned char *p, size_t size,
			uint16_t misc)
{
	const unsigned char *end = p + size, *q = p + 8;
	uint64_t st = r->sample_type, ip = 0, time = 0;
	int32_t pid = 0;
	bool kernel = (misc & PD_MISC_CPUMODE_MASK) == PD_MISC_KERNEL;

	r->st->nr_samples++;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		if (q + 8 > end)
			return;
		st = event_sample_type(r, ld64(q));
		q += 8;
	}
	if (q + 24 > end)
		return;
	ip = ld64(q), q += 8;
	pid = (int32_t)ld32(q), q += 8;
	time = ld64(q), q += 8;
	q += 8 * (!!(st & PERF_SAMPLE_ADDR) + !!(st & PERF_SAMPLE_ID) +
		  !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_PERIOD));
	if ((st & PERF_SAMPLE_READ) && q + 8 <= end) {
		/* leader sampling: nr, the times (-s), then nr values with
		 * id and lost */
		const uint64_t rf = r->ev[0].attr.read_format;
		const uint64_t entry = 8 * read_entry_words(rf);
		const uint64_t nr = ld64(q);

		q += 8 * (1 + read_time_words(rf));
		if (q > end || nr > (uint64_t)(end - q) / entry)
			return;
		q += nr * entry;
	}
	if (time && (!r->first_time || time < r->first_time))
		r->first_time = time;
	if (time > r->last_time)
		r->last_time = time;
	rec_dsos_hit(r->dsos, pid, ip, kernel);
	if ((st & PERF_SAMPLE_CALLCHAIN) && q + 8 <= end) {
		uint64_t nr = ld64(q);
		bool k = kernel;

		q += 8;
		for (uint64_t i = 0; i < nr && q + 8 <= end; i++, q += 8) {
			uint64_t a = ld64(q);

			if (a == PERF_CONTEXT_KERNEL_MARK)
				k = true;
			else if (a == PERF_CONTEXT_USER_MARK)
				k = false;
			else if (i > 0 || a != ip)
				rec_dsos_hit(r->dsos, pid, a, k);
		}
	}
	if ((st & PERF_SAMPLE_RAW) && q + 4 <= end)
		q += 4 + ld32(q);
	if ((st & PERF_SAMPLE_BRANCH_STACK) && q + 8 <= end)
		note_branches(r, pid, q, end);
}

/* What the records of one read say that the end of the run needs. */
static int note_records(struct rec *r, const unsigned char *p, size_t len)
{
	size_t off = 0;

	while (off + 8 <= len) {
		uint32_t type = ld32(p + off);
		uint16_t misc, size;
		const unsigned char *q = p + off;
		bool kernel;

		memcpy(&misc, q + 4, 2);
		memcpy(&size, q + 6, 2);
		if (size < 8 || off + size > len)
			break; /* the kernel's own: cannot happen */
		kernel = (misc & PD_MISC_CPUMODE_MASK) == PD_MISC_KERNEL;
		switch (type) {
		case PERF_RECORD_SAMPLE:
			note_sample(r, q, size, misc);
			break;
		case PERF_RECORD_MMAP2:
			if (size > 72 && !(misc & PD_MISC_MMAP_DATA) &&
			    rec_dsos_map(r->dsos, (int32_t)ld32(q + 8),
					 ld64(q + 16), ld64(q + 24),
					 (const char *)q + 72, kernel) < 0)
				return PD_ERR_NOMEM;
			break;
		case PERF_RECORD_MMAP:
			if (size > 40 && !(misc & PD_MISC_MMAP_DATA) &&
			    rec_dsos_map(r->dsos, (int32_t)ld32(q + 8),
					 ld64(q + 16), ld64(q + 24),
					 (const char *)q + 40, kernel) < 0)
				return PD_ERR_NOMEM;
			break;
		case PERF_RECORD_FORK:
			if (size >= 24 &&
			    rec_dsos_fork(r->dsos, (int32_t)ld32(q + 8),
					  (int32_t)ld32(q + 12)) < 0)
				return PD_ERR_NOMEM;
			break;
		case PERF_RECORD_LOST:
			/* the counters' lost field counts the same samples
			 * again, read at the end (lost_samples()) where the
			 * kernel has it */
			if (size >= 24) {
				if (!r->read_lost)
					r->st->nr_lost += ld64(q + 16);
				r->st->nr_lost_recs++;
			}
			break;
		default:
			break;
		}
		off += size;
	}
	return 0;
}

/* Copy one ring buffer's new records into the capture.  @return the
 * bytes read, or a negative pd_err. */
static long long read_buffer(struct rec *r, struct rbuf *b)
{
	struct perf_event_mmap_page *pg = (void *)b->base;
	const unsigned char *data = b->base + r->page_size;
	/* the kernel's protocol (perf_event_open(2)): read data_head, then
	 * a barrier before the data; a barrier after it, then data_tail */
	/* the kernel's protocol (perf_event_open(2)): head read with
	 * acquire before the data, tail stored with release after it; C11
	 * atomics on the page's fields, which ThreadSanitizer understands
	 * where it does not support fences */
	uint64_t head = atomic_load_explicit(
		(_Atomic uint64_t *)(uintptr_t)&pg->data_head,
		memory_order_acquire);
	uint64_t tail = pg->data_tail;
	size_t len = (size_t)(head - tail), at = (size_t)(tail % b->data_size);
	size_t first = len < b->data_size - at ? len : b->data_size - at;
	int rc;

	if (len == 0)
		return 0;
	memcpy(r->copy, data + at, first);
	memcpy(r->copy + first, data, len - first);
	/* the kernel may write again once the tail has moved */
	atomic_store_explicit((_Atomic uint64_t *)(uintptr_t)&pg->data_tail,
			      head, memory_order_release);
	rc = note_records(r, r->copy, len);
	if (rc == 0)
		rc = pd_writer_data(r->w, r->copy, len);
	if (rc < 0)
		return rc;
	return (long long)len;
}

/* Every buffer once, then a FINISHED_ROUND when anything was read. */
static int read_all(struct rec *r)
{
	bool any = false;

	for (size_t i = 0; i < r->nr_bufs; i++) {
		long long n = read_buffer(r, &r->bufs[i]);

		if (n < 0)
			return (int)n;
		any |= n > 0;
	}
	if (any) {
		r->st->nr_wakeups++;
		return pd_writer_round(r->w);
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

bool rec_workload_exited(struct rec *r)
{
	if (!r->child || r->child_done)
		return r->child_done;
	if (waitpid(r->child, &r->st->workload_status, WNOHANG) == r->child)
		r->child_done = true;
	return r->child_done;
}

/* Poll until the workload ends, the targets all exit, the time is up or
 * the caller asks to stop. */
static int record_loop(struct rec *r)
{
	struct pollfd *pfd = pdc_malloc(r->a, r->nr_fds * sizeof(*pfd));
	double end = r->o.duration > 0 ? now() + r->o.duration : 0;
	size_t nr_pfd = 0;
	int rc = 0;

	if (!pfd)
		return rec_errf(r, PD_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < r->nr_fds; i++)
		if (r->fds[i] >= 0) {
			pfd[nr_pfd].fd = r->fds[i];
			pfd[nr_pfd].events = POLLIN;
			nr_pfd++;
		}
	for (;;) {
		bool stop = r->o.stop && *r->o.stop;
		size_t hup = 0;

		if (end && now() >= end)
			stop = true;
		if (r->child && rec_workload_exited(r))
			break;
		if (stop)
			break;
		if (poll(pfd, nr_pfd, POLL_MS) < 0 && errno != EINTR) {
			rc = rec_errf(r, PD_ERR_IO, "poll: %s", strerror(errno));
			break;
		}
		rc = read_all(r);
		if (rc < 0)
			break;
		for (size_t i = 0; i < nr_pfd; i++)
			hup += (pfd[i].revents & POLLHUP) != 0;
		/* -p, -t: every thread recorded has exited */
		if (!r->child && !r->o.system_wide && !r->o.cpus &&
		    hup == nr_pfd)
			break;
	}
	pdc_free(r->a, pfd);
	return rc;
}

/* A LOST_SAMPLES record: lost samples of the counter with id on cpu. */
static int write_lost(struct rec *r, uint32_t cpu, uint64_t id, uint64_t lost)
{
	unsigned char rec[8 + 8 + 40];
	const size_t size = 16 + r->id_hdr_size;
	const uint32_t type = PERF_RECORD_LOST_SAMPLES;
	const uint16_t sz = (uint16_t)size;
	size_t off = 16;

	memset(rec, 0, sizeof(rec));
	memcpy(rec, &type, 4);
	memcpy(rec + 6, &sz, 2);
	memcpy(rec + 8, &lost, 8);
	/* sample_id_all: pid, tid, time, [id], [cpu, res], [identifier] */
	off += 16;
	if (r->sample_type & PERF_SAMPLE_ID) {
		memcpy(rec + off, &id, 8);
		off += 8;
	}
	if (r->sample_type & PERF_SAMPLE_CPU) {
		memcpy(rec + off, &cpu, 4);
		off += 8;
	}
	if (r->sample_type & PERF_SAMPLE_IDENTIFIER)
		memcpy(rec + off, &id, 8);
	r->st->nr_lost += lost;
	return pd_writer_data(r->w, rec, size);
}

/* perf 6.1's record__read_lost_samples: each counter's lost samples as a
 * LOST_SAMPLES record with the counter's id.  A group's counters are
 * read together, from the leader (perf 6.1 reads them as single counters
 * and fails: "read LOST count failed"). */
static int lost_samples(struct rec *r)
{
	for (size_t i = 0; r->read_lost && i < r->nr_fds; i++) {
		const size_t e = i % r->nr_ev;
		const uint32_t cpu =
			(uint32_t)r->cpus[i / (r->nr_threads * r->nr_ev)];
		const uint64_t rf = r->ev[e].attr.read_format;
		const size_t times = read_time_words(rf);
		uint64_t v[3 + 3 * REC_MAX_EVENTS];
		ssize_t n;
		int rc = 0;

		if (r->fds[i] < 0 || r->ev[e].leader != e)
			continue;
		n = read(r->fds[i], v, sizeof(v));
		if (!(rf & PERF_FORMAT_GROUP)) {
			/* value, the times (-s), id, lost */
			if (n == (ssize_t)(8 * (times + 3)) && v[times + 2])
				rc = write_lost(r, cpu, r->ids[i],
						v[times + 2]);
		} else if (n >= 8 && v[0] <= REC_MAX_EVENTS &&
			   (size_t)n >= 8 * (1 + times + 3 * v[0])) {
			/* nr, the times, then value, id, lost of each */
			const uint64_t *m = v + 1 + times;

			for (uint64_t k = 0; rc == 0 && k < v[0]; k++)
				if (m[3 * k + 2])
					rc = write_lost(r, cpu, m[3 * k + 1],
							m[3 * k + 2]);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int write_synthesized(struct rec *r)
{
	struct rec_synth s = {.a = r->a, .id_hdr_size = r->id_hdr_size,
			      .mmap_data = r->ev[0].attr.mmap_data ||
					   r->ev[r->nr_ev - 1].attr.mmap_data,
			      .dsos = r->dsos};
	int rc;

	pdc_strbuf_init(&s.out, r->a, NULL, 0);
	/* perf 6.1's order (record__synthesize): the id index, the
	 * kernel's maps, the events' units, scales and (in a pipe) names,
	 * the thread and CPU maps, then the processes */
	rec_synth_id_index(r, &s.out);
	rc = rec_synth_kernel(&s);
	if (rc == 0) {
		rec_synth_event_updates(r, &s.out);
		rec_synth_thread_map(r, &s.out, false);
		rec_synth_cpu_map(&s.out, r->cpus, r->nr_cpus);
	}
	if (rc == 0 && r->o.system_wide) {
		DIR *d = opendir("/proc");
		struct dirent *de;

		while (d && rc == 0 && (de = readdir(d)) != NULL) {
			if (de->d_name[0] < '1' || de->d_name[0] > '9')
				continue;
			rc = rec_synth_process(&s, (int32_t)strtol(de->d_name,
								  NULL, 10));
			if (rc == PD_ERR_NOTFOUND)
				rc = 0; /* it exited meanwhile */
		}
		if (d)
			closedir(d);
	} else if (rc == 0 && !r->child) {
		/* -p, -t: the processes of the threads recorded */
		int32_t done[64];
		size_t nr_done = 0;

		for (size_t t = 0; rc == 0 && t < r->nr_threads; t++) {
			char path[64], line[128];
			int32_t tgid = r->threads[t];
			bool seen = false;
			FILE *fp;

			snprintf(path, sizeof(path), "/proc/%d/status", tgid);
			fp = fopen(path, "re");
			while (fp && fgets(line, sizeof(line), fp))
				if (strncmp(line, "Tgid:\t", 6) == 0)
					tgid = (int32_t)strtol(line + 6, NULL,
							       10);
			if (fp)
				fclose(fp);
			for (size_t i = 0; i < nr_done && !seen; i++)
				seen = done[i] == tgid;
			if (seen)
				continue;
			if (nr_done < 64)
				done[nr_done++] = tgid;
			rc = rec_synth_process(&s, tgid);
			if (rc == PD_ERR_NOTFOUND)
				rc = 0;
		}
	}
	/* perf 6.1 names the workload before its exec (a COMM of
	 * "perf-exec"): samples ahead of the exec's COMM get a name */
	if (rc == 0 && r->child)
		rc = rec_synth_comm(&s, r->child);
	if (rc == 0 && s.out.oom)
		rc = PD_ERR_NOMEM;
	if (rc == 0 && s.out.len)
		rc = pd_writer_data(r->w, s.out.p, s.out.len);
	pdc_strbuf_release(&s.out);
	if (rc == 0) {
		/* perf 6.1: the end of what was synthesized */
		unsigned char h[8] = {0};
		uint32_t type = PD_REC_FINISHED_INIT;
		uint16_t size = 8;

		memcpy(h, &type, 4);
		memcpy(h + 6, &size, 2);
		rc = pd_writer_raw(r->w, h, sizeof(h));
	}
	return rc;
}

int rec_event_desc(struct rec *r)
{
	struct pdc_strbuf b;
	int rc;

	pdc_strbuf_init(&b, r->a, NULL, 0);
	pd_feat_u32(&b, (uint32_t)r->nr_ev);
	pd_feat_u32(&b, sizeof(struct perf_event_attr));
	for (size_t e = 0; e < r->nr_ev; e++) {
		uint32_t n = 0;

		pdc_strbuf_add(&b, &r->ev[e].attr, sizeof(r->ev[e].attr));
		for (size_t i = e; i < r->nr_fds; i += r->nr_ev)
			n += r->fds[i] >= 0;
		pd_feat_u32(&b, n);
		pd_feat_string(&b, r->ev[e].name);
		for (size_t i = e; i < r->nr_fds; i += r->nr_ev)
			if (r->fds[i] >= 0)
				pd_feat_u64(&b, r->ids[i]);
	}
	rc = b.oom ? PD_ERR_NOMEM
		   : pd_writer_feature(r->w, PD_FEAT_EVENT_DESC, b.p, b.len);
	pdc_strbuf_release(&b);
	return rc;
}

int rec_add_events(struct rec *r)
{
	uint64_t *ids = pdc_malloc(r->a, (r->nr_fds + 1) * sizeof(*ids));
	int rc = 0;

	if (!ids)
		return rec_errf(r, PD_ERR_NOMEM, "out of memory");
	for (size_t e = 0; rc == 0 && e < r->nr_ev; e++) {
		size_t n = 0;

		for (size_t i = e; i < r->nr_fds; i += r->nr_ev)
			if (r->fds[i] >= 0)
				ids[n++] = r->ids[i];
		rc = pd_writer_add_event(r->w, &r->ev[e].attr,
					 sizeof(r->ev[e].attr), r->ev[e].name,
					 ids, n);
	}
	pdc_free(r->a, ids);
	return rc;
}

/* GROUP_DESC (format.md §4.17) as perf 6.1 writes it: the groups of
 * more than one event, each "{anon_group}", its leader's index and its
 * size. */
int rec_group_desc(struct rec *r)
{
	struct pdc_strbuf b;
	uint32_t nr = 0;
	int rc;

	for (size_t e = 0; e < r->nr_ev; e++)
		nr += r->ev[e].leader == e && r->ev[e].nr_members > 1;
	if (!nr)
		return 0;
	pdc_strbuf_init(&b, r->a, NULL, 0);
	pd_feat_u32(&b, nr);
	for (size_t e = 0; e < r->nr_ev; e++) {
		if (r->ev[e].leader != e || r->ev[e].nr_members < 2)
			continue;
		pd_feat_string(&b, "{anon_group}");
		pd_feat_u32(&b, (uint32_t)e);
		pd_feat_u32(&b, r->ev[e].nr_members);
	}
	rc = b.oom ? PD_ERR_NOMEM
		   : pd_writer_feature(r->w, PD_FEAT_GROUP_DESC, b.p, b.len);
	pdc_strbuf_release(&b);
	return rc;
}

static int end_features(struct rec *r)
{
	struct pdc_strbuf b;
	int rc = 0;

	if (!r->o.pipe)
		rc = rec_event_desc(r);
	pdc_strbuf_init(&b, r->a, NULL, 0);
	r->st->nr_build_ids = rec_dsos_build_ids(r->dsos, &b);
	if (rc == 0 && !b.oom)
		rc = pd_writer_feature(r->w, PD_FEAT_BUILD_ID, b.p, b.len);
	pdc_strbuf_release(&b);
	if (rc == 0 && !r->o.pipe) {
		pdc_strbuf_init(&b, r->a, NULL, 0);
		pd_feat_u64(&b, r->first_time);
		pd_feat_u64(&b, r->last_time);
		rc = b.oom ? PD_ERR_NOMEM
			   : pd_writer_feature(r->w, PD_FEAT_SAMPLE_TIME, b.p,
					       b.len);
		pdc_strbuf_release(&b);
	}
	return rc;
}

static int setup(struct rec *r)
{
	const struct pda_record_opts *o = &r->o;
	int rc;

	if (o->mmap_pages & (o->mmap_pages - 1))
		return rec_errf(r, PD_ERR_API,
			    "-m %u: the pages must be a power of two",
			    o->mmap_pages);
	rc = rec_parse_events(o->events ? o->events : "cycles", "/sys", r->ev,
			      REC_MAX_EVENTS, &r->nr_ev, r->err, r->err_size);
	if (rc < 0)
		return rc;
	if (!o->events) {
		/* perf's default is cycles:P, of user space alone where the
		 * kernel may not be profiled (evsel__new_cycles) */
		r->ev[0].fallback = true;
		r->ev[0].precise_max = true;
		r->ev[0].attr.precise_ip = 3;
		if (!can_profile_kernel()) {
			r->ev[0].attr.exclude_kernel = 1;
			snprintf(r->ev[0].name, sizeof(r->ev[0].name),
				 "cycles:u");
		}
	}
	if ((o->system_wide || o->cpus) && r->nr_ev < REC_MAX_EVENTS) {
		/* perf 6.1 (record__open's evlist__add_dummy_on_all_cpus):
		 * whole CPUs get a dummy event, enabled at once, that
		 * carries the side band (maps, comms, switches) */
		struct rec_evsel *d = &r->ev[r->nr_ev];

		memset(d, 0, sizeof(*d));
		d->attr.type = PERF_TYPE_SOFTWARE;
		d->attr.config = PERF_COUNT_SW_DUMMY;
		d->attr.exclude_kernel = d->attr.exclude_user = 0;
		snprintf(d->name, sizeof(d->name), "dummy:HG");
		d->leader = r->nr_ev;
		d->nr_members = 1;
		d->tracking = true;
		r->nr_ev++;
	}
	rc = rec_targets(r);
	if (rc < 0)
		return rc;
	rc = config_events(r);
	if (rc == 0)
		rc = open_events(r);
	if (rc < 0)
		return rc;
	r->copy = pdc_malloc(r->a, buffer_pages(r) * r->page_size);
	r->dsos = rec_dsos_new(r->a);
	if (!r->copy || !r->dsos)
		return rec_errf(r, PD_ERR_NOMEM, "out of memory");
	return 0;
}

int rec_targets(struct rec *r)
{
	const struct pda_record_opts *o = &r->o;
	int targets = !!o->argv + !!o->pids + !!o->tids;
	size_t alloc = 0;
	int rc;

	if (targets > 1 || (targets == 0 && !o->system_wide && !o->cpus))
		return rec_errf(r, PD_ERR_API,
				"give one of a command, -p, -t, or -a/-C");
	if ((o->pids || o->tids) && (o->system_wide || o->cpus))
		return rec_errf(r, PD_ERR_API,
				"-p and -t do not go with -a or -C");
	rc = online_cpus(r, o->cpus);
	if (rc < 0)
		return rc;
	if (o->system_wide || o->cpus)
		rc = add_thread(r, &alloc, -1);
	else if (o->argv)
		rc = fork_workload(r);
	else if (o->pids)
		rc = pid_threads(r);
	else
		rc = tid_threads(r);
	if (rc == 0 && o->argv && (o->system_wide || o->cpus))
		rc = fork_workload(r); /* runs while the CPUs are recorded */
	return rc;
}

static int write_capture(struct rec *r)
{
	PD_WRITER_OPTS(wo, .pipe = r->o.pipe, .zstd_level = r->o.zstd_level,
		       .zstd_mmap_len = (uint32_t)(buffer_pages(r) *
						   r->page_size),
		       .alloc = r->a, .pipe_no_names = true);
	int rc, wrc;

	if (r->o.out_fd < 0) {
		r->o.out_fd = r->o.open_out(r->o.open_out_arg);
		if (r->o.out_fd < 0)
			return rec_errf(r, PD_ERR_IO, "cannot open the output: %s",
				    strerror(errno));
	}
	rc = pd_writer_new(r->o.out_fd, &wo, &r->w);
	if (rc < 0)
		return rec_errf(r, rc, "cannot start the capture: %s",
			    pd_strerror(rc));
	rc = rec_add_events(r);
	if (rc == 0)
		rc = rec_host_features(r->w, &r->o, r->a);
	/* known before the data: a pipe's features come first */
	if (rc == 0)
		rc = rec_group_desc(r);
	/* perf 6.1 writes BRANCH_STACK, empty, for -b and -j (perf report
	 * takes it for branch mode), in a file only (never synthesized) */
	if (rc == 0 && r->o.branch_sample_type && !r->o.pipe)
		rc = pd_writer_feature(r->w, PD_FEAT_BRANCH_STACK, NULL, 0);
	for (size_t e = 0; rc == 0 && !r->o.pipe && e < r->nr_ev; e++)
		if (r->ev[e].tracepoint) {
			rc = rec_tracing_data(r);
			break;
		}
	if (rc == 0)
		rc = pd_writer_begin(r->w);
	if (rc == 0)
		rc = write_synthesized(r);
	if (rc == 0 && r->child)
		rc = rec_start_workload(r);
	else if (rc == 0)
		rec_ioctl_all(r, PERF_EVENT_IOC_ENABLE);
	if (r->child && (r->o.system_wide || r->o.cpus))
		rec_ioctl_all(r, PERF_EVENT_IOC_ENABLE);
	if (rc == 0)
		rc = record_loop(r);
	rec_ioctl_all(r, PERF_EVENT_IOC_DISABLE);
	if (r->child && !r->child_done) {
		/* stopped first: the workload goes, as perf ends it */
		kill(r->child, SIGTERM);
		waitpid(r->child, &r->st->workload_status, 0);
		r->child_done = true;
	}
	if (rc == 0 || rc == PD_ERR_IO)
		(void)read_all(r);
	if (rc == 0)
		rc = lost_samples(r);
	if (rc == 0 || pd_writer_errno(r->w))
		(void)end_features(r);
	wrc = pd_writer_finish(r->w);
	r->st->bytes = pd_writer_data_size(r->w);
	r->st->bytes_raw = pd_writer_data_raw(r->w);
	if (pd_writer_errno(r->w)) {
		r->st->write_failed = true;
		r->st->write_errno = pd_writer_errno(r->w);
		return rec_errf(r, PD_ERR_IO, "%s", pd_writer_errmsg(r->w));
	}
	if (rc == 0 && wrc < 0)
		return rec_errf(r, wrc, "%s", pd_writer_errmsg(r->w));
	if (rc < 0 && r->err && !r->err[0])
		rec_errf(r, rc, "%s", pd_writer_errmsg(r->w));
	return rc;
}

int pda_record_run(const struct pda_record_opts *opts,
		   struct pda_record_stats *stats, char *errbuf,
		   size_t errbuf_size)
{
	struct rec *r;
	int rc;

	memset(stats, 0, sizeof(*stats));
	if (errbuf && errbuf_size)
		errbuf[0] = '\0';
	if (!opts)
		return PD_ERR_API;
	r = pdc_zalloc(opts->sz >= offsetof(struct pda_record_opts, alloc) +
				       sizeof(opts->alloc)
			       ? opts->alloc
			       : NULL,
		       sizeof(*r));
	if (!r)
		return PD_ERR_NOMEM;
	r->err = errbuf;
	r->err_size = errbuf_size;
	r->go_fd = r->err_fd = -1;
	r->st = stats;
	if (pdc_opts_copy(&r->o, sizeof(r->o), opts) < 0 ||
	    (r->o.out_fd < 0 && !r->o.open_out)) {
		pdc_free(opts->alloc, r);
		return PD_ERR_API;
	}
	r->a = r->o.alloc;
	r->page_size = (size_t)sysconf(_SC_PAGESIZE);
	if (r->o.stat)
		rc = rec_stat_run(r);
	else if ((rc = setup(r)) == 0)
		rc = write_capture(r);
	stats->nr_events = (unsigned)r->nr_ev;
	if (r->nr_ev)
		snprintf(stats->first_event, sizeof(stats->first_event), "%s",
			 r->ev[0].name);
	if (r->child && !r->child_done) {
		if (r->go_fd >= 0)
			close(r->go_fd); /* the child exits, never run */
		waitpid(r->child, &stats->workload_status, 0);
	}
	if (r->err_fd >= 0)
		close(r->err_fd);
	rec_close_events(r);
	pd_writer_free(r->w);
	rec_dsos_free(r->dsos);
	pdc_free(r->a, r->copy);
	pdc_free(r->a, r->cpus);
	pdc_free(r->a, r->threads);
	pdc_free(r->a, r->fds);
	pdc_free(r->a, r->ids);
	pdc_free(r->a, r->bufs);
	pdc_free(r->a, r);
	return rc;
}
