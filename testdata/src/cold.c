/*
 * cold.c - a C program whose main() GCC splits in two: the branch that
 * calls a cold function moves to main.cold, whose DWARF still names
 * main, so that DWARF-unwound stacks reach the same callers through
 * main and through main.cold ("main (inlined)" in perf 6.1's report).
 * hot() runs from main, warm() from main.cold.  argv[1] is the number
 * of rounds (default 1500): CPU work, not wall time, so that a loaded
 * machine records as many samples.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long hot(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}

__attribute__((noinline)) static unsigned long warm(unsigned long n)
{
	unsigned long s = 1;

	for (unsigned long i = 0; i < n; i++)
		s += i ^ (s << 1);
	return s;
}

/* cold: GCC moves the blocks that call it out of main, into main.cold */
__attribute__((noinline, cold)) static void note(unsigned long v)
{
	sink = v;
}

int main(int argc, char **argv)
{
	const long rounds = argc > 1 ? atol(argv[1]) : 1500;
	unsigned long t = 0;

	for (long r = 1; r <= rounds; r++) {
		t += hot(200000 + (t & 1));
		if (r % 2 == 0) {
			t += warm(200000 + (t & 1));
			note(t);
		}
	}
	printf("%lu\n", t);
	return 0;
}
