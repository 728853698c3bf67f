#ifndef NETKIT_CLIBFUZZER_H
#define NETKIT_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer's driver (its command line in argc/argv) on `test`: a harness's entry point. SwiftPM links each
/// executable with `main` set to `<module>_main`, so the harness defines that and calls this instead of relying on
/// libFuzzer's own `main`.
int netkit_fuzz_run(int argc, char **argv, int (*test)(const uint8_t *data, size_t size));

#endif
