import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetKit
import Synchronization

/// The child side of the bounds cases: one road through NetKit over one transport, then what it cost, as one JSON
/// line on stdout.
///
///   netkit-bench __bounds-child <idle|send|stream|paused|sse> <transport> <URL> [seconds]
///   transport-bench __bounds-child <idle|send|stream|paused|sse> <transport> <URL> [seconds]
///
/// This folder is compiled by both programs (Benchmarks/Transports links it into transport-bench, which has the
/// AsyncHTTPClient trait), so it uses only Foundation and NetKit. Each program says which transports it has in an
/// extension of its own: `BoundsChild.transports`.
///
/// - `idle`: one small request (the memory and CPU reference);
/// - `send`: `NetworkManager.send` of the body as `Data` (the whole-body road, `responseLimit` 64 MiB);
/// - `stream`: `stream()`, every chunk read as it comes;
/// - `paused`: `stream()`, the first chunk read, then nothing until the transport has taken in all it will (its
///   spill and resident memory unchanged for 1 s), then the rest;
/// - `sse`: `eventSource` with the default policy, iterated for `seconds`, then cancelled.
enum BoundsChild {
    static let command = "__bounds-child"
    static let resultPrefix = "BOUNDS-RESULT "

    enum Road: String, Codable {
        case idle, send, stream, paused, sse
    }

    struct Result: Codable {
        /// `completed`, or the error the road ended with.
        var outcome = "completed"
        /// Body bytes handed to the caller (events, for `sse`).
        var bytes = 0
        /// Chunks handed to the caller.
        var chunks = 0
        /// Connections the event source opened.
        var connections = 0
        var seconds = 0.0
        /// How long a paused consumer waited for the transport to go quiet.
        var pausedSeconds = 0.0
        /// User plus system CPU time of the whole child process.
        var cpuSeconds = 0.0
        var peakKiB = 0.0
        var peakSpillBytes: Int64 = 0
    }

    /// Any body, as bytes.
    struct Body: NetworkRequest, Sendable {
        typealias Response = Data
        let path: String
        var method: HTTPMethod { .get }
    }

    /// An event stream.
    struct Events: NetworkRequest, Sendable {
        typealias Response = EmptyResponse
        var path: String { "/events" }
        var method: HTTPMethod { .get }
    }

    static func run(_ arguments: [String]) async throws {
        guard arguments.count >= 3, let road = Road(rawValue: arguments[0]), let url = URL(string: arguments[2]),
            let base = URL(string: "/", relativeTo: url)?.absoluteURL
        else {
            fatalError("usage: \(command) <idle|send|stream|paused|sse> <transport> <URL> [seconds]")
        }
        guard let makeTransport = transports[arguments[1]] else {
            let names = transports.keys.sorted().joined(separator: ", ")
            FileHandle.standardError.write(Data("unknown transport \(arguments[1]): this build has \(names)\n".utf8))
            exit(2)
        }
        let manager = NetworkManager(baseURL: base, transport: makeTransport())
        let path = url.path.isEmpty ? "/" : url.path
        let sampler = ResourceSampler()
        let clock = ContinuousClock()
        let start = clock.now
        var result = Result()
        do {
            switch road {
            case .idle:
                result.bytes = try await manager.send(Body(path: "/small"), accessToken: nil).count
            case .send:
                result.bytes = try await manager.send(Body(path: path), accessToken: nil).count
            case .stream, .paused:
                let response = try await manager.stream(Body(path: path), accessToken: nil)
                var chunks = response.chunks.makeAsyncIterator()
                if road == .paused, let first = try await chunks.next() {
                    result.bytes += first.count
                    result.chunks += 1
                    result.pausedSeconds = seconds(try await sampler.waitUntilQuiet())
                }
                while let chunk = try await chunks.next() {
                    result.bytes += chunk.count
                    result.chunks += 1
                }
            case .sse:
                let seconds = arguments.count > 3 ? Double(arguments[3]) ?? 5 : 5
                (result.bytes, result.connections, result.outcome) = try await events(
                    manager, for: .milliseconds(Int64(seconds * 1000)))
            }
        } catch {
            result.outcome = describe(error)
        }
        result.seconds = seconds(clock.now - start)
        sampler.stop()
        result.cpuSeconds = processCPUSeconds()
        result.peakKiB = (peakResidentMiB() ?? 0) * 1024
        result.peakSpillBytes = sampler.peakSpillBytes
        print(resultPrefix + String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
    }

    /// Iterates an event source for `duration`, then cancels it: the events, the connections it opened, and how
    /// it ended.
    static func events(_ manager: NetworkManager, for duration: Duration) async throws -> (Int, Int, String) {
        let source = manager.eventSource(Events(), tokenProvider: { nil })
        let task = Task {
            var iterator = source.makeAsyncIterator()
            var events = 0
            var outcome = "running when cancelled"
            do {
                while try await iterator.next() != nil { events += 1 }
                outcome = "ended"
            } catch is CancellationError {
            } catch {
                outcome = describe(error)
            }
            return (events, iterator.connections, outcome)
        }
        try await Task.sleep(for: duration)
        task.cancel()
        return await task.value
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The error's type and text, on one line, at most 160 characters.
    static func describe(_ error: any Error) -> String {
        let text = "\(type(of: error)): \(error)".replacingOccurrences(of: "\n", with: " ")
        return text.count > 160 ? String(text.prefix(157)) + "..." : text
    }
}
