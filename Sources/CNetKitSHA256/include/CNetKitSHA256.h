#ifndef CNETKIT_SHA256_H
#define CNETKIT_SHA256_H

#include <stddef.h>
#include <stdint.h>

/// K, the 64 round constants of FIPS 180-4 §4.2.2: the Swift rounds and the instructions share the one table.
extern const uint32_t netkit_sha256_round_constants[64];

/// Whether this processor has the SHA-256 instructions `netkit_sha256_hardware_compress` uses (x86-64's SHA
/// extensions with SSSE3 and SSE4.1); 0 on every other processor.
int netkit_sha256_hardware_available(void);

/// Hashes `blocks` consecutive 64-byte blocks at `data` (any alignment) into `state`, the eight working words
/// a through h of FIPS 180-4, with the processor's SHA-256 instructions. Call it only when
/// `netkit_sha256_hardware_available()` returned 1; elsewhere it does nothing.
void netkit_sha256_hardware_compress(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
