import NetCore
import NetKitLock

/// One check of ``TransportConformance``: run it against your transport, alone or as one argument of a
/// parameterized test.
///
/// ```swift
/// @Test(arguments: TransportConformance.checks)
/// func conforms(_ check: TransportConformanceCheck) async throws {
///     try await check.run(against: MyTransport())
/// }
/// ```
public struct TransportConformanceCheck: Sendable, CustomStringConvertible, Hashable {
    /// A short name, such as `"cancellation during the body"`.
    public let name: String
    let body: @Sendable (ConformanceContext) async throws -> Void

    init(_ name: String, _ body: @escaping @Sendable (ConformanceContext) async throws -> Void) {
        self.name = name
        self.body = body
    }

    /// The name, as test reports show it.
    public var description: String { name }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }

    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// Runs the check against `transport`, each time against a fresh loopback server (127.0.0.1 only).
    /// - Throws: ``TransportConformanceFailure`` describing what the transport got wrong, also when it hangs for
    ///   longer than ``TransportConformanceOptions/timeLimit``.
    public func run(against transport: any HTTPTransport, options: TransportConformanceOptions = .init()) async throws {
        let context = ConformanceContext(check: name, transport: transport, options: options)
        let body = self.body
        let name = self.name
        try await Self.race(options.timeLimit, name: name) {
            do {
                try await body(context)
            } catch let failure as TransportConformanceFailure {
                throw failure
            } catch {
                throw TransportConformanceFailure(
                    check: name, message: "unexpected error: \(String(reflecting: error))")
            }
        }
    }

    /// Runs `work` in a task of its own and returns or throws as it does, unless `limit` passes first: then
    /// the work is cancelled and left behind (a hung transport must not hang the test run too).
    private static func race(
        _ limit: Duration,
        name: String,
        _ work: @escaping @Sendable () async throws -> Void
    ) async throws {
        let outcome = RaceOutcome()
        let worker = Task { try await work() }
        let timer = Task { try? await Task.sleep(for: limit) }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                outcome.wait(with: continuation)
                Task {
                    outcome.resume(with: await worker.result)
                    timer.cancel()
                }
                Task {
                    await timer.value
                    let failure = TransportConformanceFailure(
                        check: name, message: "did not finish within \(limit): the transport hangs")
                    if outcome.resume(with: .failure(failure)) { worker.cancel() }
                }
            }
        } onCancel: {
            worker.cancel()
        }
    }
}

/// The one continuation of a race, resumed by whoever finishes first.
private final class RaceOutcome: Sendable {
    private let continuation = Lock<CheckedContinuation<Void, any Error>?>(nil)

    func wait(with continuation: CheckedContinuation<Void, any Error>) {
        self.continuation.withLock { $0 = continuation }
    }

    /// Resumes the waiter unless someone did; whether this call did.
    @discardableResult
    func resume(with result: Result<Void, any Error>) -> Bool {
        guard let waiter = continuation.withLock({ $0.take() }) else { return false }
        waiter.resume(with: result)
        return true
    }
}
