import NetKitDigest
import Foundation
import LoopbackServer
import NetKit
import NetKitLock

/// A directory of its own per test, removed when dropped. Descriptor counts look only here, so tests
/// running in parallel (and the test runner's own files) cannot disturb them.
final class UploadScratch {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("netkit-uploads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `bytes` to a file named `name` in the directory.
    func file(_ name: String, _ bytes: Data) throws -> URL {
        let file = url.appendingPathComponent(name)
        try bytes.write(to: file)
        return file
    }

    /// Descriptors of this process that point into this directory (`/proc/self/fd`, Linux); -1 where
    /// the process's descriptors cannot be listed.
    func openDescriptorCount() -> Int {
        let directory = "/proc/self/fd"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return -1 }
        return entries.count { entry in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(entry)")
            return target?.hasPrefix(url.path) ?? false
        }
    }
}

/// Bytes that differ from offset to offset (a 251-byte cycle, prime so it never lines up with buffer
/// sizes), built by doubling so tens of MiB cost milliseconds in debug builds.
func uploadPattern(_ count: Int, seed: UInt8 = 3) -> Data {
    var data = Data((0..<251).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) })
    while data.count < count { data.append(data) }
    return data.prefix(count)
}

/// SHA-256 of `data` in lowercase hexadecimal, as the loopback server reports it.
func sha256Hex(_ data: Data) -> String {
    SHA256.hex(SHA256.hash(data))
}

/// POSTs a multipart form; the server answers with what it saw of the body.
struct SendForm: NetworkRequest {
    typealias Response = LoopbackUploadReport
    var form: MultipartFormData
    var progress: NetworkProgress?
    var path: String { "/forms" }
    var method: HTTPMethod { .post }
    var multipartData: MultipartFormData? { form }
}

/// PUTs a body (idempotent, so a retry policy may repeat it); the server answers with what it saw.
struct PutBody: NetworkRequest {
    typealias Response = LoopbackUploadReport
    var body: RequestBody?
    var retries = 0
    var progress: NetworkProgress?
    var path: String { "/files/upload" }
    var method: HTTPMethod { .put }
    var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: retries, delay: 0) }
}

/// Counts calls from any thread (a server handler runs on the connection's thread).
final class CallCounter: Sendable {
    private let count = Lock(0)

    /// Counts one call and returns its 1-based number.
    func next() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}
