/*
 * testcorpus.c - the corpus's location and the skipped-check report for
 * the unit tests.  See testcorpus.h.
 */
#include "testcorpus.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the runner's working directory is tests/unit: two levels down */
#define FROM_ROOT "../../"
#define DEFAULT_DIR "../shared/corpus"
#define MAX_ENTRIES 64

/*
 * What corpus_add registered, kept to name the checks a run without the
 * corpus leaves out: Check runs excluded cases silently and has no count
 * of their tests to ask for.
 */
struct entry {
	const TCase *tc;
	const char *suite;
	const char *test; /* NULL for the entry corpus_tcase makes */
	int start, end;
};

static struct entry entries[MAX_ENTRIES];
static size_t nr_entries;

static const char *root_relative(void)
{
	const char *env = getenv("PD_CORPUS");

	return env && *env ? env : DEFAULT_DIR;
}

const char *corpus_dir(void)
{
	static char dir[CORPUS_PATH_MAX];
	const char *rel = root_relative();

	if (!dir[0]) {
		const int n = snprintf(dir, sizeof(dir), "%s%s",
				       rel[0] == '/' ? "" : FROM_ROOT, rel);

		if (n < 0 || (size_t)n >= sizeof(dir))
			abort();
	}
	return dir;
}

bool corpus_present(void)
{
	char manifest[CORPUS_PATH_MAX];
	const int n = snprintf(manifest, sizeof(manifest), "%s/MANIFEST.md",
			       corpus_dir());

	return n > 0 && (size_t)n < sizeof(manifest) &&
	       access(manifest, R_OK) == 0;
}

void corpus_path(char *out, const char *fmt, ...)
{
	va_list ap;
	size_t len;
	int n;

	n = snprintf(out, CORPUS_PATH_MAX, "%s/", corpus_dir());
	ck_assert(n > 0 && n < CORPUS_PATH_MAX);
	len = (size_t)n;
	va_start(ap, fmt);
	n = vsnprintf(out + len, CORPUS_PATH_MAX - len, fmt, ap);
	va_end(ap);
	ck_assert_msg(n >= 0 && (size_t)n < CORPUS_PATH_MAX - len,
		      "corpus path too long: %s", fmt);
	ck_assert_msg(access(out, R_OK) == 0,
		      "%s: not in the corpus (PD_CORPUS=%s)", out,
		      root_relative());
}

static struct entry *new_entry(void)
{
	/* called while the suites are built, outside any test: no ck_assert */
	if (nr_entries == MAX_ENTRIES) {
		fprintf(stderr, "testcorpus.c: raise MAX_ENTRIES\n");
		abort();
	}
	return &entries[nr_entries++];
}

TCase *corpus_tcase(Suite *s, const char *suite)
{
	TCase *tc = tcase_create(CORPUS_TAG);
	struct entry *e = new_entry();

	tcase_set_tags(tc, CORPUS_TAG);
	suite_add_tcase(s, tc);
	e->tc = tc;
	e->suite = suite;
	e->test = NULL;
	return tc;
}

void corpus_add(TCase *tc, const TTest *t, int start, int end)
{
	const char *suite = NULL;
	struct entry *e;

	for (size_t i = 0; i < nr_entries; i++)
		if (entries[i].tc == tc)
			suite = entries[i].suite;
	/* a corpus check outside a corpus case would pass without it */
	if (!suite) {
		fprintf(stderr, "%s: add it to corpus_tcase()'s case\n",
			t->name);
		abort();
	}
	e = new_entry();
	e->tc = tc;
	e->suite = suite;
	e->test = t->name;
	e->start = start;
	e->end = end;
	tcase_add_loop_test(tc, t, start, end);
}

/* Whether the space-separated list has word. */
static bool has_word(const char *list, const char *word)
{
	const size_t len = strlen(word);

	while (list && *list) {
		const size_t n = strcspn(list, " ");

		if (n == len && !strncmp(list, word, len))
			return true;
		list += n;
		list += strspn(list, " ");
	}
	return false;
}

/* Whether this run would have run the corpus case of suite. */
static bool selected(const char *suite)
{
	const char *want_suite = getenv("CK_RUN_SUITE");
	const char *want_case = getenv("CK_RUN_CASE");
	const char *include = getenv("CK_INCLUDE_TAGS");
	const char *exclude = getenv("CK_EXCLUDE_TAGS");

	if (want_suite && *want_suite && strcmp(want_suite, suite))
		return false;
	if (want_case && *want_case && strcmp(want_case, CORPUS_TAG))
		return false;
	if (include && *include && !has_word(include, CORPUS_TAG))
		return false;
	return !has_word(exclude, CORPUS_TAG);
}

/*
 * Print each check a run without the corpus leaves out: as a line of
 * Check's output, or as a TAP line numbered from tap_first (when not 0).
 * @return how many.
 */
static unsigned each_skipped(FILE *out, unsigned tap_first)
{
	unsigned nr_skipped = 0;

	if (corpus_present())
		return 0;
	for (size_t i = 0; i < nr_entries; i++) {
		const struct entry *e = &entries[i];

		if (!e->test || !selected(e->suite))
			continue;
		for (int n = e->start; n < e->end; n++, nr_skipped++) {
			if (tap_first)
				fprintf(out,
					"ok %u - %s:%s:%s:%d # SKIP corpus not "
					"found at %s\n",
					tap_first + nr_skipped, e->suite,
					CORPUS_TAG, e->test, n,
					root_relative());
			else
				fprintf(out,
					"%s:%s:%s:%d: skipped: corpus not "
					"found\n",
					e->suite, CORPUS_TAG, e->test, n);
		}
	}
	return nr_skipped;
}

unsigned corpus_report(FILE *out)
{
	const unsigned nr_skipped = each_skipped(out, 0);

	if (nr_skipped)
		fprintf(out,
			"%u checks skipped: corpus not found at %s "
			"(set PD_CORPUS, relative to the repository root)\n",
			nr_skipped, root_relative());
	return nr_skipped;
}

void corpus_tap(const char *path)
{
	char *log = NULL, *plan;
	size_t len = 0, cap = 0;
	unsigned long nr_run;
	FILE *f;

	if (!path || !*path || corpus_present())
		return;
	f = fopen(path, "r");
	if (!f)
		return;
	for (int ch; (ch = fgetc(f)) != EOF;) {
		if (len + 2 > cap) {
			cap = cap ? 2 * cap : 4096;
			log = realloc(log, cap);
			if (!log)
				abort();
		}
		log[len++] = (char)ch;
	}
	fclose(f);
	if (!log)
		return;
	log[len] = '\0';
	/* the closing plan line, "1..N", goes after the skipped checks */
	plan = strstr(log, "1..");
	while (plan && plan != log && plan[-1] != '\n')
		plan = strstr(plan + 1, "1..");
	if (!plan || sscanf(plan, "1..%lu", &nr_run) != 1) {
		free(log);
		return;
	}
	*plan = '\0';
	f = fopen(path, "w");
	if (f) {
		unsigned nr_skipped;

		fputs(log, f);
		nr_skipped = each_skipped(f, (unsigned)nr_run + 1);
		fprintf(f, "1..%lu\n", nr_run + nr_skipped);
		fclose(f);
	}
	free(log);
}

const char *corpus_exclude_tags(void)
{
	static char tags[1024];
	const char *user = getenv("CK_EXCLUDE_TAGS");
	int n;

	if (corpus_present())
		return NULL;
	n = snprintf(tags, sizeof(tags), "%s%s%s", CORPUS_TAG,
		     user && *user ? " " : "", user ? user : "");
	if (n < 0 || (size_t)n >= sizeof(tags))
		abort();
	return tags;
}
