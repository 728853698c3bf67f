#include "CLibFuzzer.h"

// Provided by libFuzzer (-sanitize=fuzzer).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size));

int netkit_fuzz_run(int argc, char **argv, int (*test)(const uint8_t *data, size_t size)) {
    return LLVMFuzzerRunDriver(&argc, &argv, test);
}
