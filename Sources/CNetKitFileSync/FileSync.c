// `sync_file_range` is a GNU extension that Swift's Glibc module does not declare, hence this C shim. A download
// starts the writeback of what it has written as it goes, so that the `fsync` before the file is moved into place
// finds little left to write instead of the whole file.
#define _GNU_SOURCE
#include "CNetKitFileSync.h"

#if defined(__linux__)
#include <errno.h>
#include <fcntl.h>

int netkit_start_writeback(int descriptor, int64_t offset, int64_t length) {
    return sync_file_range(descriptor, offset, length, SYNC_FILE_RANGE_WRITE) == 0 ? 0 : errno;
}
#else
int netkit_start_writeback(int descriptor, int64_t offset, int64_t length) {
    (void)descriptor;
    (void)offset;
    (void)length;
    return 0;
}
#endif
