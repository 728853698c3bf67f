#ifndef CNETKIT_SPAWN_H
#define CNETKIT_SPAWN_H

#include <spawn.h>

/// Adds to `actions` the closing of every descriptor from `lowest` up in the child: glibc's
/// `posix_spawn_file_actions_addclosefrom_np` (2.34 and later). Returns 0, or an error number: `ENOSYS` where the
/// C library has no such action (Darwin closes them with `POSIX_SPAWN_CLOEXEC_DEFAULT` instead).
int netkit_spawn_add_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// Adds to `actions` a change of the child's working directory to `path` before it runs:
/// `posix_spawn_file_actions_addchdir_np`. Returns 0, or an error number (`ENOSYS` where there is no such action).
int netkit_spawn_add_change_directory(posix_spawn_file_actions_t *actions, const char *path);

#endif
