#include "CSQLiteHardening.h"

#include <sqlite3.h>

int swcred_sqlite_enable_defensive(void *connection) {
    int enabled = 0;
    int status = sqlite3_db_config((sqlite3 *)connection, SQLITE_DBCONFIG_DEFENSIVE, 1, &enabled);
    if (status != SQLITE_OK) {
        return status;
    }
    return enabled == 1 ? SQLITE_OK : SQLITE_ERROR;
}

int swcred_sqlite_is_defensive(void *connection) {
    int enabled = 0;
    if (sqlite3_db_config((sqlite3 *)connection, SQLITE_DBCONFIG_DEFENSIVE, -1, &enabled) != SQLITE_OK) {
        return -1;
    }
    return enabled;
}
