/*
 * dtgotmain.c - the program that drives dtgot.c's shared library
 * (testdata/dtgot.md), a PIE: its own global it reaches PC-relative,
 * the library's through the GOT when the compiler must (aarch64, ppc64,
 * s390x; x86_64's PIE copies the library's variable into the program's
 * .bss).  Usage: dtgotmain [iterations]
 */
#include <stdio.h>
#include <stdlib.h>

struct limits {
	long lo;
	long hi;
	int step;
	int flags;
};

extern struct limits glimits;
long got_sum(long n);
long got_hist(long n);
void got_step(int step);

struct limits mlimits = {2, 50, 1, 0};

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, sum = 0;

	for (int r = 0; r < 4; r++) {
		sum += got_sum(n);
		sum += got_hist(n);
		got_step(r + 2);
		glimits.step = r + 1; /* dt: struct limits +16 (step) */
		sum += mlimits.hi; /* dt: struct limits +8 (hi) */
		sum += glimits.lo; /* dt: struct limits +0 (lo) */
		mlimits.flags = r; /* dt: struct limits +20 (flags) */
		sum += glimits.flags; /* dt: struct limits +20 (flags) */
	}
	printf("%ld\n", sum);
	return 0;
}
