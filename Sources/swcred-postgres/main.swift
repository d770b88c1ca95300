// `swcred` with the PostgreSQL engine: `swcred` runs it for commands that name a PostgreSQL store
// (PostgreSQLHandOff), so that the engine costs nothing to the commands that do not.
import SharedWebCredentialsPostgres
import SwcredCommands
import SwcredHardening

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

ProcessHardening.apply()
PostgreSQLEngine.register()
exit(await runSwcred())
