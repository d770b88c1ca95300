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

int swcred_sqlite_disable_triggers_and_views(void *connection) {
    int triggers = 1;
    int views = 1;
    int status = sqlite3_db_config((sqlite3 *)connection, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &triggers);
    if (status != SQLITE_OK) {
        return status;
    }
    status = sqlite3_db_config((sqlite3 *)connection, SQLITE_DBCONFIG_ENABLE_VIEW, 0, &views);
    if (status != SQLITE_OK) {
        return status;
    }
    return triggers == 0 && views == 0 ? SQLITE_OK : SQLITE_ERROR;
}

int swcred_sqlite_runs_no_stored_code(void *connection) {
    int triggers = 1;
    int views = 1;
    if (sqlite3_db_config((sqlite3 *)connection, SQLITE_DBCONFIG_ENABLE_TRIGGER, -1, &triggers) != SQLITE_OK
        || sqlite3_db_config((sqlite3 *)connection, SQLITE_DBCONFIG_ENABLE_VIEW, -1, &views) != SQLITE_OK) {
        return -1;
    }
    return triggers == 0 && views == 0;
}
