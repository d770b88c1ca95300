#ifndef CSQLITEHARDENING_H
#define CSQLITEHARDENING_H

/// Turns on SQLITE_DBCONFIG_DEFENSIVE for an open connection (a `sqlite3 *`), which Swift cannot
/// do itself because sqlite3_db_config is variadic. Returns SQLITE_OK (0) when the setting took
/// effect, else an SQLite error code.
int swcred_sqlite_enable_defensive(void *connection);

/// Whether SQLITE_DBCONFIG_DEFENSIVE is on for an open connection: 1 if on, 0 if off, -1 if
/// SQLite could not tell.
int swcred_sqlite_is_defensive(void *connection);

#endif
