#ifndef CNETKIT_FILE_SYNC_H
#define CNETKIT_FILE_SYNC_H

#include <stdint.h>

/// Starts writing the dirty pages of `length` bytes at `offset` of the file open at `descriptor` to the disk, and
/// returns without waiting for them: Linux's `sync_file_range(SYNC_FILE_RANGE_WRITE)`. Returns 0, or the `errno` of
/// the failure. Elsewhere (no such call) it does nothing and returns 0; the `fsync` that ends a download writes
/// everything there.
int netkit_start_writeback(int descriptor, int64_t offset, int64_t length);

#endif
