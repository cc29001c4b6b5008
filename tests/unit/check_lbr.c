/*
 * check_lbr.c - the addresses pda_lbr.c gives for a sample recorded with
 * --call-graph lbr, on hand-made samples: which samples take that path,
 * the kernel part and its markers, the LBR part (entry 0's target, then
 * every entry's call site), an empty call stack, and both byte orders of
 * the branch entries.  What is expected is written out by hand from
 * perf 6.1's rule (tools/perf/util/machine.c, resolve_lbr_callchain_sample).
 */
#include "pda_stack_int.h"

#include <check.h>
#include <string.h>

#define CALL_STACK (1ull << 11)
#define USER PD_CONTEXT_USER
#define KERN PD_CONTEXT_KERNEL
#define HV PD_CONTEXT_HV
#define MAXN 16

/* A sample's callchain and branch stack, as the record holds them. */
struct spec {
	const char *name;
	uint64_t branch_sample_type;
	uint64_t mask;
	uint64_t chain[MAXN];
	size_t nr_chain;
	uint64_t from[MAXN], to[MAXN];
	size_t nr_branch;
	bool lbr;	    /* pda_lbr_begin's answer */
	uint64_t ips[MAXN]; /* then the addresses, leaf first */
	unsigned modes[MAXN];
	size_t nr_ips;
};

#define M_CB (PD_SAMPLE_CALLCHAIN | PD_SAMPLE_BRANCH_STACK)
#define U PD_MISC_USER
#define K PD_MISC_KERNEL
#define H PD_MISC_HYPERVISOR

static const struct spec specs[] = {
	{"user sample",
	 CALL_STACK | 1,
	 M_CB,
	 {USER, 0x41b3b4, 0},
	 3,
	 {0x417a53, 0x401581, 0x42089e},
	 {0x41b3b0, 0x417a30, 0x4014e0},
	 3,
	 true,
	 {0x41b3b0, 0x417a53, 0x401581, 0x42089e},
	 {U, U, U, U},
	 4},
	{"kernel sample",
	 CALL_STACK | 1,
	 M_CB,
	 {KERN, 0xffffffff81000010, 0xffffffff81000020, USER, 0x45a1d3,
	  0x3ff581e4da4d76b1},
	 6,
	 {0x401d47, 0x4015a0},
	 {0x400460, 0x401c70},
	 2,
	 true,
	 {0xffffffff81000010, 0xffffffff81000020, 0x400460, 0x401d47, 0x4015a0},
	 {K, K, U, U, U},
	 5},
	{"hypervisor then kernel",
	 CALL_STACK,
	 M_CB,
	 {HV, 0xfff0, KERN, 0xffffffff81000010, USER, 0x1234},
	 6,
	 {0x2000},
	 {0x3000},
	 1,
	 true,
	 {0xfff0, 0xffffffff81000010, 0x3000, 0x2000},
	 {H, K, U, U},
	 4},
	{"empty call stack: the user-mode ip",
	 CALL_STACK,
	 M_CB,
	 {KERN, 0xffffffff81000010, USER, 0x7fb025ecd2fb, 0x401000},
	 5,
	 {0},
	 {0},
	 0,
	 true,
	 {0xffffffff81000010, 0x7fb025ecd2fb},
	 {K, U},
	 2},
	{"empty call stack, no user part",
	 CALL_STACK,
	 M_CB,
	 {KERN, 0xffffffff81000010, USER},
	 3,
	 {0},
	 {0},
	 0,
	 true,
	 {0xffffffff81000010},
	 {K},
	 1},
	{"empty call stack, a marker after USER",
	 CALL_STACK,
	 M_CB,
	 {USER, KERN, 0x10},
	 3,
	 {0},
	 {0},
	 0,
	 true,
	 {0},
	 {0},
	 0},
	{"no CALL_STACK in branch_sample_type (perf record -b)",
	 0x8,
	 M_CB,
	 {USER, 0x1234},
	 2,
	 {0x2000},
	 {0x3000},
	 1,
	 false,
	 {0},
	 {0},
	 0},
	{"no branch stack sampled",
	 CALL_STACK,
	 PD_SAMPLE_CALLCHAIN,
	 {USER, 0x1234},
	 2,
	 {0},
	 {0},
	 0,
	 false,
	 {0},
	 {0},
	 0},
	{"no user marker: the callchain as usual",
	 CALL_STACK,
	 M_CB,
	 {KERN, 0xffffffff81000010},
	 2,
	 {0x2000},
	 {0x3000},
	 1,
	 false,
	 {0},
	 {0},
	 0},
	{"a guest marker first: the callchain as usual",
	 CALL_STACK,
	 M_CB,
	 {PD_CONTEXT_GUEST_KERNEL, 0xffffffff81000010, USER, 0x1},
	 4,
	 {0x2000},
	 {0x3000},
	 1,
	 false,
	 {0},
	 {0},
	 0},
	{"an unknown marker first: the callchain as usual",
	 CALL_STACK,
	 M_CB,
	 {(uint64_t)-100, USER, 0x1},
	 3,
	 {0x2000},
	 {0x3000},
	 1,
	 false,
	 {0},
	 {0},
	 0},
};

static void put64(unsigned char *p, uint64_t v, bool swap)
{
	for (int i = 0; i < 8; i++)
		p[swap ? 7 - i : i] = (unsigned char)(v >> (8 * i));
}

START_TEST(test_walk)
{
	const struct spec *sp = &specs[_i / 2];
	const bool swap = _i % 2; /* the file's byte order is not ours */
	unsigned char chain[MAXN * 8], branches[MAXN * 24];
	struct pd_evsel ev;
	struct pd_sample s;
	struct pda_lbr_walk lw;
	uint64_t ip;
	unsigned mode;
	size_t n = 0;
	bool host_le = true;

	{
		const uint16_t one = 1;

		memcpy(&host_le, &one, 1);
	}
	memset(&ev, 0, sizeof(ev));
	memset(&s, 0, sizeof(s));
	ev.attr.branch_sample_type = sp->branch_sample_type;
	s.evsel = &ev;
	s.mask = sp->mask;
	for (size_t i = 0; i < sp->nr_chain; i++)
		put64(chain + 8 * i, sp->chain[i], swap == host_le);
	for (size_t i = 0; i < sp->nr_branch; i++) {
		put64(branches + 24 * i, sp->from[i], swap == host_le);
		put64(branches + 24 * i + 8, sp->to[i], swap == host_le);
		put64(branches + 24 * i + 16, 0, swap == host_le);
	}
	s.swap = swap;
	s.callchain.nr = sp->nr_chain;
	s.callchain.raw = chain;
	s.callchain.swap = swap;
	s.branch.nr = sp->nr_branch;
	s.branch.entries = branches;
	ck_assert_msg(pda_lbr_begin(&s, &lw) == sp->lbr, "%s", sp->name);
	if (!sp->lbr)
		return;
	while (pda_lbr_next(&lw, &ip, &mode)) {
		ck_assert_msg(n < sp->nr_ips, "%s: more than %zu addresses",
			      sp->name, sp->nr_ips);
		ck_assert_msg(ip == sp->ips[n] && mode == sp->modes[n],
			      "%s: address %zu is %#llx in mode %u", sp->name,
			      n, (unsigned long long)ip, mode);
		n++;
	}
	ck_assert_msg(n == sp->nr_ips, "%s: %zu addresses", sp->name, n);
	ck_assert(!pda_lbr_next(&lw, &ip, &mode));
}
END_TEST

/* perf looks for the user marker among the first 127 entries only. */
START_TEST(test_marker_depth)
{
	uint64_t chain[130];
	unsigned char raw[130 * 8], branch[24];
	struct pd_evsel ev;
	struct pd_sample s;
	struct pda_lbr_walk lw;
	const uint16_t one = 1;
	bool host_le;

	memcpy(&host_le, &one, 1);
	memset(&ev, 0, sizeof(ev));
	memset(&s, 0, sizeof(s));
	memset(branch, 0, sizeof(branch));
	ev.attr.branch_sample_type = CALL_STACK;
	s.evsel = &ev;
	s.mask = M_CB;
	s.callchain.raw = raw;
	s.branch.nr = 1;
	s.branch.entries = branch;
	chain[0] = KERN;
	for (size_t i = 1; i < 130; i++)
		chain[i] = 0xffffffff81000000 + i;
	for (size_t at = 120; at < 130; at++) {
		for (size_t i = 0; i < 130; i++)
			put64(raw + 8 * i, i == at ? USER : chain[i], !host_le);
		s.callchain.nr = 130;
		ck_assert_msg(pda_lbr_begin(&s, &lw) == (at < 127),
			      "user marker at %zu", at);
	}
}
END_TEST

Suite *lbr_suite(void)
{
	Suite *s = suite_create("lbr");
	TCase *tc = tcase_create("lbr");

	tcase_add_loop_test(tc, test_walk, 0,
			    (int)(2 * sizeof(specs) / sizeof(specs[0])));
	tcase_add_test(tc, test_marker_depth);
	suite_add_tcase(s, tc);
	return s;
}
