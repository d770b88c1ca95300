import Foundation

/// One command to time as a whole process, run directly (no shell), as a user would type it.
public struct TimedCommand: Sendable {
    /// A short name for reports.
    public let label: String
    /// The executable's absolute path.
    public let executable: String
    /// The arguments (never a secret: secrets go in ``environment`` or ``input``).
    public let arguments: [String]
    /// Variables set on top of this process's environment.
    public let environment: [String: String]
    /// Bytes written to the command's standard input before it starts; empty means none.
    public let input: Data
    /// Text the command's standard output must contain, checked on the warm-up run.
    public let expectedOutput: String?

    /// Creates a command.
    public init(
        _ label: String, executable: String, arguments: [String], environment: [String: String] = [:],
        input: Data = Data(), expectedOutput: String? = nil
    ) {
        self.label = label
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.input = input
        self.expectedOutput = expectedOutput
    }
}

/// A command that failed its warm-up run: what it printed says why.
public struct CommandFailure: Error, CustomStringConvertible {
    /// What went wrong, with the command's standard error.
    public let description: String

    /// Creates a failure that says what went wrong.
    public init(description: String) {
        self.description = description
    }
}

/// The timings of one command's runs.
public struct ProcessSamples: Sendable {
    /// Wall-clock time from start to exit.
    public var wall = Samples()
    /// CPU time (user + system, all threads) the process used: what it costs on an idle machine,
    /// less disturbed than ``wall`` by other processes competing for the cores.
    public var cpu = Samples()

    /// The median wall-clock time, in nanoseconds.
    public var median: Double { wall.median }
}

/// Times `commands` as whole processes, interleaved: after one checked warm-up run of each,
/// every round runs each command once, starting one further along the list each round, so that
/// changes in the machine's load fall on all of them alike. Output goes to /dev/null.
///
/// - Returns: the samples of each command, in the order of `commands`.
/// - Throws: ``CommandFailure`` if a command exits non-zero or its output lacks ``TimedCommand/expectedOutput``.
public func timeInterleaved(_ commands: [TimedCommand], rounds: Int) throws -> [ProcessSamples] {
    for command in commands { try run(command) }
    var samples = [ProcessSamples](repeating: ProcessSamples(), count: commands.count)
    for round in 0..<rounds {
        for offset in commands.indices {
            let index = (round + offset) % commands.count
            let (status, wall, cpu) = try spawnAndWait(commands[index], output: "/dev/null", errors: "/dev/null")
            guard status == 0 else {
                throw CommandFailure(description: "\(commands[index].label) exited \(status) while timed")
            }
            samples[index].wall.append(wall)
            samples[index].cpu.append(cpu)
        }
    }
    return samples
}

/// Starts `command` and waits for it, standard output and error going to the files at `output`
/// and `errors`; returns its exit status (128 + N if killed by signal N), the wall-clock time
/// from start to exit and the CPU time it used.
///
/// Uses posix_spawn and wait4: Foundation's `Process.waitUntilExit()` polls every 50 ms on
/// Linux, which would swamp the commands measured here.
private func spawnAndWait(
    _ command: TimedCommand, output: String, errors: String
) throws -> (status: Int32, wall: Duration, cpu: Duration) {
    var input: [Int32] = [-1, -1]
    guard pipe(&input) == 0 else { throw CommandFailure(description: "pipe failed: errno \(errno)") }
    defer { close(input[0]) }
    let written = command.input.withUnsafeBytes { write(input[1], $0.baseAddress, $0.count) }
    close(input[1])
    guard written == command.input.count else {
        throw CommandFailure(description: "could not write \(command.label)'s input (it must fit in a pipe)")
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, input[0], 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let environment = ProcessInfo.processInfo.environment.merging(command.environment) { $1 }
    let argv = ([command.executable] + command.arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid = pid_t()
    var status: Int32 = 0
    let clock = ContinuousClock()
    let start = clock.now
    let spawned = posix_spawn(&pid, command.executable, &actions, nil, argv, envp)
    guard spawned == 0 else {
        throw CommandFailure(description: "cannot start \(command.executable): errno \(spawned)")
    }
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
    let elapsed = clock.now - start
    let cpu = [usage.ru_utime, usage.ru_stime].reduce(Duration.zero) {
        $0 + .seconds($1.tv_sec) + .microseconds($1.tv_usec)
    }
    let signal = status & 0x7f
    return (signal == 0 ? (status >> 8) & 0xff : 128 + signal, elapsed, cpu)
}

/// Runs `command` once, untimed, and returns its standard output (kept in a temporary file,
/// so output of any size is fine).
///
/// - Throws: ``CommandFailure`` if it exits non-zero or its output lacks ``TimedCommand/expectedOutput``.
@discardableResult
public func run(_ command: TimedCommand) throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let outputURL = directory.appendingPathComponent("stdout")
    let errorURL = directory.appendingPathComponent("stderr")
    let (status, _, _) = try spawnAndWait(command, output: outputURL.path, errors: errorURL.path)
    let errors = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
    guard status == 0 else { throw CommandFailure(description: "\(command.label) exited \(status): \(errors)") }
    let output = try String(contentsOf: outputURL, encoding: .utf8)
    if let expected = command.expectedOutput, !output.contains(expected) {
        throw CommandFailure(description: "\(command.label) did not print what it should have: \(errors)")
    }
    return output
}

/// The path of the executable `name` found first in `PATH`.
///
/// - Throws: ``CommandFailure`` naming the missing program.
public func executablePath(named name: String) throws -> String {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    for directory in directories {
        let path = "\(directory)/\(name)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    throw CommandFailure(description: "\(name) is not installed: run Scripts/bootstrap --bench")
}
