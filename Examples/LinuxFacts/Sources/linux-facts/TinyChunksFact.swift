import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetKit
import Synchronization

// MARK: - tiny-chunks

/// A GET whose body is collected whole, as `send` does.
private struct TinyChunks: NetworkRequest {
    typealias Response = Data
    var path: String { "/tiny" }
    var method: HTTPMethod { .get }
}

/// Answers `/tiny` with `count` chunks of one byte each (`Transfer-Encoding: chunked`), written as fast as the
/// socket takes them, in writes of about 60 KB.
private func tinyChunkServer(count: Int, finished: @escaping @Sendable () -> Void) -> TinyServer {
    TinyServer { request, connection in
        if request.path == "/small" { return connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") }
        connection.write(
            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        let one = Array("1\r\nx\r\n".utf8)
        let perWrite = 10_000
        let block = Array([[UInt8]](repeating: one, count: perWrite).joined())
        var sent = 0
        while sent < count {
            let now = min(perWrite, count - sent)
            guard connection.write(now == perWrite ? block : Array(block[..<(now * one.count)])) else { return false }
            sent += now
        }
        connection.write("0\r\n\r\n")
        finished()
        return false
    }
}

/// `linux-facts tiny-chunks [count] [road]`: a body of `count` (2,000,000 by default) one-byte chunks, read by
/// `road`: `urlsession` (`URLSession.data(from:)`), `send` (NetKit, whole body), `stream` (NetKit, a consumer
/// that keeps up), `stream-late` (NetKit, a consumer that starts once the server has written everything). Each
/// road runs in a process of its own (this program again), so that each peak (VmHWM) is its own.
func tinyChunksFact() async throws {
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    let count = Int(arguments.first ?? "") ?? 2_000_000
    if arguments.count >= 2 {
        return try await tinyChunksRoad(arguments[1], count: count)
    }
    for road in ["urlsession", "send", "stream", "stream-late"] {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["tiny-chunks", "\(count)", road]
        try child.run()
        child.waitUntilExit()
    }
}

private func tinyChunksRoad(_ road: String, count: Int) async throws {
    let finished = Flag()
    let server = tinyChunkServer(count: count) { finished.raise() }
    let startKiB = ProcessStats.statusKiB("VmHWM")
    let start = now()
    var outcome: String
    do {
        switch road {
        case "urlsession":
            let (data, _) = try await URLSession(configuration: .ephemeral).data(from: server.url("/tiny"))
            outcome = "\(data.count) bytes"
        case "send":
            let manager = NetworkManager(baseURL: server.url(""), transport: URLSessionTransport())
            outcome = "\(try await manager.send(TinyChunks()).count) bytes"
        case "stream", "stream-late":
            let manager = NetworkManager(baseURL: server.url(""), transport: URLSessionTransport())
            let response = try await manager.stream(TinyChunks())
            if road == "stream-late" {
                // Bounded: the server writes the whole body or gives up when the connection breaks.
                for _ in 0..<100_000 where !finished.isRaised { try await Task.sleep(for: .milliseconds(10)) }
            }
            var bytes = 0
            for try await chunk in response.chunks { bytes += chunk.count }
            outcome = "\(bytes) bytes"
        default:
            print("unknown road \(road): urlsession, send, stream or stream-late")
            return
        }
    } catch {
        outcome = "failed: \(describe(error))"
    }
    let answered = now() - start
    let answeredMiB = Double(ProcessStats.statusKiB("VmHWM") - startKiB) / 1024
    // A small GET on a session of its own: it waits for as long as the flood keeps URLSession's work queue busy,
    // which it still does when the caller has had its answer.
    let other = now()
    _ = try await URLSession(configuration: .ephemeral).data(from: server.url("/small"))
    let stalled = now() - other
    let grownMiB = Double(ProcessStats.statusKiB("VmHWM") - startKiB) / 1024
    print(
        "\(road.padding(toLength: 11, withPad: " ", startingAt: 0)) \(count) one-byte chunks: \(outcome) after "
            + "\(format(answered, 1)) s (peak memory +\(format(answeredMiB, 0)) MiB then); a small GET on another "
            + "session then took \(format(stalled, 1)) s; peak memory +\(format(grownMiB, 0)) MiB")
}

/// Set once, by the server's thread.
private final class Flag: Sendable {
    private let raised = Mutex(false)
    var isRaised: Bool { raised.withLock { $0 } }
    func raise() { raised.withLock { $0 = true } }
}
