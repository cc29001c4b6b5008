/*
 * pdarec.c - the records of pdatest.h (pt_begin ... pt_sample): a
 * machine's life written with testfile.h.  Free of Check, so that the
 * fuzz targets build their captures with it too.  Record layouts:
 * include/uapi/linux/perf_event.h (MMAP, MMAP2, COMM, FORK, EXIT,
 * KSYMBOL, SAMPLE) and tools/lib/perf/include/perf/event.h
 * (HEADER_BUILD_ID).
 */
#include "pd_config.h"
#include "pdatest.h"

#include <string.h>

/* ---- records ------------------------------------------------------- */

static void begin(struct tf *t, uint64_t sample_type)
{
	struct tf_attr a = {.type = 1 /* PERF_TYPE_SOFTWARE */,
			    .sample_period = 1000,
			    .sample_type = sample_type,
			    .flags = 1ull << PD_ATTR_mmap |
				     1ull << PD_ATTR_comm |
				     1ull << PD_ATTR_task};

	tf_init(t, false);
	tf_add_attr(t, &a, NULL, 0);
}

void pt_begin(struct tf *t)
{
	begin(t, PT_SAMPLE_TYPE);
}

void pt_begin_nocallchain(struct tf *t)
{
	begin(t, PD_SAMPLE_IP | PD_SAMPLE_TID);
}

/* s NUL-terminated and padded to 8 bytes */
static void str8(struct tf *t, const char *s)
{
	tf_str(t, s, (strlen(s) + 1 + 7) & ~(size_t)7);
}

void pt_comm(struct tf *t, uint32_t pid, uint32_t tid, const char *comm,
	     bool exec)
{
	tf_begin(t, PD_REC_COMM, exec ? PD_MISC_COMM_EXEC : 0);
	tf_u32(t, pid);
	tf_u32(t, tid);
	str8(t, comm);
	tf_end(t);
}

static void task(struct tf *t, uint32_t type, uint16_t misc, uint32_t pid,
		 uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	tf_begin(t, type, misc);
	tf_u32(t, pid);
	tf_u32(t, ppid);
	tf_u32(t, tid);
	tf_u32(t, ptid);
	tf_u64(t, 0); /* time */
	tf_end(t);
}

void pt_fork(struct tf *t, uint16_t misc, uint32_t pid, uint32_t ppid,
	     uint32_t tid, uint32_t ptid)
{
	task(t, PD_REC_FORK, misc, pid, ppid, tid, ptid);
}

void pt_exit(struct tf *t, uint32_t pid, uint32_t tid)
{
	task(t, PD_REC_EXIT, 0, pid, pid, tid, tid);
}

void pt_mmap(struct tf *t, uint16_t misc, uint32_t pid, uint32_t tid,
	     uint64_t start, uint64_t len, uint64_t pgoff, const char *name)
{
	tf_begin(t, PD_REC_MMAP, misc);
	tf_u32(t, pid);
	tf_u32(t, tid);
	tf_u64(t, start);
	tf_u64(t, len);
	tf_u64(t, pgoff);
	str8(t, name);
	tf_end(t);
}

static void mmap2(struct tf *t, uint16_t misc, uint32_t pid, uint32_t tid,
		  uint64_t start, uint64_t len, uint64_t pgoff, uint32_t prot,
		  uint32_t flags, const char *name,
		  const unsigned char *build_id, unsigned build_id_size,
		  uint32_t maj, uint32_t min, uint64_t ino)
{
	tf_begin(t, PD_REC_MMAP2,
		 (uint16_t)(misc | (build_id ? PD_MISC_MMAP_BUILD_ID : 0)));
	tf_u32(t, pid);
	tf_u32(t, tid);
	tf_u64(t, start);
	tf_u64(t, len);
	tf_u64(t, pgoff);
	if (build_id) {
		unsigned char id[20] = {0};

		memcpy(id, build_id, build_id_size);
		tf_u8(t, (uint8_t)build_id_size);
		tf_u8(t, 0);
		tf_u16(t, 0);
		tf_bytes(t, id, sizeof(id));
	} else {
		tf_u32(t, maj);
		tf_u32(t, min);
		tf_u64(t, ino);
		tf_u64(t, 0); /* ino_generation */
	}
	tf_u32(t, prot);
	tf_u32(t, flags);
	str8(t, name);
	tf_end(t);
}

void pt_mmap2(struct tf *t, uint16_t misc, uint32_t pid, uint32_t tid,
	      uint64_t start, uint64_t len, uint64_t pgoff, uint32_t prot,
	      uint32_t flags, const char *name, const unsigned char *build_id,
	      unsigned build_id_size)
{
	mmap2(t, misc, pid, tid, start, len, pgoff, prot, flags, name,
	      build_id, build_id_size, 254, 0, 1234);
}

void pt_mmap2_ino(struct tf *t, uint16_t misc, uint32_t pid, uint32_t tid,
		  uint64_t start, uint64_t len, uint64_t pgoff, uint32_t prot,
		  uint32_t flags, const char *name, uint32_t maj, uint32_t min,
		  uint64_t ino)
{
	mmap2(t, misc, pid, tid, start, len, pgoff, prot, flags, name, NULL,
	      0, maj, min, ino);
}

void pt_ksymbol(struct tf *t, uint64_t addr, uint32_t len, bool unregister,
		const char *name)
{
	tf_begin(t, PD_REC_KSYMBOL, PD_MISC_KERNEL);
	tf_u64(t, addr);
	tf_u32(t, len);
	tf_u16(t, 1); /* PERF_RECORD_KSYMBOL_TYPE_BPF */
	tf_u16(t, unregister ? 1 : 0);
	str8(t, name);
	tf_end(t);
}

void pt_build_id(struct tf *t, uint16_t cpumode, int32_t pid,
		 const unsigned char *id, unsigned size, const char *name)
{
	unsigned char raw[24] = {0};

	memcpy(raw, id, size);
	raw[20] = (unsigned char)size;
	tf_begin(t, PD_REC_HEADER_BUILD_ID,
		 (uint16_t)(cpumode | PD_MISC_BUILD_ID_SIZE));
	tf_u32(t, (uint32_t)pid);
	tf_bytes(t, raw, sizeof(raw));
	str8(t, name);
	tf_end(t);
}

void pt_sample(struct tf *t, uint16_t misc, uint32_t pid, uint32_t tid,
	       uint64_t ip, const uint64_t *cc, size_t nr)
{
	tf_begin(t, PD_REC_SAMPLE, misc);
	tf_u64(t, ip);
	tf_u32(t, pid);
	tf_u32(t, tid);
	if (t->attrs[0].sample_type & PD_SAMPLE_CALLCHAIN) {
		tf_u64(t, nr);
		for (size_t i = 0; i < nr; i++)
			tf_u64(t, cc[i]);
	}
	tf_end(t);
}

void pt_feature_string(struct tf *t, unsigned feat, const char *value)
{
	/* perf's do_write_string: u32 length padded to 64, then the bytes */
	size_t len = (strlen(value) + 1 + 63) & ~(size_t)63;

	tf_begin(t, PD_REC_HEADER_FEATURE, 0);
	tf_u64(t, feat);
	tf_u32(t, (uint32_t)len);
	tf_str(t, value, len);
	tf_end(t);
}
