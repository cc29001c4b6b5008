/*
 * testcorpus.h - where the unit tests find the shared corpus of real
 * captures, and how the checks that need it are registered so that a
 * clone without it reports them as skipped instead of passing them.
 *
 * The corpus is $PD_CORPUS, or ../shared/corpus by default; a relative
 * value is taken from the repository root, as tests/golden/perf/lib.sh
 * takes it for the CLI tests.  It is present when its MANIFEST.md is.
 *
 *	Suite *s = suite_create("elf");
 *	TCase *tk = corpus_tcase(s, "elf");	// the "corpus" case
 *	corpus_add(tk, test_inline_corpus, 0, 1);
 *	...
 *	START_TEST(test_inline_corpus)
 *	{
 *		char path[CORPUS_PATH_MAX];
 *
 *		corpus_path(path, "perfparser/cpp-inlining/cpp-inlining");
 *
 * main.c excludes the "corpus" tag when the corpus is absent and prints
 * each check so skipped, then their count (corpus_report).
 */
#ifndef TESTCORPUS_H
#define TESTCORPUS_H

#include "pd_config.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>

#define CORPUS_PATH_MAX 4096
#define CORPUS_TAG "corpus"

/* The corpus directory as seen from tests/unit, where the tests run. */
const char *corpus_dir(void);
/* Whether the corpus is there (its MANIFEST.md is readable). */
bool corpus_present(void);
/*
 * The corpus directory followed by "/" and the formatted relative path,
 * into an out of CORPUS_PATH_MAX bytes.  Fails the test when it does not
 * fit, or when the file is absent: a corpus that is present is complete.
 */
void corpus_path(char *out, const char *fmt, ...) PD_PRINTF(2, 3);

/* A test case named and tagged "corpus", added to s (whose name is suite). */
TCase *corpus_tcase(Suite *s, const char *suite);
/* tcase_add_loop_test(tc, t, start, end), counted for corpus_report(). */
void corpus_add(TCase *tc, const TTest *t, int start, int end);

/*
 * When the corpus is absent: print to out one "skipped" line per check
 * the run would have run (after CK_RUN_SUITE, CK_RUN_CASE and the tags),
 * then "N checks skipped: corpus not found at DIR".  @return N (0 when
 * the corpus is present).
 */
unsigned corpus_report(FILE *out);
/*
 * The same checks added to the TAP log Check wrote at path (NULL: none),
 * as "ok N - ... # SKIP why" lines before its closing plan, so that what
 * reads the log sees them skipped rather than absent.
 */
void corpus_tap(const char *path);
/* The tags main.c excludes: "corpus" plus CK_EXCLUDE_TAGS when the corpus
 * is absent, NULL (CK_EXCLUDE_TAGS alone) when it is present. */
const char *corpus_exclude_tags(void);

#endif /* TESTCORPUS_H */
