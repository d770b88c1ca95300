#ifndef CPROCESSHARDENING_H
#define CPROCESSHARDENING_H

#include <stddef.h>

/// Sets whether the process may dump core or be attached to by a debugger without privilege:
/// prctl(PR_SET_DUMPABLE), which Swift cannot call because prctl is variadic.
int cprocess_set_dumpable(int dumpable);

/// prctl(PR_GET_DUMPABLE): 1 when the process may dump core, 0 when not, -1 on error.
int cprocess_get_dumpable(void);

/// Sets a file's POSIX access ACL (the kernel's `system.posix_acl_access` attribute, in its
/// binary form), without following a symbolic link: lsetxattr, which Glibc's Swift module lacks.
int cprocess_set_access_acl(const char *path, const void *value, size_t size);

/// Removes a file's POSIX access ACL (lremovexattr); -1 with ENODATA when it had none.
int cprocess_remove_access_acl(const char *path);

#endif
