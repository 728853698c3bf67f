import Foundation
import LoopbackServer
import NetCore

/// What one check works with: the transport under test, the options, and ways to fail with a clear message.
struct ConformanceContext: Sendable {
    let check: String
    let transport: any HTTPTransport
    let options: TransportConformanceOptions

    /// What `send` keeps of a body it collects whole: more than any check sends, so nothing is cut.
    static let wholeBodyLimits = WholeBodyLimits(success: 64 << 20, failure: 64 << 20)

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

    /// A request for `url`, its header fields added in order (a name given twice is sent twice).
    func request(
        _ url: URL,
        method: HTTPRequestMethod = .get,
        headers: [(name: String, value: String)] = [],
        body: UploadSource? = nil,
        progress: NetworkProgress? = nil
    ) throws -> TransportRequest {
        do {
            let head = try HTTPRequestHead(method: method, url: url, headerFields: HTTPHeaderFields(headers))
            return TransportRequest(head: head, body: body, progress: progress)
        } catch {
            throw failure("the suite could not build a request for \(url): \(error)")
        }
    }

    /// `request` as `send` hands it over: the body to be collected whole, which a transport may deliver complete
    /// at the end of the transfer (``TransportRequest/wholeBody``).
    func wholeBody(_ request: TransportRequest) -> TransportRequest {
        var request = request
        request.wholeBody = Self.wholeBodyLimits
        return request
    }

    /// Sends `request`, failing the check (with what the transport threw) if it throws.
    func send(_ request: TransportRequest, _ what: @autoclosure () -> String = "the request") async throws
        -> TransportResponse
    {
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

    /// The kind of transport failure `error` says it is, if it says one (what the retry rules read).
    static func kind(of error: any Error) -> TransportError.Kind? {
        (error as? any TransportErrorConvertible)?.transportError.kind
    }

    /// Checks that `error` is a failure of `kind` in NetKit's words (any error will do when the options do not
    /// require the kinds).
    func expect(_ error: any Error, is kind: TransportError.Kind, _ situation: String) throws {
        guard options.requiresTransportErrorKinds else { return }
        let seen = Self.kind(of: error)
        try expect(
            seen == kind,
            "\(situation): failed with \(String(reflecting: error))\(seen.map { " (kind \($0))" } ?? ", not a TransportError"); expected TransportError of kind .\(kind)"
        )
    }

    /// Checks that reading `body` to its end fails, and fails as a connection that broke should:
    /// ``TransportError/Kind/connectionLost``.
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
        case .failure(let error):
            try expect(error, is: .connectionLost, situation)
        }
    }

    /// Checks that a transfer of `request` breaks as a connection that broke should, whether the transport says
    /// so when `send` returns (a body collected whole) or when the body is read.
    func expectBrokenTransfer(_ request: TransportRequest, _ situation: String) async throws {
        let response: TransportResponse
        do {
            response = try await transport.send(request)
        } catch {
            return try expect(error, is: .connectionLost, "\(situation) (send threw)")
        }
        try await expectBrokenBody(response.body, situation)
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
    func await(_ counter: LoopbackCounter, atLeast value: Int, on server: LoopbackServer, _ message: String)
        async throws
    {
        do {
            // The check's time limit, not a shorter wait: how soon the server's thread sees a closed connection
            // depends on how busy the machine is, and a wait cut short would blame the transport for it.
            try await server.wait(for: counter, atLeast: value, timeout: options.timeLimit)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw failure("\(message) (\(error))")
        }
    }

    /// Waits until `progress` satisfies `condition` (checked at every change of its fraction), failing with
    /// `message` when it has not within half the check's time limit: long enough for a machine whose cores are all
    /// busy (a fixed 10 s once failed "progress while uploading" in the full trait suite on 2 cores), short enough
    /// that this message, not the check's time limit, says what was missing.
    func await(
        _ progress: NetworkProgress,
        _ message: @autoclosure () -> String,
        until condition: @escaping @Sendable (NetworkProgress) -> Bool
    ) async throws {
        let patience = options.timeLimit / 2
        let met = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                // Each round takes one change of the fraction, or ends with the stream; the stream starts with the
                // current value, so a condition already met is seen at once.
                for await _ in progress.updates where condition(progress) { return true }
                return condition(progress)
            }
            group.addTask {
                try? await Task.sleep(for: patience)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        try Task.checkCancellation()
        try expect(met, message())
    }
}
