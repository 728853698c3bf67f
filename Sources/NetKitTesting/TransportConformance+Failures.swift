import Foundation
import LoopbackServer
import NetCore

extension TransportConformance {
    /// A connection refused ends `send` with ``NetCore/TransportError/Kind/cannotConnect``, which the retry rules
    /// know as transient.
    static let refusedConnection = TransportConformanceCheck("refused connection") { context in
        // A port bound and never listened on: a stopped server's port could be given to another test's server
        // before the connection is tried (a reset, not a refusal, was seen so under a full parallel suite).
        let closed = try LoopbackClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let request = try context.request(closed.baseURL)
        do {
            let response = try await context.transport.send(request)
            throw context.failure("a request to a closed port got status \(response.statusCode)")
        } catch let failure as TransportConformanceFailure {
            throw failure
        } catch {
            try context.expect(error, is: .cannotConnect, "a refused connection")
        }
    }

    /// The request's idle timeout (``NetCore/TransportRequest/idleTimeout``) ends a transfer in which nothing
    /// moves with ``NetCore/TransportError/Kind/timedOut``, and closes the connection: before the head (`send`
    /// throws), and after the head while the body is held back (the body throws, or `send` when the body is
    /// collected whole).
    static let idleTimeout = TransportConformanceCheck("idle timeout") { context in
        let server = try context.server { request in
            // The server's waits end as soon as the client closes the connection.
            request.path == "/head"
                ? LoopbackResponse.text("late").with(.delayBeforeHead(.seconds(60)))
                : LoopbackResponse.text("late").with(.delayBeforeBody(.seconds(60)))
        }
        defer { server.stop() }
        let timeout = Duration.seconds(1)
        var aborted = 0

        func expectTimeout(_ path: String, whole: Bool, _ situation: String) async throws {
            var request = try context.request(server.baseURL.appendingPathComponent(path))
            request.idleTimeout = timeout
            if whole { request = context.wholeBody(request) }
            let body: ResponseBody
            do {
                body = try await context.transport.send(request).body
            } catch {
                try context.expect(error, is: .timedOut, "\(situation) (send threw)")
                return try await awaitClose(situation)
            }
            try context.expect(path != "/head", "\(situation): send returned although no head ever came")
            do {
                let data = try await body.collect(upTo: 1 << 20)
                throw context.failure("\(situation): the body ended cleanly with \(data.count) bytes; it must time out")
            } catch let failure as TransportConformanceFailure {
                throw failure
            } catch {
                try context.expect(error, is: .timedOut, situation)
            }
            try await awaitClose(situation)
        }

        func awaitClose(_ situation: String) async throws {
            aborted += 1
            try await context.await(
                .clientAbortedResponses, atLeast: aborted, on: server,
                "\(situation): the connection stayed open after the timeout")
        }

        try await expectTimeout("/head", whole: false, "no head within the idle timeout")
        try await expectTimeout("/body", whole: false, "no body within the idle timeout")
        try await expectTimeout("/body", whole: true, "no body within the idle timeout, the body collected whole")
    }

    /// A 2xx response that declares a `Content-Length` beyond what the caller keeps of a body collected whole
    /// (``NetCore/TransportRequest/wholeBody``) is handed over without waiting for that body, and its transfer
    /// stops: a server that declares gigabytes and trickles cannot hold the request (the engine then fails it with
    /// `NetworkError.responseTooLarge`). A transport that streams every body meets it by returning at the head.
    static let oversizedDeclaredLength = TransportConformanceCheck("body declared beyond the limit") { context in
        let server = try context.server { _ in
            .streamed(framing: .contentLength(2_000_000_000)) { writer in
                guard writer.write("the first bytes of two gigabytes") else { return }
                // Trickles no more: only the client's hanging up (or the server's stop) ends the response.
                _ = writer.waitForClientClose(timeout: .seconds(60))
            }
        }
        defer { server.stop() }
        var request = try context.request(server.baseURL)
        request.wholeBody = WholeBodyLimits(success: 1 << 20, failure: 1 << 20)
        do {
            let response = try await context.transport.send(request)
            try context.expect(
                response.declaredLength == 2_000_000_000,
                "the response's declared length is \(String(describing: response.declaredLength))")
        } catch {
            throw context.failure(
                "send waited for a body that cannot fit and ended with \(error), instead of handing over the head")
        }
        try await context.await(
            .clientAbortedResponses, atLeast: 1, on: server,
            "the transfer of a body that cannot fit went on after the head was handed over")
    }
}
