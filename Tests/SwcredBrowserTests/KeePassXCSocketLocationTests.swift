import Testing

@testable import SwcredBrowser

@Suite("Where keepassxc-proxy 2.7.4 connects")
struct KeePassXCSocketLocationTests {
    @Test("under XDG_RUNTIME_DIR: the app subfolder, and the legacy path beside it")
    func runtimeDirectory() {
        let location = KeePassXCSocketLocation(environment: ["XDG_RUNTIME_DIR": "/run/user/1000/"], userName: "alice")
        #expect(!location.isFallback)
        #expect(
            location.socketPath == "/run/user/1000/app/org.keepassxc.KeePassXC/org.keepassxc.KeePassXC.BrowserServer")
        #expect(location.legacyPath == "/run/user/1000/org.keepassxc.KeePassXC.BrowserServer")
    }

    @Test("without XDG_RUNTIME_DIR: Qt's runtime-<user> folder in TMPDIR, else /tmp")
    func fallback() {
        let plain = KeePassXCSocketLocation(environment: [:], userName: "alice")
        #expect(plain.isFallback)
        #expect(plain.runtimeFolder == "/tmp/runtime-alice")
        let empty = KeePassXCSocketLocation(
            environment: ["XDG_RUNTIME_DIR": "", "TMPDIR": "/var/tmp//"], userName: "bob")
        #expect(empty.runtimeFolder == "/var/tmp/runtime-bob")
        #expect(
            empty.socketPath == "/var/tmp/runtime-bob/app/org.keepassxc.KeePassXC/org.keepassxc.KeePassXC.BrowserServer"
        )
    }
}
