import ArgumentParser
import SharedWebCredentials

/// The Argon2id presets offered on the command line.
enum KDFPreset: String, ExpressibleByArgument, CaseIterable {
    case interactive, moderate, sensitive
}

/// Options choosing the Argon2id parameters for a new passphrase.
struct KDFOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Argon2id preset: interactive (2 passes, 64 MiB), moderate (3, 256 MiB) or sensitive (4, 1 GiB). Default: 3 passes, 64 MiB.",
            valueName: "preset"))
    var kdf: KDFPreset?

    @Option(help: ArgumentHelp("Argon2id passes, overriding the preset (at least 1).", valueName: "n"))
    var kdfOpslimit: UInt64?

    @Option(help: ArgumentHelp("Argon2id memory in bytes, overriding the preset (at least 8192).", valueName: "bytes"))
    var kdfMemlimit: UInt64?

    /// Whether any KDF option was given.
    var isSpecified: Bool { kdf != nil || kdfOpslimit != nil || kdfMemlimit != nil }

    /// The chosen parameters, starting from `base` (the preset, or the default).
    func parameters(base: KDFParameters = .default) throws -> KDFParameters {
        let preset = kdf.flatMap { KDFParameters(preset: $0.rawValue) } ?? base
        let chosen = try KDFParameters(
            opslimit: kdfOpslimit ?? preset.opslimit, memlimit: kdfMemlimit ?? preset.memlimit)
        if chosen.opslimit < KDFParameters.interactive.opslimit || chosen.memlimit < KDFParameters.interactive.memlimit
        {
            Terminal.printWarning(
                "Argon2id parameters below the interactive preset make the passphrase easier to guess.")
        }
        return chosen
    }
}
