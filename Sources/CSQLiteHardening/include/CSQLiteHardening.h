#ifndef CSQLITEHARDENING_H
#define CSQLITEHARDENING_H

/// Turns on SQLITE_DBCONFIG_DEFENSIVE for an open connection (a `sqlite3 *`), which Swift cannot
/// do itself because sqlite3_db_config is variadic. Returns SQLITE_OK (0) when the setting took
/// effect, else an SQLite error code.
int swcred_sqlite_enable_defensive(void *connection);

/// Whether SQLITE_DBCONFIG_DEFENSIVE is on for an open connection: 1 if on, 0 if off, -1 if
/// SQLite could not tell.
int swcred_sqlite_is_defensive(void *connection);

/// Turns off triggers and views for an open connection (SQLITE_DBCONFIG_ENABLE_TRIGGER and
/// SQLITE_DBCONFIG_ENABLE_VIEW = 0): no trigger or view stored in the file runs in its
/// statements. Returns SQLITE_OK (0) when both settings took effect, else an SQLite error code.
int swcred_sqlite_disable_triggers_and_views(void *connection);

/// Whether triggers and views are both off for an open connection: 1 if so, 0 if either is on,
/// -1 if SQLite could not tell.
int swcred_sqlite_runs_no_stored_code(void *connection);

#endif
