#if OpenAPI && os(Linux)
import Foundation
import Glibc
import HTTPTypes
import LoopbackServer
import NetCore
import NetOpenAPI
import NetTransport
import OpenAPIRuntime
import NetKitLock
import Testing

/// The temporary file of a gathered request body (NetKitClientTransport on URLSession, a body past
/// `replayableBodyLimit`) is readable by this user only from the instant it exists, and gone when the call returns.
///
/// A watcher (inotify) stats each file of the directory the moment the kernel reports it created or moved in, as a
/// local attacker would open it. A file created 0644 and restricted afterwards was seen open to everyone in most
/// calls; one created 0600 can never be.
@Suite("NetOpenAPI's temporary files: 0600 from the first instant", .timeLimit(.minutes(10)))
struct GatheredBodyModeTests {
    /// Watches a directory: each file created or moved into it, and its permission bits when first seen.
    final class Watcher: Sendable {
        let sightings = Lock<[(name: String, mode: UInt32)]>([])
        private let descriptor: Int32
        private let directory: String
        private let done = DispatchSemaphore(value: 0)
        /// The file whose creation stops the watcher.
        static let stopName = "stop-watching"

        init(_ directory: URL) throws {
            self.directory = directory.path
            descriptor = inotify_init1(Int32(IN_CLOEXEC))
            guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            guard inotify_add_watch(descriptor, directory.path, UInt32(IN_CREATE | IN_MOVED_TO)) >= 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            let thread = Thread { [self] in run() }
            thread.start()
        }

        private func run() {
            defer { done.signal() }
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            // Each round reads at least one event; the stop file ends it.
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { return }
                var offset = 0
                while offset + 16 <= count {
                    let length =
                        Int(buffer[offset + 12]) | Int(buffer[offset + 13]) << 8
                        | Int(buffer[offset + 14]) << 16 | Int(buffer[offset + 15]) << 24
                    let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    offset += 16 + length
                    if name == Self.stopName { return }
                    var info = stat()
                    guard stat(directory + "/" + name, &info) == 0 else { continue }
                    sightings.withLock { $0.append((name, UInt32(info.st_mode) & 0o777)) }
                }
            }
        }

        /// Stops the watcher and returns what it saw.
        func stop() -> [(name: String, mode: UInt32)] {
            _ = FileManager.default.createFile(atPath: directory + "/" + Self.stopName, contents: nil)
            done.wait()
            close(descriptor)
            try? FileManager.default.removeItem(atPath: directory + "/" + Self.stopName)
            return sightings.withLock { $0 }
        }
    }

    @Test("every gathered body's file is 0600 when first seen, and deleted when the call returns")
    func modeFromTheFirstInstant() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("netkit-openapi-mode-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let server = try LoopbackServer(limits: LoopbackLimits(), requestBodies: .digested) { .uploadReport(for: $0) }
        defer { server.stop() }
        var transport = NetKitClientTransport(executor: RequestExecutor(transport: URLSessionTransport()))
        transport.replayableBodyLimit = 1024
        transport.temporaryDirectory = scratch
        let watcher = try Watcher(scratch)
        let calls = 30
        for call in 0..<calls {
            let (response, body) = try await transport.send(
                request(.post, "/upload"), body: singlePassBody([pattern(4096, seed: UInt8(call))]),
                baseURL: server.baseURL, operationID: "upload")
            #expect(response.status.code == 200)
            _ = try await collect(body)
        }
        let sightings = watcher.stop()
        let bodies = sightings.filter { $0.name.hasPrefix("netkit-openapi-body-") }
        #expect(bodies.count >= calls, "the watcher saw \(bodies.count) files for \(calls) calls")
        let open = bodies.filter { $0.mode != 0o600 }
        #expect(
            open.isEmpty,
            "\(open.count) of \(bodies.count) files were seen with a mode other than 0600: \(open.prefix(3).map { String($0.mode, radix: 8) })"
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
    }
}
#endif
