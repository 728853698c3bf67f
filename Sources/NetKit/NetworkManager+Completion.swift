import NetKitLock

extension NetworkManager {
    /// Sends `request` and hands its outcome to `completion`: the callback style of SmartNetwork and NetworkKit, on the
    /// same road as ``send(_:accessToken:)`` (plugins, retries, token refresh, logging).
    ///
    /// ```swift
    /// manager.send(GetUser(id: 42), accessToken: { tokens.current }) { result in
    ///     if case .success(let user) = result { print(user.name) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - accessToken: Read before every attempt, on no particular thread; a non-empty token goes out as
    ///     `Authorization: Bearer` unless the request sets its own `Authorization`.
    ///   - options: When the request starts and whether releasing the handle cancels it (``NetworkTask/Options``);
    ///     by default it starts at once and runs to its end even if the handle is dropped.
    ///   - completion: Runs exactly once, with the decoded value or the error `send` would throw, or with
    ///     `CancellationError` when the task is cancelled first. It runs on no particular thread, never the main one
    ///     by design and never inside the call that cancels: to update UI, hop yourself
    ///     (`Task { @MainActor in … }`).
    /// - Returns: The handle; discarding it is fine unless you passed ``NetworkTask/Options/cancelsOnRelease``,
    ///   which then cancels the request at once.
    ///
    /// The request is sent from a task of its own, off the caller's actor: so `T`'s conformance to ``Endpoint`` may
    /// not be isolated to a global actor (`SendableMetatype`), which ordinary request types never are.
    @discardableResult
    public func send<T: Endpoint>(
        _ request: sending T,
        accessToken: (@Sendable () -> String?)? = nil,
        options: NetworkTask.Options = [],
        completion: @escaping @Sendable (Result<T.Response, any Error>) -> Void
    ) -> NetworkTask where T: SendableMetatype, T.Response: SendableMetatype {
        let delivery = CompletionGate(completion)
        // The request moves into the task that sends it: held here until the task starts, then taken out once.
        let pending = Lock<T?>(request)
        return NetworkTask(
            options: options,
            operation: { [self] in
                guard let request = pending.withLock({ $0.take() }) else { return }
                let result: Result<T.Response, any Error>
                do {
                    result = .success(try await send(request, accessToken: accessToken))
                } catch {
                    result = .failure(error)
                }
                delivery.claim()?(result)
            },
            claimCancellation: {
                guard let completion = delivery.claim() else { return nil }
                return { completion(.failure(CancellationError())) }
            }
        )
    }
}

/// Hands a completion to the first of the outcome and a cancellation that claims it: what makes it run exactly once.
private final class CompletionGate<Response>: Sendable {
    private let completion: Lock<(@Sendable (Result<Response, any Error>) -> Void)?>

    init(_ completion: @escaping @Sendable (Result<Response, any Error>) -> Void) {
        self.completion = Lock(completion)
    }

    /// The completion for the first caller, `nil` for every later one.
    func claim() -> (@Sendable (Result<Response, any Error>) -> Void)? {
        completion.withLock { $0.take() }
    }
}
