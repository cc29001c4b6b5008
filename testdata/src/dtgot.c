/*
 * dtgot.c - globals reached through the GOT, for data-type attribution
 * (issue 19): built as a shared library with -fPIC, where each global
 * of default visibility may be interposed, so the code loads its
 * address from a GOT slot (x86_64 mov foo@GOTPCREL(%rip), aarch64
 * adrp + ldr :got_lo12:, ppc64 ld from the TOC, s390x lgrl @GOTENT)
 * and then accesses the member through that register.  Each line that
 * touches a member says which, as dtypes.c's markers
 * (testdata/dtgot.md); tests/unit/check_datatype.c holds every access
 * on the line to it.  dtgotmain.c drives it.
 */
struct limits {
	long lo;
	long hi;
	int step;
	int flags;
};

struct stats {
	unsigned long hits;
	unsigned long misses;
	struct limits lim;
	long hist[8];
};

struct stats gstats;			/* .bss: GLOB_DAT */
struct limits glimits = {1, 100, 3, 0}; /* .data: GLOB_DAT */
int gcount;

/* The loops' barrier: each iteration loads the globals again. */
#define BARRIER() asm volatile("" ::: "memory")

__attribute__((noinline)) long got_sum(long n)
{
	long sum = 0;

	for (long i = 0; i < n; i++) {
		sum += glimits.hi; /* dt: struct limits +8 (hi) */
		gstats.lim.flags = (int)i; /* dt: struct stats +36 (lim.flags) */
		gcount++; /* dt: int +0 (no field) */
		BARRIER();
	}
	return sum;
}

__attribute__((noinline)) long got_hist(long n)
{
	long sum = 0;

	for (long i = 0; i < n; i++) {
		gstats.hist[3] += i; /* dt: struct stats +64 (hist[3]) */
		sum += gstats.misses; /* dt: struct stats +8 (misses) */
		gstats.lim.step++; /* dt: struct stats +32 (lim.step) */
		BARRIER();
	}
	return sum;
}

__attribute__((noinline)) void got_step(int step)
{
	glimits.step = step; /* dt: struct limits +16 (step) */
}
