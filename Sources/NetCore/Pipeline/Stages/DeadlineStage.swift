/// Bounds everything inside it — every attempt, every retry wait, the token refresh — by one deadline, and ends
/// the request with ``TransportError/Kind/timedOut`` when it passes.
///
/// NetKit's own timer on the continuous clock, to the millisecond, on every transport: URLSession on Linux
/// truncates its timeouts to whole seconds and ignores the resource timeout.
package struct DeadlineStage: RequestStage {
    package let deadline: MonotonicInstant

    package init(deadline: MonotonicInstant) {
        self.deadline = deadline
    }

    nonisolated(nonsending) package func run(_ request: TransportRequest, next: StageNext) async throws -> Exchange {
        let deadline = self.deadline.instant
        // The group waits for both children before it returns, so `next` never outlives this call.
        return try await withoutActuallyEscaping(next) { next in
            try await race(request, next: next, deadline: deadline)
        }
    }

    nonisolated(nonsending) private func race(
        _ request: TransportRequest, next: @escaping StageNext, deadline: ContinuousClock.Instant
    ) async throws -> Exchange {
        try await withThrowingTaskGroup(of: Exchange?.self) { group in
            group.addTask { try await next(request) }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let exchange = first else {
                throw TransportError(.timedOut, detail: "the request did not finish within its timeout")
                    .located(at: request.head)
            }
            return exchange
        }
    }
}
