/*
 * fuzz.h - what the libFuzzer targets share with the regression driver
 * (replay.c).  Under libFuzzer the defaults apply; replay.c tightens them.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Out-of-memory injection (STYLE T9).  FUZZ_OOM_SAMPLED, the default,
 * reads three inputs in eight (chosen by a hash of their bytes) a
 * second time with one allocation failing.  FUZZ_OOM_SWEEP does that for
 * every allocation of each input of at most fuzz_oom_sweep_max bytes
 * (larger ones are sampled).  FUZZ_OOM_OFF injects nothing.
 */
enum fuzz_oom_mode {
	FUZZ_OOM_OFF = 0,
	FUZZ_OOM_SAMPLED = 1,
	FUZZ_OOM_SWEEP = 2,
};

extern enum fuzz_oom_mode fuzz_oom;
extern size_t fuzz_oom_sweep_max;

#endif /* FUZZ_H */
