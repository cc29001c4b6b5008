/*
 * check_write.c - captures with branch stacks written by reader/pd_write
 * (what `pdtool record -b`, `-j` and `--call-graph lbr` write where the
 * PMU records branches: this VM's has none, so the samples are made
 * here), in file and pipe mode, read back by the reader: the events'
 * branch_sample_type, the BRANCH_STACK feature, every branch entry and
 * hw_idx as written.  With PDTEST_KEEP=DIR the captures stay in DIR for
 * an oracle (`perf report -b --stdio -i DIR/write-file.data`).  And
 * the recorder's PMU capability sections (pda_record_pmu_caps) from a
 * sysfs made here, read back (PDTEST_KEEP keeps its directory too, for
 * `perf report --header-only -I -i DIR/caps.data`).
 */
#include "pd_config.h" /* _DEFAULT_SOURCE: mkstemp, O_CLOEXEC */
#include "pd.h"
#include "pd_env.h"
#include "pd_write.h"
#include "pda_record.h"
#include "pdc_strbuf.h"
#include "elftest.h" /* et_tmpdir, et_rmtree */

#include <check.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NR_SAMPLES 3
#define NR_BRANCHES 4
#define PID 4242
#define SAMPLE_TYPE                                                   \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |        \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK)

/* The two shapes the recorder asks for: -b's, and --call-graph lbr's
 * (with hw_idx before the entries). */
static const uint64_t branch_types[] = {
	PERF_SAMPLE_BRANCH_ANY,
	PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
		PERF_SAMPLE_BRANCH_NO_CYCLES | PERF_SAMPLE_BRANCH_NO_FLAGS |
		PERF_SAMPLE_BRANCH_HW_INDEX,
};

static uint64_t from_of(int s, int b)
{
	return 0x401000 + 0x100 * (uint64_t)s + 0x10 * (uint64_t)b;
}

static uint64_t to_of(int s, int b)
{
	return 0x402000 + 0x100 * (uint64_t)s + 0x8 * (uint64_t)b;
}

/* perf_branch_entry's flags word: mispred (bit 0) or predicted (bit 1),
 * cycles at bits 4..19 */
static uint64_t flags_of(int s, int b)
{
	return ((s + b) % 2 ? 1u : 2u) | (uint64_t)(10 * s + b + 1) << 4;
}

static void add(struct pdc_strbuf *b, uint64_t v, size_t size)
{
	pdc_strbuf_add(b, &v, size); /* little-endian host, as the writer */
}

/* A COMM, then the samples, each with its branch stack. */
static void records(struct pdc_strbuf *b, bool hw_index)
{
	const char comm[16] = "brwork";

	add(b, PERF_RECORD_COMM, 4);
	add(b, 0, 2);
	add(b, 8 + 8 + sizeof(comm), 2);
	add(b, PID, 4);
	add(b, PID, 4);
	pdc_strbuf_add(b, comm, sizeof(comm));
	for (int s = 0; s < NR_SAMPLES; s++) {
		size_t size = 8 + 8 * 5 + 8 * hw_index + 24 * NR_BRANCHES;

		add(b, PERF_RECORD_SAMPLE, 4);
		add(b, PERF_RECORD_MISC_USER, 2);
		add(b, size, 2);
		add(b, to_of(s, 0) + 4, 8); /* ip */
		add(b, PID, 4);
		add(b, PID, 4);
		add(b, 1000000 + 1000 * (uint64_t)s, 8); /* time */
		add(b, 100000, 8); /* period */
		add(b, NR_BRANCHES, 8);
		if (hw_index)
			add(b, (uint64_t)s, 8);
		for (int i = 0; i < NR_BRANCHES; i++) {
			add(b, from_of(s, i), 8);
			add(b, to_of(s, i), 8);
			add(b, flags_of(s, i), 8);
		}
	}
}

/* Write the capture of shape `shape` into fd. */
static void write_capture(int fd, bool pipe, int shape)
{
	PD_WRITER_OPTS(wo, .pipe = pipe);
	struct perf_event_attr attr;
	const uint64_t id = 77;
	struct pdc_strbuf b;
	struct pd_writer *w;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.sample_period = 100000;
	attr.sample_type = SAMPLE_TYPE;
	attr.branch_sample_type = branch_types[shape];
	attr.comm = attr.mmap = attr.disabled = 1;
	ck_assert_int_eq(pd_writer_new(fd, &wo, &w), 0);
	ck_assert_int_eq(pd_writer_add_event(w, &attr, sizeof(attr), "cycles",
					     &id, 1),
			 0);
	/* perf's -b capture says it has branch stacks (a file's only) */
	if (!pipe && shape == 0)
		ck_assert_int_eq(pd_writer_feature(w, PD_FEAT_BRANCH_STACK,
						   NULL, 0),
				 0);
	ck_assert_int_eq(pd_writer_begin(w), 0);
	pdc_strbuf_init(&b, NULL, NULL, 0);
	records(&b, branch_types[shape] & PERF_SAMPLE_BRANCH_HW_INDEX);
	ck_assert(!b.oom);
	ck_assert_int_eq(pd_writer_data(w, b.p, b.len), 0);
	ck_assert_int_eq(pd_writer_round(w), 0);
	ck_assert_int_eq(pd_writer_finish(w), 0);
	pd_writer_free(w);
	pdc_strbuf_release(&b);
}

/* Read it back: the event's branch type, the feature, every entry. */
static void check_capture(const char *path, bool pipe, int shape)
{
	struct pd_file *f;
	struct pd_reader *r;
	struct pd_rec rec;
	const void *feat;
	size_t feat_size;
	int rc, s = 0;

	ck_assert_int_eq(pd_file_open(path, NULL, &f), 0);
	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	while ((rc = pd_reader_next(r, &rec)) > 0) {
		struct pd_sample smp;

		if (rec.type != PD_REC_SAMPLE)
			continue;
		ck_assert_int_eq(pd_sample_decode(f, &rec, &smp), 0);
		ck_assert_uint_eq(smp.evsel->attr.branch_sample_type,
				  branch_types[shape]);
		ck_assert_uint_eq(smp.branch.nr, NR_BRANCHES);
		ck_assert_int_eq(smp.branch.has_hw_idx, shape == 1);
		if (shape == 1)
			ck_assert_uint_eq(smp.branch.hw_idx, (uint64_t)s);
		for (int i = 0; i < NR_BRANCHES; i++) {
			struct pd_branch br;

			pd_sample_branch(&smp, (uint64_t)i, &br);
			ck_assert_uint_eq(br.from, from_of(s, i));
			ck_assert_uint_eq(br.to, to_of(s, i));
			ck_assert_uint_eq(br.flags_raw, flags_of(s, i));
			ck_assert_uint_eq(br.mispred, (s + i) % 2);
			ck_assert_uint_eq(br.cycles, 10 * s + i + 1);
		}
		s++;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(s, NR_SAMPLES);
	ck_assert_int_eq(pd_file_feature(f, PD_FEAT_BRANCH_STACK, &feat,
					 &feat_size),
			 !pipe && shape == 0);
	pd_reader_free(r);
	pd_file_close(f);
}

/* loop i: shape i / 2, pipe mode for odd i */
START_TEST(test_branch_roundtrip)
{
	const bool pipe = _i % 2;
	const int shape = _i / 2;
	const char *keep = getenv("PDTEST_KEEP");
	char path[4096];
	int fd;

	if (keep)
		snprintf(path, sizeof(path), "%s/write-%s-%s.data", keep,
			 shape ? "lbr" : "any", pipe ? "pipe" : "file");
	else
		snprintf(path, sizeof(path), "%s/pdwriteXXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = keep ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
		  : mkstemp(path);
	ck_assert_msg(fd >= 0, "cannot create %s", path);
	write_capture(fd, pipe, shape);
	close(fd);
	check_capture(path, pipe, shape);
	if (!keep)
		unlink(path);
}
END_TEST

/* EVENT_UPDATE records of the pipe stream pd_writer_begin() writes for
 * one event, with the pipe_no_names option or without. */
static int pipe_names(bool no_names)
{
	PD_WRITER_OPTS(wo, .pipe = true, .pipe_no_names = no_names);
	struct perf_event_attr attr;
	const uint64_t id = 77;
	unsigned char buf[4096];
	struct pd_writer *w;
	char path[4096];
	size_t off = 16;
	ssize_t len;
	int fd, n = 0;

	snprintf(path, sizeof(path), "%s/pdwriteXXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.sample_period = 1000;
	ck_assert_int_eq(pd_writer_new(fd, &wo, &w), 0);
	ck_assert_int_eq(pd_writer_add_event(w, &attr, sizeof(attr),
					     "cpu-clock", &id, 1),
			 0);
	ck_assert_int_eq(pd_writer_begin(w), 0);
	pd_writer_free(w);
	len = pread(fd, buf, sizeof(buf), 0);
	close(fd);
	unlink(path);
	ck_assert_int_gt(len, 16);
	/* the records after the 16-byte pipe header */
	while (off + 8 <= (size_t)len) {
		uint32_t type;
		uint16_t size;

		memcpy(&type, buf + off, 4);
		memcpy(&size, buf + off + 6, 2);
		ck_assert_uint_ge(size, 8);
		n += type == PD_REC_EVENT_UPDATE;
		off += size;
	}
	ck_assert_uint_eq(off, (size_t)len);
	return n;
}

/* The recorder sends a pipe's names itself, where perf 6.1 does. */
START_TEST(test_pipe_no_names)
{
	ck_assert_int_eq(pipe_names(false), 1);
	ck_assert_int_eq(pipe_names(true), 0);
}
END_TEST

/* ---- the recorder's PMU capabilities ------------------------------ */

/* dir/rel's file with text (its directories made first) */
static void put_file(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		(void)mkdir(path, 0755);
		*p = '/';
	}
	fp = fopen(path, "w");
	ck_assert_msg(fp != NULL, "cannot create %s", path);
	fputs(text, fp);
	fclose(fp);
}

static const char *cap_of(const struct pd_env_cap *caps, uint32_t nr,
			  const char *name)
{
	for (uint32_t i = 0; i < nr; i++)
		if (strcmp(caps[i].name, name) == 0)
			return caps[i].value;
	return NULL;
}

/*
 * A host's sysfs with an x86 core PMU's caps, a hybrid core PMU, an Arm
 * PMU's slots and IBS's extensions, and PMUs without caps: the capture
 * has CPU_PMU_CAPS of "cpu" and PMU_CAPS of the three others, the
 * hybrid one first (perf 6.1's order), each value without its newline.
 * Loop 1: no PMU has caps: PMU_CAPS holds none, no CPU_PMU_CAPS.
 */
START_TEST(test_pmu_caps)
{
	char *sys = et_tmpdir();
	char path[4096];
	const struct pd_env *env;
	struct perf_event_attr attr;
	const uint64_t id = 5;
	const char comm[16] = "capswork";
	struct pdc_strbuf b;
	struct pd_writer *w;
	struct pd_file *f;
	PD_WRITER_OPTS(wo);
	int fd;

	put_file(sys, "bus/event_source/devices/software/type", "1\n");
	put_file(sys, "bus/event_source/devices/tracepoint/type", "2\n");
	if (_i == 0) {
		put_file(sys, "bus/event_source/devices/cpu/caps/max_precise",
			 "3\n");
		put_file(sys, "bus/event_source/devices/cpu/caps/pmu_name",
			 "sapphire_rapids\n");
		put_file(sys, "bus/event_source/devices/armv8_pmuv3_0/caps/slots",
			 "8\n");
		put_file(sys,
			 "bus/event_source/devices/ibs_op/caps/zen4_ibs_extensions",
			 "1\n");
		put_file(sys, "bus/event_source/devices/cpu_core/caps/pmu_name",
			 "alderlake_hybrid\n");
		put_file(sys, "bus/event_source/devices/cpu_core/caps/branches",
			 "32\n");
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.sample_period = 1000;
	attr.sample_type = PERF_SAMPLE_IP;
	snprintf(path, sizeof(path), "%s/caps.data", sys);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pd_writer_new(fd, &wo, &w), 0);
	ck_assert_int_eq(pd_writer_add_event(w, &attr, sizeof(attr),
					     "cpu-clock", &id, 1),
			 0);
	ck_assert_int_eq(pda_record_pmu_caps(w, sys, NULL), 0);
	ck_assert_int_eq(pd_writer_begin(w), 0);
	/* a record: a file with no data is read as cut short */
	pdc_strbuf_init(&b, NULL, NULL, 0);
	add(&b, PERF_RECORD_COMM, 4);
	add(&b, 0, 2);
	add(&b, 8 + 8 + sizeof(comm), 2);
	add(&b, PID, 4);
	add(&b, PID, 4);
	pdc_strbuf_add(&b, comm, sizeof(comm));
	ck_assert(!b.oom);
	ck_assert_int_eq(pd_writer_data(w, b.p, b.len), 0);
	pdc_strbuf_release(&b);
	ck_assert_int_eq(pd_writer_finish(w), 0);
	pd_writer_free(w);
	close(fd);

	ck_assert_int_eq(pd_file_open(path, NULL, &f), 0);
	ck_assert_int_eq(pd_file_env(f, &env), 0);
	ck_assert_int_eq(env->status[PD_FEAT_PMU_CAPS], PD_ENV_OK);
	if (_i == 1) {
		ck_assert_uint_eq(env->nr_pmu_caps, 0);
		ck_assert_int_ne(env->status[PD_FEAT_CPU_PMU_CAPS], PD_ENV_OK);
	} else {
		ck_assert_int_eq(env->status[PD_FEAT_CPU_PMU_CAPS], PD_ENV_OK);
		ck_assert_uint_eq(env->nr_cpu_pmu_caps, 2);
		ck_assert_str_eq(cap_of(env->cpu_pmu_caps, 2, "max_precise"),
				 "3");
		ck_assert_str_eq(cap_of(env->cpu_pmu_caps, 2, "pmu_name"),
				 "sapphire_rapids");
		ck_assert_uint_eq(env->nr_pmu_caps, 3);
		ck_assert_str_eq(env->pmu_caps[0].pmu_name, "cpu_core");
		ck_assert_uint_eq(env->pmu_caps[0].nr_caps, 2);
		ck_assert_str_eq(cap_of(env->pmu_caps[0].caps, 2, "branches"),
				 "32");
		for (uint32_t i = 1; i < 3; i++) {
			const struct pd_env_pmu_caps *p = &env->pmu_caps[i];
			bool arm = strcmp(p->pmu_name, "armv8_pmuv3_0") == 0;

			ck_assert_msg(arm || strcmp(p->pmu_name, "ibs_op") == 0,
				      "PMU %s", p->pmu_name);
			ck_assert_uint_eq(p->nr_caps, 1);
			ck_assert_str_eq(p->caps[0].name,
					 arm ? "slots" : "zen4_ibs_extensions");
			ck_assert_str_eq(p->caps[0].value, arm ? "8" : "1");
		}
	}
	pd_file_close(f);
	if (!getenv("PDTEST_KEEP"))
		et_rmtree(sys);
	free(sys);
}
END_TEST

Suite *write_suite(void)
{
	Suite *s = suite_create("write");
	TCase *tc = tcase_create("branch");

	tcase_add_test(tc, test_pipe_no_names);
	tcase_add_loop_test(tc, test_branch_roundtrip, 0,
			    2 * (int)(sizeof(branch_types) /
				      sizeof(branch_types[0])));
	suite_add_tcase(s, tc);
	tc = tcase_create("pmu_caps");
	tcase_add_loop_test(tc, test_pmu_caps, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
