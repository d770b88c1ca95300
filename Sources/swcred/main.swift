import SwcredCommands
import SwcredHardening

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

ProcessHardening.apply()
PostgreSQLHandOff.runIfNamed()
exit(await runSwcred())
