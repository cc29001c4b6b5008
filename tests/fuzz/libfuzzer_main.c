/*
 * libfuzzer_main.c - libFuzzer's entry point for one target: `make fuzz`
 * compiles it once per target with -DFUZZ_ENTRY=fuzz_NAME (fuzz.h).
 */
#include "fuzz.h"

#ifndef FUZZ_ENTRY
#error "compile with -DFUZZ_ENTRY=fuzz_NAME"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return FUZZ_ENTRY(data, size);
}
