/*
 * diffwork.c - two builds of one program, for `pdtool diff` (see
 * testdata/diff.md).
 *
 * The program repeats a step of four functions for the number of
 * milliseconds given as argv[1] (default 1000, on CLOCK_MONOTONIC):
 * parse and checksum do two units of work each, transform two units a
 * round, report one.  Build A takes transform's rounds from argv[2]
 * (default 1): a step is 2 + 2 + 2 + 1 units, transform 2/7 of them.
 * Build B (-DBUILD_B) has two rounds compiled in, so transform does twice
 * the work (4 of 9 units), and at -O2 GCC clones it for the constant as
 * transform.constprop.0: the name differs between the builds as compiler
 * clones do in real ones.  A step takes well under a millisecond, so
 * samples taken a millisecond apart fall in the four functions about
 * independently of each other.
 *
 * Built with -O2 -g -fno-omit-frame-pointer (testdata/record.sh); the
 * noinline attributes keep every function a frame of its own.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;
/* iterations in a unit of work; a variable, so that only build B's
 * constant rounds make GCC clone transform */
static unsigned unit = 4000;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

NOINLINE static uint64_t parse(uint64_t x)
{
	for (unsigned i = 0; i < 2 * unit; i++)
		x = (x ^ i) * 0x100000001b3ull;
	return x;
}

NOINLINE static uint64_t checksum(uint64_t x)
{
	for (unsigned i = 0; i < 2 * unit; i++)
		x = (x + i) * 0x9e3779b97f4a7c15ull;
	return x;
}

NOINLINE static uint64_t transform(uint64_t x, unsigned rounds)
{
	for (unsigned r = 0; r < rounds; r++)
		for (unsigned i = 0; i < 2 * unit; i++)
			x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull + i;
	return x;
}

NOINLINE static uint64_t report(uint64_t x)
{
	for (unsigned i = 0; i < unit; i++)
		x = (x - i) * 0x94d049bb133111ebull;
	return x;
}

NOINLINE static uint64_t step(uint64_t x, unsigned rounds)
{
	x = parse(x);
	x = checksum(x);
	x = transform(x, rounds);
	return report(x);
}

int main(int argc, char **argv)
{
	const uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000;
#ifdef BUILD_B
	const unsigned rounds = 2;
#else
	const unsigned rounds =
		argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 1;
#endif
	const uint64_t end = now_ms() + ms;
	uint64_t x = 1;

	while (now_ms() < end)
		for (int i = 0; i < 16; i++)
			x = step(x, rounds);
	sink = x;
	return 0;
}
