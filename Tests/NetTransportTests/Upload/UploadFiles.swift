import Foundation

/// A directory of its own per test, removed when dropped; descriptor checks look only here,
/// so tests running in parallel cannot disturb the count.
final class UploadScratch {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netkit-transport-upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func file(_ name: String, _ data: Data) throws -> URL {
        let file = url.appendingPathComponent(name)
        try data.write(to: file)
        return file
    }

    /// Descriptors of this process that point into this directory (`/proc/self/fd`, Linux).
    func openDescriptorCount() -> Int {
        let fdDirectory = "/proc/self/fd"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: fdDirectory) else { return -1 }
        return entries.count { entry in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdDirectory)/\(entry)")
            return target?.hasPrefix(url.path) ?? false
        }
    }
}

/// Bytes that differ from offset to offset (a 251-byte cycle, prime so it never lines up with
/// buffer sizes), built by doubling so tens of MiB cost milliseconds in debug builds.
func uploadPattern(_ count: Int, seed: UInt8 = 3) -> Data {
    var data = Data((0..<251).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) })
    while data.count < count { data.append(data) }
    return data.prefix(count)
}
