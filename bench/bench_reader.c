/*
 * bench_reader.c - the reader library timed without a command around it,
 * for bench/run.sh.
 *
 *	bench_reader frame|decode FILE
 *
 * frame: pd_reader_next() over every record (framing, zstd chunks);
 * decode: the same plus pd_sample_decode() with a walk of each callchain,
 * and pd_event_decode() of every other record.  Prints one line:
 *	records=N samples=N data_bytes=N decompressed_bytes=N seconds=S
 * data_bytes is the file's data section; decompressed_bytes what its zstd
 * chunks held.  Comparing the two modes with `pdtool dump --count` shows
 * where the time goes.
 */
#include "pd_config.h"

#include "pd.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char err[512] = "";
	PD_OPTS(opts, .errbuf = err, .errbuf_size = sizeof(err));
	const struct pd_reader_stats *st;
	struct pd_file *f;
	struct pd_reader *r;
	struct pd_rec rec;
	struct pd_sample s;
	struct pd_event ev;
	uint64_t nr_samples = 0, sum = 0;
	int decode, rc;
	double t0;

	if (argc != 3 ||
	    (strcmp(argv[1], "frame") && strcmp(argv[1], "decode"))) {
		fprintf(stderr, "usage: bench_reader frame|decode FILE\n");
		return 64;
	}
	decode = strcmp(argv[1], "decode") == 0;
	t0 = now();
	if (pd_file_open(argv[2], &opts, &f) < 0) {
		fprintf(stderr, "bench_reader: '%s': %s\n", argv[2], err);
		return 2;
	}
	if (pd_reader_new(f, 0, &r) < 0) {
		fprintf(stderr, "bench_reader: out of memory\n");
		return 2;
	}
	while ((rc = pd_reader_next(r, &rec)) > 0) {
		if (rec.type == PD_REC_SAMPLE) {
			nr_samples++;
			if (decode && pd_sample_decode(f, &rec, &s) == 0) {
				sum += s.ip + s.tid + s.time;
				for (uint64_t i = 0; i < s.callchain.nr; i++)
					sum += pd_u64s_get(&s.callchain, i);
			}
		} else if (decode) {
			if (pd_event_decode(f, &rec, &ev) == 0)
				sum += ev.misc;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "bench_reader: '%s': %s\n", argv[2],
			pd_file_errmsg(f));
		return 2;
	}
	st = pd_reader_stats(r);
	printf("records=%llu samples=%llu data_bytes=%llu "
	       "decompressed_bytes=%llu seconds=%.3f checksum=%llu\n",
	       (unsigned long long)st->nr_records,
	       (unsigned long long)nr_samples,
	       (unsigned long long)pd_file_header(f)->data_size,
	       (unsigned long long)st->decompressed_bytes, now() - t0,
	       (unsigned long long)(sum & 0xff));
	pd_reader_free(r);
	pd_file_close(f);
	return 0;
}
