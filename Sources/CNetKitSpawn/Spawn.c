// The two file actions are GNU (and BSD) extensions that Swift's Glibc module does not declare, hence this C shim.
// The test harness starts its child processes with posix_spawn rather than Foundation's `Process`, whose listing of
// /proc/self/fd crashes once a process holds more than about 1,360 descriptors.
#define _GNU_SOURCE
#include "CNetKitSpawn.h"

#include <errno.h>

int netkit_spawn_add_close_from(posix_spawn_file_actions_t *actions, int lowest) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
#else
    (void)actions;
    (void)lowest;
    return ENOSYS;
#endif
}

int netkit_spawn_add_change_directory(posix_spawn_file_actions_t *actions, const char *path) {
#if (defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))) || defined(__APPLE__)
    return posix_spawn_file_actions_addchdir_np(actions, path);
#else
    (void)actions;
    (void)path;
    return ENOSYS;
#endif
}
