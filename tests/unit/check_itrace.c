/*
 * check_itrace.c - the Arm SPE samples perf 6.1 and 7 synthesize
 * (analyze/session/pda_itrace.c): --itrace's letters, the data_src of a
 * record by CPU model, and its text (emit/pde_script.c
 * pde_data_src_str()) against every data_src perf 6.1 printed for the
 * SPE captures (tests/golden/spe/NAME.bfmtaM.script).
 */
#include "pda_itrace.h"
#include "pde.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN_DIR "../../tests/golden/spe/"

#define MIDR_N1 0x410fd0c0ull
#define MIDR_A53 0x410fd034ull /* no data source perf 6.1 knows */
#define MIDR_V2 0x410fd4f1ull	 /* Neoverse V2 r0p1 */
#define MIDR_A720 0x410fd810ull /* Cortex-A720 */
#define MIDR_AMPERE1A 0xc00fac40ull
#define MIDR_HIP12 0x480fd060ull
#define MIDR_HIP09 0x480fd020ull

START_TEST(test_parse)
{
	struct pda_itrace_opts o = {0};
	char err[160];

	ck_assert_int_eq(pda_itrace_parse("bfmtaM", &o, err, sizeof(err)), 0);
	ck_assert(o.set && o.branch && o.flc && o.llc && o.tlb && o.remote &&
		  o.mem && !o.instructions);
	ck_assert(pda_itrace_wants(&o, PDA_ITRACE_L1D_ACCESS));
	ck_assert(!pda_itrace_wants(&o, PDA_ITRACE_INSTRUCTIONS));
	/* instructions: only with an instruction period, as perf 6.1 */
	ck_assert_int_eq(pda_itrace_parse("i10i", &o, err, sizeof(err)), 0);
	ck_assert(o.instructions && o.period_insns && o.period == 10);
	ck_assert(pda_itrace_wants(&o, PDA_ITRACE_INSTRUCTIONS));
	ck_assert(!pda_itrace_wants(&o, PDA_ITRACE_MEMORY));
	ck_assert_int_eq(pda_itrace_parse("i100us", &o, err, sizeof(err)), 0);
	ck_assert(o.instructions && !o.period_insns);
	ck_assert(!pda_itrace_wants(&o, PDA_ITRACE_INSTRUCTIONS));
	/* no --itrace: every kind but instructions */
	memset(&o, 0, sizeof(o));
	for (int k = 0; k < PDA_ITRACE_INSTRUCTIONS; k++)
		ck_assert(pda_itrace_wants(&o, (enum pda_itrace_kind)k));
	ck_assert(!pda_itrace_wants(&o, PDA_ITRACE_INSTRUCTIONS));
	/* Intel PT's letters are not SPE's */
	ck_assert_int_eq(pda_itrace_parse("bx", &o, err, sizeof(err)),
			 PD_ERR_API);
	ck_assert(strstr(err, "'x'") != NULL);
	ck_assert_str_eq(pda_itrace_kind_name(PDA_ITRACE_BRANCH_MISS),
			 "branch-miss");
}
END_TEST

static struct pd_spe_record ld(unsigned op_raw, uint64_t events,
			       int source)
{
	struct pd_spe_record r;

	memset(&r, 0, sizeof(r));
	r.mask = PD_SPE_HAS_OP | PD_SPE_HAS_EVENTS;
	r.op_class = PD_SPE_OP_LDST;
	r.op_raw = (uint8_t)op_raw;
	r.events = events;
	if (source >= 0) {
		r.mask |= PD_SPE_HAS_SOURCE;
		r.source = (uint64_t)source;
	}
	return r;
}

static void ds_is(uint64_t ds, const char *text)
{
	char out[160];

	pde_data_src_str(ds, out, sizeof(out));
	ck_assert_str_eq(out, text);
}

#define EV(b) (1ull << PD_SPE_EV_##b)

START_TEST(test_perf7_set)
{
	struct pda_itrace_opts o;
	char err[160];

	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(pda_itrace_set_events("7", &o, err, sizeof(err)), 0);
	ck_assert(o.perf7);
	/* perf 7's default: every kind, instructions too */
	for (int k = 0; k < PDA_ITRACE_NR_KINDS; k++)
		ck_assert(pda_itrace_wants(&o, (enum pda_itrace_kind)k));
	ck_assert_str_eq(pda_itrace_event_name(&o, PDA_ITRACE_BRANCH_MISS),
			 "branch");
	/* letters keep the set, whichever option came first */
	ck_assert_int_eq(pda_itrace_parse("bM", &o, err, sizeof(err)), 0);
	ck_assert(o.perf7 && o.branch && o.mem);
	ck_assert(!pda_itrace_wants(&o, PDA_ITRACE_INSTRUCTIONS));
	/* a period in time is wanted, and refused when the run begins */
	ck_assert_int_eq(pda_itrace_parse("i10us", &o, err, sizeof(err)), 0);
	ck_assert(pda_itrace_wants(&o, PDA_ITRACE_INSTRUCTIONS));
	ck_assert_int_eq(pda_itrace_set_events("6.1", &o, err, sizeof(err)),
			 0);
	ck_assert(!o.perf7 && o.instructions);
	ck_assert(!pda_itrace_wants(&o, PDA_ITRACE_INSTRUCTIONS));
	ck_assert_str_eq(pda_itrace_event_name(&o, PDA_ITRACE_BRANCH_MISS),
			 "branch-miss");
	ck_assert_int_eq(pda_itrace_set_events("6", &o, err, sizeof(err)),
			 PD_ERR_API);
	ck_assert(strstr(err, "6.1 or 7") != NULL);
}
END_TEST

/* perf 7's data sources where the model says nothing */
START_TEST(test_data_src7)
{
	/* (store, events, source or -1, MIDR, the CPU reports snoops,
	 * perf's text) */
	static const struct {
		unsigned store;
		uint64_t events;
		int source;
		uint64_t midr;
		bool snoops;
		const char *text;
	} cases[] = {
		/* no model (Cortex-A53): a load's nearest hit */
		{0, EV(L1D_ACCESS), -1, MIDR_A53, false,
		 "|OP LOAD|LVL L1 or L1 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A"},
		{0, EV(L1D_ACCESS) | EV(L1D_REFILL) | EV(L2D_ACCESS), -1,
		 MIDR_A53, false,
		 "|OP LOAD|LVL L2 or L2 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A"},
		{0, EV(L1D_ACCESS) | EV(L1D_REFILL) | EV(RECENTLY_FETCHED), -1,
		 MIDR_A53, false,
		 "|OP LOAD|LVL LFB/MAB or LFB/MAB hit|SNP N/A|TLB N/A|LCK No|"
		 "BLK  N/A"},
		/* ... else its farthest miss */
		{0, EV(L1D_REFILL) | EV(L2D_MISS) | EV(LLC_MISS), -1, MIDR_A53,
		 false,
		 "|OP LOAD|LVL L3 or L3 miss|SNP N/A|TLB N/A|LCK No|BLK  N/A"},
		/* a store: the farthest level named, hit or miss */
		{1, EV(L1D_ACCESS) | EV(L2D_ACCESS) | EV(L2D_MISS), -1,
		 MIDR_A53, false,
		 "|OP STORE|LVL L2 or L2 miss|SNP N/A|TLB N/A|LCK No|BLK  N/A"},
		/* nothing named: N/A; a CPU that reports snoops: none */
		{0, 0, -1, MIDR_A53, true,
		 "|OP LOAD|LVL N/A or N/A|SNP None|TLB N/A|LCK No|BLK  N/A"},
		/* a snoop the model leaves unsaid (N1's peer cluster: SNOOPX
		 * peer only): from the events, HITM when the line was dirty */
		{0, EV(DATA_SNOOPED) | EV(CACHE_DATA_MODIFIED), 0xc, MIDR_N1,
		 false,
		 "|OP LOAD|LVL L3 or L3 hit|SNP HitM or Peer|TLB N/A|LCK No|"
		 "BLK  N/A"},
		{0, EV(DATA_SNOOPED), 0xc, MIDR_N1, false,
		 "|OP LOAD|LVL L3 or L3 hit|SNP Hit or Peer|TLB N/A|LCK No|"
		 "BLK  N/A"},
		{0, 0, 0xc, MIDR_N1, true,
		 "|OP LOAD|LVL L3 or L3 hit|SNP None or Peer|TLB N/A|LCK No|"
		 "BLK  N/A"},
		/* the model's snoop stands (L1: none) */
		{0, EV(DATA_SNOOPED), 0x0, MIDR_N1, false,
		 "|OP LOAD|LVL L1 or L1 hit|SNP None|TLB N/A|LCK No|BLK  N/A"},
		/* HiSilicon HIP12's own codes: a peer cluster's modified
		 * line, remote memory, a device (perf 6.1's strings call
		 * I/O's level number L10), a store (no level) */
		{0, EV(L1D_REFILL), 5, MIDR_HIP12, false,
		 "|OP LOAD|LVL Remote Cache (1 hop) or L3 hit|SNP HitM or Peer|"
		 "TLB N/A|LCK No|BLK  N/A"},
		{0, EV(L1D_REFILL), 9, MIDR_HIP12, false,
		 "|OP LOAD|LVL Remote Remote RAM (1 hop) or RAM hit|SNP N/A|"
		 "TLB N/A|LCK No|BLK  N/A"},
		{0, 0, 13, MIDR_HIP12, false,
		 "|OP LOAD|LVL I/O or L10 hit|SNP None|TLB N/A|LCK No|BLK  N/A"},
		{1, EV(L1D_ACCESS), 2, MIDR_HIP12, false,
		 "|OP STORE|LVL N/A or N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A"},
		/* HIP09: no table in perf 7.2; the code is not read */
		{0, EV(L1D_ACCESS), 18, MIDR_HIP09, false,
		 "|OP LOAD|LVL L1 or L1 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A"},
	};
	struct pd_spe_record r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = ld(cases[i].store, cases[i].events, cases[i].source);
		ds_is(pda_itrace_spe_data_src7(&r, cases[i].midr,
					       cases[i].snoops),
		      cases[i].text);
	}
	/* HIP12's table in perf 6.1's set too (as the other models') */
	r = ld(0, 0, 13);
	ck_assert_uint_eq(pda_itrace_spe_data_src(&r, MIDR_HIP12),
			  pda_itrace_spe_data_src7(&r, MIDR_HIP12, false));
	/* a remote access the model did not name */
	r = ld(0, EV(REMOTE_ACCESS), 0xe);
	ck_assert(pda_itrace_spe_data_src7(&r, MIDR_N1, false) &
		  (1ull << 37));
	/* no load or store: none */
	r = ld(0, 0, -1);
	r.op_class = PD_SPE_OP_BRANCH;
	ck_assert_uint_eq(pda_itrace_spe_data_src7(&r, MIDR_N1, false), 0);
}
END_TEST

START_TEST(test_data_src)
{
	struct pd_spe_record r;

	/* Neoverse: the level from the data source, the TLB from events */
	r = ld(0, EV(L1D_ACCESS) | EV(TLB_ACCESS), 0x0);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_N1),
	      "|OP LOAD|LVL L1 or L1 hit|SNP None|TLB Walker hit|LCK No|BLK  N/A");
	r = ld(0, EV(L1D_REFILL) | EV(TLB_WALK) | EV(TLB_ACCESS), 0xe);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_N1),
	      "|OP LOAD|LVL Local RAM or RAM hit|SNP None|TLB Walker miss|LCK "
	      "No|BLK  N/A");
	r = ld(0, 0, 0x9);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_N1),
	      "|OP LOAD|LVL L2 or L2 hit|SNP Peer|TLB N/A|LCK No|BLK  N/A");
	r = ld(0, 0, 0xb);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_N1),
	      "|OP LOAD|LVL L3 or L3 hit|SNP Hit|TLB N/A|LCK No|BLK  N/A");
	r = ld(0, 0, 0xd);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_N1),
	      "|OP LOAD|LVL Remote N/A or N/A|SNP Peer|TLB N/A|LCK No|BLK  N/A");
	/* stores: Neoverse says nothing of their level */
	r = ld(1, EV(L1D_ACCESS), 0x0);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_N1),
	      "|OP STORE|LVL N/A or N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A");
	/* another CPU: the farthest level the events name */
	r = ld(0, EV(L1D_ACCESS) | EV(L1D_REFILL) | EV(LLC_ACCESS), 0x0);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_A53),
	      "|OP LOAD|LVL L3 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A");
	r = ld(0, EV(L1D_ACCESS) | EV(L1D_REFILL) | EV(REMOTE_ACCESS), -1);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_A53),
	      "|OP LOAD|LVL Remote L1 miss|SNP N/A|TLB N/A|LCK No|BLK  N/A");
	/* as perf 6.1 gave for n1 through perf inject -o - (no CPUID:
	 * the events' level), before it stopped part way through */
	r = ld(0, EV(L1D_ACCESS) | EV(L1D_REFILL) | EV(LLC_ACCESS) |
			  EV(LLC_MISS) | EV(REMOTE_ACCESS) | EV(TLB_ACCESS),
	       0xd);
	ck_assert_uint_eq(pda_itrace_spe_data_src(&r, 0), 0x2088000882ull);
	ds_is(0x2088000882ull, "|OP LOAD|LVL Remote L3 miss|SNP N/A|TLB "
			       "Walker hit|LCK No|BLK  N/A");
	/* the newer common list (perf >= 6.10): Neoverse V2, Cortex-A720
	 * decode their data sources as N1 does; perf 6.1 took the events */
	r = ld(0, EV(L1D_REFILL) | EV(LLC_ACCESS), 0xb);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_V2),
	      "|OP LOAD|LVL L3 or L3 hit|SNP Hit|TLB N/A|LCK No|BLK  N/A");
	ds_is(pda_itrace_spe_data_src(&r, MIDR_A720),
	      "|OP LOAD|LVL L3 or L3 hit|SNP Hit|TLB N/A|LCK No|BLK  N/A");
	/* AmpereOne's own codes, mapped onto the common ones (perf >=
	 * 6.12): 0x8 L1D, 0x9 L2D, 0x0 a peer core, 0x3 the SLC, 0x5 a
	 * remote chip, 0x7 DDR; any other gives no level */
	r = ld(0, 0, 0x8);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_AMPERE1A),
	      "|OP LOAD|LVL L1 or L1 hit|SNP None|TLB N/A|LCK No|BLK  N/A");
	r = ld(0, 0, 0x0);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_AMPERE1A),
	      "|OP LOAD|LVL L2 or L2 hit|SNP Peer|TLB N/A|LCK No|BLK  N/A");
	r = ld(0, 0, 0x3);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_AMPERE1A),
	      "|OP LOAD|LVL L3 or L3 hit|SNP Hit|TLB N/A|LCK No|BLK  N/A");
	r = ld(0, 0, 0x5);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_AMPERE1A),
	      "|OP LOAD|LVL Remote N/A or N/A|SNP Peer|TLB N/A|LCK No|BLK  N/A");
	r = ld(0, EV(TLB_ACCESS), 0x7);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_AMPERE1A),
	      "|OP LOAD|LVL Local RAM or RAM hit|SNP None|TLB Walker hit|LCK "
	      "No|BLK  N/A");
	r = ld(0, EV(L1D_ACCESS) | EV(L1D_REFILL), 0x2);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_AMPERE1A),
	      "|OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A");
	/* the common 0xb on AmpereOne is no SLC: not the common table's */
	r = ld(0, 0, 0xb);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_AMPERE1A),
	      "|OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A");
	r = ld(1, 0, 0x8);
	ds_is(pda_itrace_spe_data_src(&r, MIDR_AMPERE1A),
	      "|OP STORE|LVL N/A or N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A");
	/* no load or store: none (no memory sample) */
	r = ld(0, EV(L1D_ACCESS), 0x0);
	r.op_class = PD_SPE_OP_BRANCH;
	ck_assert_uint_eq(pda_itrace_spe_data_src(&r, MIDR_N1), 0);
	ds_is(0, "|OP No|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A");
}
END_TEST

/* Every data_src perf 6.1 printed in the goldens: "%16x %s" then pad. */
START_TEST(test_data_src_text)
{
	static const char *const files[] = {"n1.bfmtaM.script",
					    "v1-noctx.bfmtaM.script",
					    "n1-nots.bfmtaM.script"};
	unsigned n = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[256], line[1024];
		FILE *fp;

		snprintf(path, sizeof(path), GOLDEN_DIR "%s", files[i]);
		fp = fopen(path, "r");
		ck_assert_msg(fp != NULL, "%s", path);
		while (fgets(line, sizeof(line), fp)) {
			char *bar = strstr(line, " |OP ");
			char *end, *hex, want[200], got[200];

			if (!bar)
				continue;
			hex = bar;
			while (hex > line && hex[-1] != ' ')
				hex--;
			end = strstr(bar, "|BLK ");
			ck_assert_ptr_nonnull(end);
			end += 5;
			while (*end == ' ')
				end++;
			while (*end && *end != ' ')
				end++;
			snprintf(want, sizeof(want), "%.*s",
				 (int)(end - bar - 1), bar + 1);
			pde_data_src_str(strtoull(hex, NULL, 16), got,
					 sizeof(got));
			ck_assert_str_eq(got, want);
			n++;
		}
		fclose(fp);
	}
	ck_assert_uint_ge(n, 200);
}
END_TEST

Suite *itrace_suite(void)
{
	Suite *s = suite_create("itrace");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_perf7_set);
	tcase_add_test(tc, test_data_src7);
	tcase_add_test(tc, test_data_src);
	tcase_add_test(tc, test_data_src_text);
	suite_add_tcase(s, tc);
	return s;
}
