import CProcessHardening
import Glibc

/// Lets exactly the `--allow-uid` uids reach the socket, and nobody else: a POSIX ACL entry for
/// each on the socket's directory (search only) and on the socket (read and write, which
/// `connect` needs), with the group and others given nothing. Written as the kernel's
/// `system.posix_acl_access` attribute, so no libacl is needed; a filesystem without ACLs is
/// refused at start-up rather than left closed to the uids the owner named.
enum SocketAccessList {
    /// The ACL entry tags of `<linux/posix_acl.h>`.
    private enum Tag: UInt16 {
        case userObject = 0x01
        case user = 0x02
        case groupObject = 0x04
        case mask = 0x10
        case other = 0x20
    }

    private static let noID = UInt32.max

    /// Gives each of `uids` search permission on `directory` (0700 otherwise); with no uids,
    /// removes any ACL an earlier run left there.
    static func grantDirectory(_ directory: String, to uids: Set<UInt32>) throws {
        if uids.isEmpty {
            guard cprocess_remove_access_acl(directory) == 0 || errno == ENODATA else {
                throw ServiceStartError(
                    .unusableSocketPath,
                    "cannot remove the access list of \(directory): \(String(cString: strerror(errno)))")
            }
            return
        }
        try set(entries(owner: 0o7, named: 0o1, uids: uids), on: directory)
    }

    /// Gives each of `uids` read and write permission on the socket (0600 otherwise).
    static func grantSocket(_ socket: String, to uids: Set<UInt32>) throws {
        guard !uids.isEmpty else { return }
        try set(entries(owner: 0o6, named: 0o6, uids: uids), on: socket)
    }

    /// The directories above `directory` that do not let other users through (no search
    /// permission for others): a uid of --allow-uid may be stopped there.
    static func closedAncestors(of directory: String) -> [String] {
        var closed: [String] = []
        var path = directory
        while let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            path = String(path[..<slash])
            var info = stat()
            if lstat(path, &info) == 0, info.st_mode & 0o001 == 0 { closed.append(path) }
        }
        return closed
    }

    /// The access list: the owner, each named uid (sorted, as the kernel requires), no group,
    /// a mask that lets the named entries have `named`, nothing for others.
    private static func entries(owner: UInt16, named: UInt16, uids: Set<UInt32>) -> [(Tag, UInt16, UInt32)] {
        [(Tag.userObject, owner, noID)] + uids.sorted().map { (Tag.user, named, $0) } + [
            (Tag.groupObject, 0, noID), (Tag.mask, named, noID), (Tag.other, 0, noID),
        ]
    }

    private static func set(_ entries: [(Tag, UInt16, UInt32)], on path: String) throws {
        var bytes: [UInt8] = []
        func append<Value: FixedWidthInteger>(_ value: Value) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        append(UInt32(2))  // POSIX_ACL_XATTR_VERSION
        for (tag, permissions, id) in entries {
            append(tag.rawValue)
            append(permissions)
            append(id)
        }
        guard cprocess_set_access_acl(path, bytes, bytes.count) == 0 else {
            let reason = String(cString: strerror(errno))
            throw ServiceStartError(
                .unusableSocketPath,
                "cannot let --allow-uid through to \(path) with a POSIX access list (\(reason)): put --socket on a filesystem with ACLs, such as /run or ext4"
            )
        }
    }
}
