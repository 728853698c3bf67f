import Foundation

/// A file of the given bytes in a directory of its own, removed when dropped.
final class ScratchFile: Sendable {
    let directory: URL
    let url: URL

    init(_ data: Data, name: String = "body.bin") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netkit-conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent(name)
        try data.write(to: url)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }
}
