/*
 * deep.cpp - a C++ program with deep stacks that cross the shared
 * libraries, for the unwinding tests (the aarch64 captures of
 * testdata/arm64/).
 *
 * Each of two threads descends a recursion 8 to 15 levels deep
 * (descend(), noinline, with an inlined always_inline helper at every
 * level), and at the bottom does one of four jobs in turn, so the stacks
 * run through every library a C++ program usually touches:
 *   - qsort() with a comparator: libc calls back into the program, so
 *     the program's frames sit above and below libc's;
 *   - std::set inserts: libstdc++'s _Rb_tree_insert_and_rebalance and
 *     operator new -> malloc in libc;
 *   - sin()/exp() in libm, through an always_inline helper;
 *   - a throw caught three frames up: __cxa_throw in libstdc++ and the
 *     unwinder in libgcc_s.
 * argv[1] is the run time in milliseconds (default 300), measured on
 * the monotonic clock, so a capture's size depends on the sampling rate,
 * not on the machine's (or the emulator's) speed.
 */
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <thread>

#define NOINLINE __attribute__((noinline))
#define INLINE inline __attribute__((always_inline))

namespace pdtest {

static volatile uint64_t sink;

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

NOINLINE static uint64_t job_qsort(uint64_t seed)
{
	uint32_t v[256];

	for (unsigned i = 0; i < 256; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		v[i] = (uint32_t)(seed >> 33);
	}
	qsort(v, 256, sizeof(v[0]), cmp_u32);
	return v[17] ^ v[200];
}

NOINLINE static uint64_t job_set(uint64_t seed)
{
	std::set<uint64_t> s;

	for (unsigned i = 0; i < 300; i++)
		s.insert((seed + i) * 2654435761u % 100003);
	return *s.begin() + s.size();
}

static INLINE double wave(double x)
{
	return std::sin(x) * std::exp(-x * 1e-3);
}

NOINLINE static uint64_t job_math(uint64_t seed)
{
	double acc = 0;

	for (unsigned i = 0; i < 400; i++)
		acc += wave((double)(seed % 1000 + i));
	return (uint64_t)(acc * 1000.0);
}

NOINLINE static void thrower(uint64_t seed)
{
	if (seed != ~0ull)
		throw std::runtime_error("deep");
}

NOINLINE static void relay(uint64_t seed)
{
	thrower(seed);
	sink = sink + 1;	/* not a tail call */
}

NOINLINE static uint64_t job_throw(uint64_t seed)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < 8; i++) {
		try {
			relay(seed + i);
		} catch (const std::runtime_error &) {
			n++;
		}
	}
	return n;
}

static INLINE uint64_t step(uint64_t seed, int depth)
{
	return seed * 31 + (uint64_t)depth;
}

NOINLINE static uint64_t descend(uint64_t seed, int depth, unsigned job)
{
	uint64_t r;

	if (depth > 0) {
		r = descend(step(seed, depth), depth - 1, job);
		return r ^ depth;	/* not a tail call */
	}
	switch (job & 3) {
	case 0:
		return job_qsort(seed);
	case 1:
		return job_set(seed);
	case 2:
		return job_math(seed);
	default:
		return job_throw(seed);
	}
}

NOINLINE static void worker(std::chrono::steady_clock::time_point deadline,
			    uint64_t seed)
{
	uint64_t acc = 0, round = 0;

	while (std::chrono::steady_clock::now() < deadline) {
		acc += descend(seed + round, 8 + (int)(round % 8),
			       (unsigned)round);
		round++;
	}
	sink = sink + acc;
}

} // namespace pdtest

int main(int argc, char **argv)
{
	long duration_ms = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 300;

	if (duration_ms <= 0 || duration_ms > 60000) {
		std::fprintf(stderr, "usage: deep [milliseconds (1..60000)]\n");
		return 64;
	}
	auto deadline = std::chrono::steady_clock::now() +
			std::chrono::milliseconds(duration_ms);
	std::thread other(pdtest::worker, deadline, 7);
	pdtest::worker(deadline, 1);
	other.join();
	std::printf("%llu\n", (unsigned long long)(pdtest::sink & 0xff));
	return 0;
}
