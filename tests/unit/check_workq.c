/*
 * check_workq.c - common/pdc_workq: records of every size reach the
 * consumer whole and in order (one larger than a block included), the
 * caller waits for room rather than piling blocks up, the consumer's
 * error stops the handing over and comes back from stop, and a block
 * that cannot be allocated fails the reserve (T9).  Every allocation is
 * on the caller's thread (failalloc is not thread-safe: its counters
 * would race otherwise).
 */
#include "failalloc.h"
#include "pdc_workq.h"

#include <check.h>
#include <stdint.h>

/* The consumer's view: records [serial, n, n words serial + k] */
struct seen {
	uint64_t next;	  /* the serial expected next */
	uint64_t words;	  /* payload words checked */
	int fail_after;	  /* fail at this record (1-based); 0: never */
	int bad;	  /* records out of order or damaged */
};

static int consume(void *arg, const uint64_t *w, size_t nr)
{
	struct seen *s = arg;

	for (size_t i = 0; i < nr;) {
		const uint64_t serial = w[i], n = w[i + 1];

		if (serial != s->next || i + 2 + n > nr) {
			s->bad++;
			return 0;
		}
		for (uint64_t k = 0; k < n; k++)
			if (w[i + 2 + k] != serial + k)
				s->bad++;
		s->words += n;
		i += 2 + (size_t)n;
		s->next++;
		if (s->fail_after && (int)s->next == s->fail_after)
			return -5;
	}
	return 0;
}

/* Hand record serial of n payload words over.  @return 0 or -1 (reserve
 * failed). */
static int put(struct pdc_workq *q, uint64_t serial, uint64_t n)
{
	uint64_t *w = pdc_workq_reserve(q, 2 + (size_t)n);

	if (!w)
		return -1;
	w[0] = serial;
	w[1] = n;
	for (uint64_t k = 0; k < n; k++)
		w[2 + k] = serial + k;
	pdc_workq_commit(q, 2 + (size_t)n);
	return 0;
}

START_TEST(test_order)
{
	struct failalloc fa;
	struct pd_alloc a;
	struct seen s = {0};
	struct pdc_workq *q;
	uint64_t words = 0, serial = 0;

	failalloc_init(&fa, 0, false);
	a = failalloc_hooks(&fa);
	ck_assert_int_eq(pdc_workq_start(&q, &a, consume, &s), 0);
	/* many blocks' worth: the caller waits for room, never more than
	 * PDC_WORKQ_BLOCKS blocks (and the one larger record's) live */
	for (; serial < 20000; serial++) {
		const uint64_t n = serial % 61;

		ck_assert_int_eq(put(q, serial, n), 0);
		words += n;
		ck_assert_int_le(fa.live, PDC_WORKQ_BLOCKS + 3);
	}
	/* a record larger than a block: a block of its own */
	ck_assert_int_eq(put(q, serial++, PDC_WORKQ_WORDS + 100), 0);
	words += PDC_WORKQ_WORDS + 100;
	ck_assert_int_eq(put(q, serial++, 3), 0);
	words += 3;
	ck_assert_int_eq(pdc_workq_stop(q), 0);
	ck_assert_int_eq(s.bad, 0);
	ck_assert_uint_eq(s.next, serial);
	ck_assert_uint_eq(s.words, words);
	ck_assert_int_eq(fa.live, 0);
	/* nothing handed over: stop joins an idle consumer */
	ck_assert_int_eq(pdc_workq_start(&q, &a, consume, &s), 0);
	ck_assert_int_eq(pdc_workq_stop(q), 0);
	pdc_workq_stop(NULL);
	ck_assert_int_eq(fa.live, 0);
}
END_TEST

START_TEST(test_consumer_error)
{
	struct failalloc fa;
	struct pd_alloc a;
	struct seen s = {.fail_after = 10};
	struct pdc_workq *q;
	int rc = 0;

	failalloc_init(&fa, 0, false);
	a = failalloc_hooks(&fa);
	ck_assert_int_eq(pdc_workq_start(&q, &a, consume, &s), 0);
	/* the consumer fails in the first block: a later reserve fails */
	for (uint64_t serial = 0; serial < 1000000 && rc == 0; serial++)
		rc = put(q, serial, 40);
	ck_assert_int_eq(rc, -1);
	ck_assert_int_eq(pdc_workq_stop(q), -5);
	ck_assert_uint_eq(s.next, 10);
	ck_assert_int_eq(fa.live, 0);
}
END_TEST

START_TEST(test_nomem)
{
	struct failalloc fa;
	struct pd_alloc a;
	struct seen s = {0};
	struct pdc_workq *q;

	/* the queue itself */
	failalloc_init(&fa, 1, false);
	a = failalloc_hooks(&fa);
	ck_assert_int_eq(pdc_workq_start(&q, &a, consume, &s), -1);
	ck_assert_ptr_null(q);
	ck_assert_int_eq(fa.live, 0);
	/* its first block */
	failalloc_init(&fa, 2, false);
	ck_assert_int_eq(pdc_workq_start(&q, &a, consume, &s), 0);
	ck_assert_int_eq(put(q, 0, 1), -1);
	/* the next try gets one */
	ck_assert_int_eq(put(q, 0, 1), 0);
	ck_assert_int_eq(pdc_workq_stop(q), 0);
	ck_assert_uint_eq(s.next, 1);
	ck_assert_int_eq(fa.live, 0);
}
END_TEST

Suite *workq_suite(void)
{
	Suite *s = suite_create("workq");
	TCase *tc = tcase_create("workq");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_order);
	tcase_add_test(tc, test_consumer_error);
	tcase_add_test(tc, test_nomem);
	suite_add_tcase(s, tc);
	return s;
}
