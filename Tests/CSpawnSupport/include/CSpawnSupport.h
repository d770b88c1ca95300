#ifndef CSPAWNSUPPORT_H
#define CSPAWNSUPPORT_H

#include <spawn.h>

/// Adds a spawn action that closes every descriptor from `lowest` up: glibc's
/// posix_spawn_file_actions_addclosefrom_np, which Swift cannot see because glibc declares it
/// only for _GNU_SOURCE.
int cspawn_add_close_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
