/*
 * main.c - runs every Check suite.  The suite list is generated from the
 * tests/unit/check_<module>.c file names (suites.h, by the makefile), so
 * adding a file adds its suite.  See tests/README.md for CK_RUN_SUITE,
 * CK_RUN_CASE and CK_FORK=no.
 */
#include <check.h>
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
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
