import NetCore

/// A conformance suite for any `HTTPTransport`: the behaviour NetKit's engine relies on, checked over real
/// TCP against a loopback server on 127.0.0.1 that each check starts and stops itself.
///
/// It covers methods, request and response headers, request bodies of every kind (memory, streams of known and
/// unknown length, files, multipart forms), status codes, incremental streaming, cancellation before the head and
/// during the body, a body the consumer abandons, large bodies both ways and redirects (no credentials to another
/// origin), and each promise of the seam (`HTTPTransport`) in a check of its own:
/// - repeated fields both ways: a field set twice reaches the server with both values, every `Set-Cookie` reaches
///   the caller apart;
/// - no CR, LF or NUL reaches the wire by any API;
/// - progress: bytes sent and received reported as they move, the upload complete before the request is, and
///   completion left to the engine;
/// - failures in NetKit's words (`TransportError.Kind`): a refused connection, a body dropped mid-way or
///   shorter than its `Content-Length`, an idle timeout;
/// - a body collected whole that declares more than the caller keeps is not waited for;
/// - the head time: when the head arrived, also when the body is collected whole;
/// - no unbounded buffering: a streamed response body reaches the caller while it is still arriving, a streamed
///   request body reaches the server while it is still being produced (each held back behind a signal, never a
///   sleep, so a transport that gathers a body into memory first fails with a message that says so).
/// - the engine's response cache over the transport, a check per rule, each named after its section (`cache: RFC
///   9111 §5.1 Age`): strict `Expires`, `Age`, explicit and heuristic freshness, a 304 that updates the stored
///   fields, `Vary`, `immutable`, `must-understand`, invalidation by `POST` and `PROPFIND`,
///   `stale-while-revalidate` and `stale-if-error`.
///
/// The suite is a library of async checks that throw a descriptive ``TransportConformanceFailure``; it does not
/// depend on a test framework, so it runs from Swift Testing and XCTest alike:
///
/// ```swift
/// import NetKitTesting
/// import Testing
///
/// @Test(arguments: TransportConformance.checks)
/// func conforms(_ check: TransportConformanceCheck) async throws {
///     try await check.run(against: MyTransport())
/// }
///
/// @Test func conformsInOneGo() async throws {
///     try await TransportConformance.verify(MyTransport())   // lists every failure at once
/// }
/// ```
public enum TransportConformance {
    /// Every check, in a stable order.
    public static var checks: [TransportConformanceCheck] {
        [
            connects, methods, requestHeaders, responseHeaders, statusCodes,
            repeatedRequestFields, repeatedResponseFields, noControlCharactersOnTheWire,
            requestBodies, largeBodies, progress, progressWhileUploading,
            headBeforeBody, headTime, incrementalStreaming, responseBodyNotGathered, requestBodyNotGathered,
            droppedBody, shortBody,
            cancellationBeforeHead, cancellationDuringBody, abandonedBody,
            redirects, refusedConnection, idleTimeout, oversizedDeclaredLength,
            eventSequences, sentParts, unansweredClose,
        ] + cachingChecks
    }

    /// Runs every check against `transport`, one after another, and reports every failure at once. When the
    /// transport cannot reach the test server at all, that is the one failure reported: "the transport did not
    /// connect to the test server at http://127.0.0.1:…".
    /// - Throws: ``TransportConformanceFailures`` when any check failed.
    public static func verify(_ transport: any HTTPTransport, options: TransportConformanceOptions = .init())
        async throws
    {
        do {
            try await connects.run(against: transport, options: options)
        } catch let failure as TransportConformanceFailure {
            throw TransportConformanceFailures(failures: [failure])
        }
        var failures: [TransportConformanceFailure] = []
        for check in checks where check != connects {
            try Task.checkCancellation()
            do {
                try await check.run(against: transport, options: options)
            } catch let failure as TransportConformanceFailure {
                failures.append(failure)
            }
        }
        if !failures.isEmpty { throw TransportConformanceFailures(failures: failures) }
    }
}
