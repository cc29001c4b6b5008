/*
 * unwcmp.c - the two DWARF unwinders, libdw and libunwind, sample by
 * sample on one capture (tests/cli/fold/unwinders.test runs it).
 *
 *	unwcmp [--symfs DIR] [--buildid-dir DIR] [--kallsyms FILE]
 *	       [--show N] FILE
 *
 * One session per unwinder over the same records; every sample that
 * carries a user stack dump is resolved by both (no inlined frames: the
 * ips are the unwinders' own) and its ip lists and stop reasons
 * compared.  Prints the counts, each unwinder's
 * stop reasons, and the first N (default 10) samples that differ with
 * both lists; exits 0 when nothing differs, 1 when something does, 2 on
 * an error.
 */
#include "pd.h"
#include "pda_session.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NR_UNWINDERS 2

static const char *const unwinders[NR_UNWINDERS] = {"libdw", "libunwind"};

/* The stop reason of the sample just unwound: the count that grew. */
static unsigned last_stop(struct pda_session *s, uint64_t *before)
{
	const struct pda_unwind_stats *u = &pda_session_stats(s)->unwind;
	unsigned stop = PDA_UNWIND_NR_STOPS;

	for (unsigned i = 0; i < PDA_UNWIND_NR_STOPS; i++)
		if (u->by_stop[i] != before[i]) {
			stop = i;
			before[i] = u->by_stop[i];
		}
	return stop;
}

static void print_ips(const char *name, const struct pda_stack *st,
		      unsigned stop)
{
	printf("  %-9s %s:", name, pda_unwind_stop_name(stop));
	for (size_t i = 0; i < st->nr; i++)
		printf(" %" PRIx64, st->frames[i].ip);
	putchar('\n');
}

static bool same_ips(const struct pda_stack *a, const struct pda_stack *b)
{
	if (a->nr != b->nr)
		return false;
	for (size_t i = 0; i < a->nr; i++)
		if (a->frames[i].ip != b->frames[i].ip)
			return false;
	return true;
}

static void print_stops(const char *name, const struct pda_unwind_stats *u)
{
	printf("%s:", name);
	for (unsigned i = 0; i < PDA_UNWIND_NR_STOPS; i++)
		if (u->by_stop[i])
			printf(" %s %" PRIu64 ";", pda_unwind_stop_name(i),
			       u->by_stop[i]);
	printf(" %" PRIu64 " frames\n", u->nr_frames);
}

static int fail(const char *what, const char *msg)
{
	fprintf(stderr, "unwcmp: %s: %s\n", what, msg);
	return 2;
}

int main(int argc, char **argv)
{
	const char *symfs = NULL, *bid = NULL, *kallsyms = NULL, *path = NULL;
	struct pda_session *s[NR_UNWINDERS] = {NULL};
	struct pda_stack st[NR_UNWINDERS] = {PDA_STACK_INIT, PDA_STACK_INIT};
	uint64_t nr_dwarf = 0, nr_differ = 0;
	uint64_t counts[NR_UNWINDERS][PDA_UNWIND_NR_STOPS] = {{0}};
	unsigned stop[NR_UNWINDERS];
	unsigned long show = 10;
	char err[512] = "";
	PD_OPTS(fo, .errbuf = err, .errbuf_size = sizeof(err));
	struct pd_reader *r;
	struct pd_file *f;
	struct pd_rec rec;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && !strcmp(argv[i], "--symfs"))
			symfs = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--buildid-dir"))
			bid = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--kallsyms"))
			kallsyms = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--show"))
			show = strtoul(argv[++i], NULL, 10);
		else if (argv[i][0] != '-' && !path)
			path = argv[i];
		else
			return fail("usage", "unwcmp [--symfs DIR] [--buildid-dir "
					     "DIR] [--kallsyms FILE] [--show N] "
					     "FILE");
	}
	if (!path)
		return fail("usage", "no input file");
	if (pd_file_open(path, &fo, &f) < 0)
		return fail(path, err);
	for (int u = 0; u < NR_UNWINDERS; u++) {
		PDA_OPTS(po, .symfs = symfs, .buildid_dir = bid,
			 .kallsyms = kallsyms, .no_inline = true,
			 .no_debuginfod = true, .unwinder = unwinders[u],
			 .errbuf = err, .errbuf_size = sizeof(err));

		if (pda_session_new(f, &po, &s[u]) < 0)
			return fail(path, err);
	}
	if (pd_reader_new(f, PD_READ_ORDERED, &r) < 0)
		return fail(path, pd_file_errmsg(f));
	while ((rc = pd_reader_next(r, &rec)) > 0) {
		struct pd_sample sample;

		for (int u = 0; u < NR_UNWINDERS; u++)
			if (pda_session_feed(s[u], &rec) < 0)
				return fail(path, pda_session_errmsg(s[u]));
		if (rec.type != PD_REC_SAMPLE ||
		    pd_sample_decode(f, &rec, &sample) < 0 ||
		    !(sample.mask & PD_SAMPLE_STACK_USER) ||
		    !(sample.mask & PD_SAMPLE_REGS_USER))
			continue;
		nr_dwarf++;
		for (int u = 0; u < NR_UNWINDERS; u++) {
			if (pda_sample_stack(s[u], &sample, &st[u]) < 0)
				return fail(path, pda_session_errmsg(s[u]));
			stop[u] = last_stop(s[u], counts[u]);
		}
		if (same_ips(&st[0], &st[1]) && stop[0] == stop[1])
			continue;
		if (nr_differ++ < show) {
			printf("differ: sample at %#" PRIx64 ", tid %" PRIu32
			       ", time %" PRIu64 "\n",
			       rec.offset, sample.tid, sample.time);
			for (int u = 0; u < NR_UNWINDERS; u++)
				print_ips(unwinders[u], &st[u], stop[u]);
		}
	}
	if (rc < 0)
		return fail(path, pd_file_errmsg(f));
	printf("%" PRIu64 " samples with a user stack, %" PRIu64
	       " unwound alike, %" PRIu64 " differ\n",
	       nr_dwarf, nr_dwarf - nr_differ, nr_differ);
	for (int u = 0; u < NR_UNWINDERS; u++) {
		print_stops(unwinders[u], &pda_session_stats(s[u])->unwind);
		pda_stack_release(s[u], &st[u]);
		pda_session_free(s[u]);
	}
	pd_reader_free(r);
	pd_file_close(f);
	return nr_differ ? 1 : 0;
}
