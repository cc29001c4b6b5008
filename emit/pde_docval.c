/*
 * pde_docval.c - the profile report's Coverage (what could not be read,
 * resolved or unwound, each with its fix) and Validation (the perf
 * command lines that measure the findings again on the recording
 * host's architecture) sections; pde_doc.c has the others.
 */
#include "pde_doc_int.h"
#include "pda_metrics.h"
#include "pda_session.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- Coverage ---------------------------------------------------------- */

/* What would let the unwinding go on, per reason it stopped. */
static const char *unwind_fix(unsigned why)
{
	switch (why) {
	case PDA_UNWIND_STACK_SHORT:
		return "record a larger stack dump: perf record --call-graph "
		       "dwarf,65528";
	case PDA_UNWIND_NO_CFI:
	case PDA_UNWIND_BAD_CFI:
		return "build with -fasynchronous-unwind-tables (or record "
		       "with --call-graph fp and -fno-omit-frame-pointer)";
	case PDA_UNWIND_NO_BINARY:
		return "give the binary: --symfs, or perf archive on the "
		       "recording host and --archive here";
	case PDA_UNWIND_NO_MAP:
		return "JIT code: have the runtime write /tmp/perf-PID.map "
		       "(e.g. -XX:+PreserveFramePointer with perf-map-agent)";
	case PDA_UNWIND_NO_STACK:
	case PDA_UNWIND_NO_REGS:
		return "record with --call-graph dwarf";
	case PDA_UNWIND_NO_ARCH:
		return "record with --call-graph fp on this architecture";
	default:
		return "";
	}
}

static void unresolved_table(struct docw *w, const struct pda_stats *ps)
{
	static const char *const heads[] = {"Binary", "Samples", "Share",
					    "Reason", "Fix"};
	static const char *const keys[] = {"binary", "samples", "share",
					   "reason", "fix"};

	docw_table(w, "unresolved", 5, heads, keys, "lrrll");
	for (size_t i = 0; i < ps->nr_unresolved_dsos; i++) {
		const struct pda_missing_dso *m = &ps->unresolved_dsos[i];
		char why[1024];

		snprintf(why, sizeof(why), "%s%s%s%s",
			 pda_unres_reason_name(m->reason),
			 m->detail ? " (" : "", m->detail ? m->detail : "",
			 m->detail ? ")" : "");
		docw_row(w);
		docw_cell_code(w, m->dso);
		docw_cell_u64(w, m->nr_unresolved);
		docw_cell_scaled(w, (double)m->nr_unresolved /
					    (double)ps->nr_samples,
				 100.0, 2, "%");
		docw_cell_text(w, why);
		docw_cell_text(w, m->action ? m->action : "");
		docw_row_end(w);
	}
	docw_table_end(w);
}

static void unwind_table(struct docw *w, const struct pda_unwind_stats *u)
{
	static const char *const heads[] = {"Stopped in", "Samples", "Share",
					    "Why", "Fix"};
	static const char *const keys[] = {"dso", "samples", "share", "why",
					   "fix"};

	docw_table(w, "unwinding_stopped", 5, heads, keys, "lrrll");
	for (size_t i = 0; i < u->nr_stopped_dsos; i++) {
		const struct pda_unwind_stopped *s = &u->stopped_dsos[i];

		docw_row(w);
		docw_cell_code(w, s->dso ? s->dso : "[unknown]");
		docw_cell_u64(w, s->nr_samples);
		docw_cell_scaled(w, (double)s->nr_samples /
					    (double)u->nr_samples,
				 100.0, 2, "%");
		docw_cell_text(w, pda_unwind_stop_name(s->why));
		docw_cell_text(w, unwind_fix(s->why));
		docw_row_end(w);
	}
	docw_table_end(w);
}

void pde_doc_coverage(struct docw *w, const struct pde_doc *d)
{
	const struct pde_doc_counts *cs = &d->counts;
	const struct pda_stats *ps = d->ps;

	if (!d->has_counts)
		return;
	docw_section(w, "coverage", "Coverage");
	docw_source(w, "What of %s could not be read, resolved or unwound, "
		       "and what would fix it.",
		    d->capture);
	docw_field_u64(w, "samples", "Samples", cs->nr_samples, NULL);
	docw_field_u64(w, "lost_samples", "Lost samples", cs->lost, NULL);
	docw_field_u64(w, "undecodable_samples", "Samples that did not decode",
		       cs->nr_bad_samples, NULL);
	docw_field_u64(w, "stack_errors", "Stacks that did not resolve",
		       cs->nr_stack_errors, NULL);
	if (ps) {
		docw_field_u64(w, "samples_unresolved",
			       "Samples with an unresolved frame",
			       ps->nr_samples_unresolved, NULL);
		docw_field_u64(w, "binaries_not_found", "Binaries not found",
			       ps->nr_missing, NULL);
	}
	if (ps && ps->unwind.nr_samples)
		docw_field_u64(w, "unwinding_stopped",
			       "DWARF unwinds stopped early",
			       ps->unwind.nr_stopped, NULL);
	if (cs->bytes_missing)
		docw_field_u64(w, "bytes_missing",
			       "Bytes missing (the capture is cut short)",
			       cs->bytes_missing, NULL);
	if (cs->lost)
		docw_note(w, "%" PRIu64 " samples were lost: the ring buffer "
			     "filled faster than perf drained it.  Fix: a larger "
			     "buffer (perf record -m 1024), a lower frequency "
			     "(-F), or fewer events at once.",
			  cs->lost);
	if (cs->bytes_missing)
		docw_note(w, "The capture is cut short: perf was stopped "
			     "before it finished writing, or the copy was "
			     "truncated.  Fix: stop perf record with Ctrl-C "
			     "or kill -INT and copy the file again.");
	if (ps && ps->nr_unresolved_dsos && ps->nr_samples)
		unresolved_table(w, ps);
	else if (ps && ps->nr_samples_unresolved)
		docw_note(w, "%" PRIu64 " samples have a frame in no map the "
			     "capture recorded, so no binary can name it: JIT "
			     "code without a /tmp/perf-PID.map, or a process "
			     "whose maps perf did not record (started before "
			     "perf record -p, or a short-lived child).  Fix: "
			     "have the runtime write perf-PID.map, or record "
			     "the command from its start.",
			  ps->nr_samples_unresolved);
	if (ps && ps->unwind.nr_stopped && ps->unwind.nr_stopped_dsos)
		unwind_table(w, &ps->unwind);
	if (!cs->lost && !cs->nr_bad_samples && !cs->nr_stack_errors &&
	    !cs->bytes_missing &&
	    (!ps || (!ps->nr_samples_unresolved && !ps->unwind.nr_stopped)))
		docw_note(w, "Every sample was read and every frame resolved.");
	docw_section_end(w);
}

/* ---- Validation -------------------------------------------------------- */

/* perf record's options that take their argument as the next word. */
static bool takes_arg(const char *opt)
{
	static const char *const longs[] = {
		"--event",	    "--freq",	       "--count",
		"--output",	    "--cpu",	       "--pid",
		"--tid",	    "--mmap-pages",    "--uid",
		"--cgroup",	    "--branch-filter", "--realtime",
		"--delay",	    "--call-graph",    "--clockid",
		"--affinity",	    "--max-size",      "--filter",
		"--exclude-perf",   "--control",       "--switch-output-event",
		"--num-thread-synthesize",
	};

	if (opt[1] != '-') {
		/* a cluster: the first letter that takes an argument ends
		 * it, and takes the next word when it is the last */
		for (const char *p = opt + 1; *p; p++)
			if (strchr("eFcoCptmuGjrD", *p))
				return p[1] == '\0';
		return false;
	}
	if (strchr(opt, '='))
		return false;
	for (size_t i = 0; i < sizeof(longs) / sizeof(longs[0]); i++)
		if (strcmp(opt, longs[i]) == 0)
			return true;
	return false;
}

/*
 * The recorded command's target, to measure again: the workload after
 * perf record's options (or after "--"), else its -a/-p/-t/-C options.
 * @return whether the command line said.
 */
static bool target_of(const struct pd_env *env, struct pdc_strbuf *b)
{
	struct pdc_strbuf opts;
	char small[256];
	uint32_t i = 2;
	bool found = false;

	if (!env || env->nr_cmdline < 2)
		return false;
	pdc_strbuf_init(&opts, NULL, small, sizeof(small));
	for (; i < env->nr_cmdline; i++) {
		const char *a = env->cmdline[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (strcmp(a, "-a") == 0 || strcmp(a, "--all-cpus") == 0) {
			pdc_strbuf_add(&opts, " -a", 3);
			found = true;
		}
		if ((strcmp(a, "-p") == 0 || strcmp(a, "-t") == 0 ||
		     strcmp(a, "-C") == 0 || strcmp(a, "--pid") == 0 ||
		     strcmp(a, "--tid") == 0 || strcmp(a, "--cpu") == 0) &&
		    i + 1 < env->nr_cmdline) {
			pdc_strbuf_addf(&opts, " %s ", a);
			docw_shell_arg(&opts, env->cmdline[i + 1]);
			found = true;
		}
		if (takes_arg(a))
			i++;
	}
	pdc_strbuf_add(b, pdc_strbuf_str(&opts), opts.len);
	pdc_strbuf_release(&opts);
	if (i < env->nr_cmdline) {
		pdc_strbuf_add(b, " --", 3);
		for (; i < env->nr_cmdline; i++) {
			pdc_strbuf_add(b, " ", 1);
			docw_shell_arg(b, env->cmdline[i]);
		}
		return true;
	}
	if (found)
		pdc_strbuf_add(b, " -- sleep 10", 12);
	return found;
}

enum host_kind { HOST_ARM, HOST_ARM_SLOTS, HOST_INTEL, HOST_AMD, HOST_OTHER };

static enum host_kind host_kind(const struct pd_env *env)
{
	uint64_t midr;

	if (pda_cpu_midr(env, &midr) == 0) {
		const unsigned part = (unsigned)(midr >> 4) & 0xfff;

		/* Neoverse N2, V2, V3, N3 count STALL_SLOT* and OP_* */
		if (((midr >> 24) & 0xff) == 0x41 &&
		    (part == 0xd49 || part == 0xd4f || part == 0xd84 ||
		     part == 0xd8e))
			return HOST_ARM_SLOTS;
		return HOST_ARM;
	}
	if (env && env->arch && strcmp(env->arch, "aarch64") == 0)
		return HOST_ARM;
	if (env && env->cpuid && strncmp(env->cpuid, "GenuineIntel", 12) == 0)
		return HOST_INTEL;
	if (env && env->cpuid && (strncmp(env->cpuid, "AuthenticAMD", 12) == 0 ||
				  strncmp(env->cpuid, "HygonGenuine", 12) == 0))
		return HOST_AMD;
	return HOST_OTHER;
}

static void command(struct docw *w, const char *head, const char *target)
{
	char small[512];
	struct pdc_strbuf b;

	pdc_strbuf_init(&b, NULL, small, sizeof(small));
	pdc_strbuf_addf(&b, "%s%s", head, target);
	docw_command(w, pdc_strbuf_str(&b));
	pdc_strbuf_release(&b);
}

/* The call-graph option the capture was recorded with. */
static const char *callgraph_opt(const struct pd_file *f)
{
	for (size_t i = 0; f && i < pd_file_nr_evsels(f); i++) {
		const struct pd_attr *a = &pd_file_evsel(f, i)->attr;

		if ((a->sample_type & PD_SAMPLE_STACK_USER) &&
		    a->sample_stack_user)
			return " --call-graph dwarf";
		if (a->sample_type & PD_SAMPLE_CALLCHAIN)
			return " -g";
	}
	return "";
}

void pde_doc_validation(struct docw *w, const struct pde_doc *d)
{
	const struct pd_env *env = d->env;
	const enum host_kind k = host_kind(env);
	char small[512], rec[256];
	struct pdc_strbuf t;

	if (!env)
		return;
	pdc_strbuf_init(&t, NULL, small, sizeof(small));
	docw_section(w, "validation", "Validation");
	docw_source(w, "Commands that measure the findings again on the "
		       "recording host (%s, %s), made from the command line "
		       "%s recorded.",
		    env->arch ? env->arch : "unknown architecture",
		    env->cpuid ? env->cpuid : "no CPUID", d->capture);
	if (!target_of(env, &t)) {
		docw_note(w, "The capture does not say which command it "
			     "recorded: put it after the --.");
		pdc_strbuf_add(&t, " -- COMMAND", 11);
	}
	switch (k) {
	case HOST_ARM:
	case HOST_ARM_SLOTS:
		docw_note(w, "Arm event names, each counted on its own with no "
			     "{} group: a VM exposes few counters and a group "
			     "larger than them is never scheduled; perf "
			     "multiplexes and scales them instead.");
		command(w, "perf stat -e cpu_cycles,inst_retired,stall_frontend,"
			   "stall_backend,stall_backend_mem,br_retired,"
			   "br_mis_pred_retired",
			pdc_strbuf_str(&t));
		if (k == HOST_ARM_SLOTS)
			command(w, "perf stat -e cpu_cycles,stall_slot,"
				   "stall_slot_frontend,stall_slot_backend,"
				   "op_spec,op_retired,br_mis_pred",
				pdc_strbuf_str(&t));
		command(w, "perf stat -e l1d_cache,l1d_cache_refill,"
			   "l1d_cache_lmiss_rd,l2d_cache,l2d_cache_refill,"
			   "l2d_cache_lmiss_rd",
			pdc_strbuf_str(&t));
		command(w, "perf stat -e mem_access,dtlb_walk,l1i_cache,"
			   "itlb_walk",
			pdc_strbuf_str(&t));
		snprintf(rec, sizeof(rec), "perf record -e cpu_cycles%s",
			 callgraph_opt(d->file));
		break;
	case HOST_INTEL:
		command(w, "perf stat -M TopdownL1", pdc_strbuf_str(&t));
		command(w, "perf stat -e cycles,instructions,branches,"
			   "branch-misses,L1-dcache-loads,L1-dcache-load-misses,"
			   "LLC-loads,LLC-load-misses,dTLB-loads,"
			   "dTLB-load-misses",
			pdc_strbuf_str(&t));
		snprintf(rec, sizeof(rec), "perf record -e cycles%s",
			 callgraph_opt(d->file));
		break;
	case HOST_AMD:
	case HOST_OTHER:
	default:
		command(w, "perf stat -e cycles,instructions,branches,"
			   "branch-misses,L1-dcache-loads,L1-dcache-load-misses,"
			   "dTLB-loads,dTLB-load-misses",
			pdc_strbuf_str(&t));
		snprintf(rec, sizeof(rec), "perf record -e cycles%s",
			 callgraph_opt(d->file));
		break;
	}
	command(w, rec, pdc_strbuf_str(&t));
	pdc_strbuf_release(&t);
	docw_section_end(w);
}
