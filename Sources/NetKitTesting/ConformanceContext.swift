import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import NetCore

/// What one check works with: the transport under test, the options, and ways to fail with a clear message.
struct ConformanceContext: Sendable {
    let check: String
    let transport: any HTTPTransport
    let options: TransportConformanceOptions

    /// A failure of this check.
    func failure(_ message: String) -> TransportConformanceFailure {
        TransportConformanceFailure(check: check, message: message)
    }

    /// Fails the check with `message` unless `condition` holds.
    func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw failure(message()) }
    }

    /// A server on 127.0.0.1 that answers with `handler`.
    func server(
        limits: LoopbackLimits = LoopbackLimits(),
        _ handler: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse
    ) throws -> LoopbackServer {
        do {
            return try LoopbackServer(limits: limits, handler: handler)
        } catch {
            throw failure("could not start the loopback server: \(error)")
        }
    }

    /// A request for `url`.
    func request(
        _ url: URL,
        method: String = "GET",
        headers: [(name: String, value: String)] = [],
        payload: RequestPayload = .empty,
        progress: NetworkProgress? = nil
    ) -> TransportRequest {
        var head = URLRequest(url: url)
        head.httpMethod = method
        for (name, value) in headers { head.addValue(value, forHTTPHeaderField: name) }
        return TransportRequest(head: head, payload: payload, progress: progress)
    }

    /// Sends `request`, failing the check (with what the transport threw) if it throws.
    func send(_ request: TransportRequest, _ what: @autoclosure () -> String = "the request") async throws -> TransportResponse {
        do {
            return try await transport.send(request)
        } catch {
            throw failure("\(what()) failed: \(String(reflecting: error))")
        }
    }

    /// The whole body, failing the check if it ends with an error.
    func collect(_ body: ResponseBody, _ what: @autoclosure () -> String = "the response body") async throws -> Data {
        do {
            return try await body.collect(upTo: max(options.largeBodyBytes, 1 << 20) + (1 << 20))
        } catch {
            throw failure("reading \(what()) failed: \(String(reflecting: error))")
        }
    }

    /// The body as UTF-8 text.
    func text(_ body: ResponseBody, _ what: @autoclosure () -> String = "the response body") async throws -> String {
        String(decoding: try await collect(body, what()), as: UTF8.self)
    }

    /// Checks that reading `body` to its end fails, and fails as a connection that broke should.
    func expectBrokenBody(_ body: ResponseBody, _ situation: String) async throws {
        let outcome: Result<Data, any Error>
        do {
            outcome = .success(try await body.collect(upTo: 64 << 20))
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let data):
            throw failure("\(situation): the body ended cleanly after \(data.count) bytes; it must end with an error")
        case .failure(let error as URLError) where error.code == .networkConnectionLost:
            return
        case .failure(let error):
            try expect(
                !options.requiresURLErrorCodes,
                "\(situation): the body failed with \(String(reflecting: error)); expected URLError(.networkConnectionLost)"
            )
        }
    }

    /// Checks that `operation` ends in `CancellationError`.
    func expectCancellation(_ situation: String, _ operation: () async throws -> Void) async throws {
        do {
            try await operation()
        } catch is CancellationError {
            return
        } catch {
            throw failure("\(situation): ended with \(String(reflecting: error)) instead of CancellationError")
        }
        throw failure("\(situation): ended normally instead of with CancellationError")
    }

    /// Waits until `server` counts `value` of `counter`, failing with `message` otherwise.
    func await(_ counter: LoopbackCounter, atLeast value: Int, on server: LoopbackServer, _ message: String) async throws {
        do {
            try await server.wait(for: counter, atLeast: value, timeout: .seconds(10))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw failure("\(message) (\(error))")
        }
    }
}
