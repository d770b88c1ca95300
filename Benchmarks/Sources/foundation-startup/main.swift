// The smallest Swift program that loads Foundation, as swcred does, and exits: the floor under
// any Swift command-line tool's start-up on Linux. peers-bench times it next to `swcred`.
import Foundation

_ = ProcessInfo.processInfo.arguments
