/*
 * main.c - runs every Check suite.  The suite list is generated from the
 * tests/unit/check_<module>.c file names (suites.h, by the makefile), so
 * adding a file adds its suite.  See tests/README.md for CK_RUN_SUITE,
 * CK_RUN_CASE and CK_FORK=no.
 *
 * The checks that read the shared corpus are in test cases tagged
 * "corpus" (testcorpus.h).  Without the corpus those cases are left out
 * and listed as skipped with their count: Check has no skipped result,
 * and a check that returned early would count as passed.
 */
#include "testcorpus.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#define SUITE(name) Suite *name##_suite(void);
#include "suites.h"
#undef SUITE

int main(void)
{
	SRunner *sr = srunner_create(NULL);
	int failed;

#define SUITE(name) srunner_add_suite(sr, name##_suite());
#include "suites.h"
#undef SUITE
	srunner_run_tagged(sr, NULL, NULL, NULL, corpus_exclude_tags(),
			   CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	corpus_report(stdout);
	corpus_tap(getenv("CK_TAP_LOG_FILE_NAME"));
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
