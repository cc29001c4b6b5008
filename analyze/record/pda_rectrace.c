/*
 * pda_rectrace.c - the TRACING_DATA feature section for captures with
 * tracepoints, as perf 6.1 writes it (util/trace-event-info.c,
 * format.md §4.1): a magic, version "0.6", byte order, the size of a
 * long and the page size; tracefs's header_page and header_event; the
 * format files of the ftrace events and of each system's events that
 * are recorded; /proc/kallsyms, printk_formats and saved_cmdlines.
 * Readers (perf script, pdtool) decode the raw tracepoint data with it.
 */
#include "pda_record_priv.h"
#include "pd_write.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A file's bytes (tracefs sizes them 0: read to the end) into b, after
 * its size as a u32 or u64 (size_bytes).  A missing file is size 0. */
static void put_file(struct pdc_strbuf *b, const char *path, int size_bytes)
{
	FILE *fp = fopen(path, "re");
	const size_t at = b->len;
	char buf[8192];
	uint64_t size = 0;
	size_t n;

	if (size_bytes == 4)
		pd_feat_u32(b, 0);
	else
		pd_feat_u64(b, 0);
	if (!fp)
		return;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) {
		pdc_strbuf_add(b, buf, n);
		size += n;
	}
	fclose(fp);
	if (b->oom)
		return;
	if (size_bytes == 4) {
		const uint32_t s32 = (uint32_t)size;

		memcpy(b->p + at, &s32, 4);
	} else {
		memcpy(b->p + at, &size, 8);
	}
}

/* The tracefs root that has the events, or NULL. */
static const char *tracefs_root(void)
{
	static const char *const roots[] = {"/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing"};

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		char path[128];

		snprintf(path, sizeof(path), "%s/events/header_page", roots[i]);
		if (access(path, R_OK) == 0)
			return roots[i];
	}
	return NULL;
}

/* A tracepoint event's SYS and NAME, from its name "SYS:NAME[:MODS]". */
static bool split_name(const char *name, char *sys, char *ev, size_t size)
{
	const char *colon = strchr(name, ':');
	const char *end;
	size_t len;

	if (!colon || (size_t)(colon - name) >= size)
		return false;
	memcpy(sys, name, (size_t)(colon - name));
	sys[colon - name] = '\0';
	end = strchr(colon + 1, ':');
	len = end ? (size_t)(end - colon - 1) : strlen(colon + 1);
	if (len >= size)
		return false;
	memcpy(ev, colon + 1, len);
	ev[len] = '\0';
	return true;
}

int rec_tracing_data(struct rec *r)
{
	const char *root = tracefs_root();
	struct pdc_strbuf b;
	char path[768], sys[REC_NAME_MAX], ev[REC_NAME_MAX];
	bool done[REC_MAX_EVENTS] = {false};
	uint32_t nr_sys = 0;
	size_t count_at;
	int rc;

	if (!root)
		return rec_errf(r, PD_ERR_NOTFOUND,
				"tracepoints: tracefs is not mounted (mount "
				"-t tracefs nodev /sys/kernel/tracing)");
	pdc_strbuf_init(&b, r->a, NULL, 0);
	pdc_strbuf_add(&b, "\027\010\104tracing", 10);
	pdc_strbuf_add(&b, "0.6", 4);
	pdc_strbuf_add(&b, "\0", 1); /* little-endian */
	{
		const unsigned char long_size = (unsigned char)sizeof(long);

		pdc_strbuf_add(&b, &long_size, 1);
	}
	pd_feat_u32(&b, (uint32_t)r->page_size);
	pdc_strbuf_add(&b, "header_page", 12);
	snprintf(path, sizeof(path), "%s/events/header_page", root);
	put_file(&b, path, 8);
	pdc_strbuf_add(&b, "header_event", 13);
	snprintf(path, sizeof(path), "%s/events/header_event", root);
	put_file(&b, path, 8);
	/* the ftrace events recorded: perf records none of them (they are
	 * not tracepoints perf_event_open takes) */
	pd_feat_u32(&b, 0);
	/* each system once, its recorded events' formats */
	count_at = b.len;
	pd_feat_u32(&b, 0);
	for (size_t e = 0; e < r->nr_ev; e++) {
		size_t nr_at;
		uint32_t nr = 0;

		if (!r->ev[e].tracepoint || done[e] ||
		    !split_name(r->ev[e].name, sys, ev, sizeof(sys)))
			continue;
		pdc_strbuf_add(&b, sys, strlen(sys) + 1);
		nr_at = b.len;
		pd_feat_u32(&b, 0);
		for (size_t k = e; k < r->nr_ev; k++) {
			char sys2[REC_NAME_MAX], ev2[REC_NAME_MAX];

			if (!r->ev[k].tracepoint || done[k] ||
			    !split_name(r->ev[k].name, sys2, ev2, sizeof(sys2)) ||
			    strcmp(sys2, sys) != 0)
				continue;
			done[k] = true;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format",
				 root, sys, ev2);
			put_file(&b, path, 8);
			nr++;
		}
		if (!b.oom)
			memcpy(b.p + nr_at, &nr, 4);
		nr_sys++;
	}
	if (!b.oom)
		memcpy(b.p + count_at, &nr_sys, 4);
	put_file(&b, "/proc/kallsyms", 4);
	snprintf(path, sizeof(path), "%s/printk_formats", root);
	put_file(&b, path, 4);
	snprintf(path, sizeof(path), "%s/saved_cmdlines", root);
	put_file(&b, path, 8);
	rc = b.oom ? PD_ERR_NOMEM
		   : pd_writer_feature(r->w, PD_FEAT_TRACING_DATA, b.p, b.len);
	pdc_strbuf_release(&b);
	return rc;
}
