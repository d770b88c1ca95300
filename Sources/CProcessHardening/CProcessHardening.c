#include "CProcessHardening.h"

#include <sys/prctl.h>
#include <sys/xattr.h>

int cprocess_set_dumpable(int dumpable) {
    return prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0);
}

int cprocess_get_dumpable(void) {
    return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
}

int cprocess_set_access_acl(const char *path, const void *value, size_t size) {
    return lsetxattr(path, "system.posix_acl_access", value, size, 0);
}

int cprocess_remove_access_acl(const char *path) {
    return lremovexattr(path, "system.posix_acl_access");
}
