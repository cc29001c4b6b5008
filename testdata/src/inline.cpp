/*
 * inline.cpp - a small C++ program with an inlined function, for testing
 * inline-frame symbolization.
 *
 * square_sum() is always_inline, so at -O1 its body lives inside
 * Accumulator::run() with DW_TAG_inlined_subroutine entries in the DWARF
 * and no frame of its own: only a DWARF-aware symbolizer (perf report
 * --inline, libdw) shows it.  Accumulator::run() and spin() stay real
 * (noinline) frames; a template and a namespace give mangled names to
 * demangle.  argv[1] is the run time in milliseconds (default 300).
 */
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace pdtest {

static inline __attribute__((always_inline)) uint64_t
square_sum(uint64_t a, uint64_t n)
{
	uint64_t s = a;

	for (uint64_t i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}

template <typename T> class Accumulator {
public:
	explicit Accumulator(T seed) : total_(seed) {}
	__attribute__((noinline)) T run(T n)
	{
		total_ = square_sum(total_, n);
		return total_;
	}

private:
	T total_;
};

__attribute__((noinline)) uint64_t spin(uint64_t seed)
{
	Accumulator<uint64_t> acc(seed);

	return acc.run(200000);
}

} // namespace pdtest

int main(int argc, char **argv)
{
	long duration_ms = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 300;
	auto deadline = std::chrono::steady_clock::now() +
			std::chrono::milliseconds(duration_ms);
	volatile uint64_t sink = 0;

	if (duration_ms <= 0 || duration_ms > 60000) {
		std::fprintf(stderr, "usage: inline [milliseconds (1..60000)]\n");
		return 64;
	}
	while (std::chrono::steady_clock::now() < deadline)
		sink = pdtest::spin(sink + 1);
	std::printf("%llu\n", (unsigned long long)(sink & 0xff));
	return 0;
}
