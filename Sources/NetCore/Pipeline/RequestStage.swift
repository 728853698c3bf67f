/// The rest of the road after a stage: the stages inside it, then the transport.
package typealias StageNext = @Sendable (TransportRequest) async throws -> Exchange

/// One step of a request's road: the deadline, retries, the held line, the credential, the status check,
/// the plugins' per-attempt hooks, the body. A stage may change the request, call `next` more than once, or
/// turn the exchange into an error.
package protocol RequestStage: Sendable {
    func run(_ request: TransportRequest, next: StageNext) async throws -> Exchange
}

/// Stages around a final step, outermost first: the one road `send` and `stream` take.
package struct StageChain: Sendable {
    package let stages: [any RequestStage]
    package let terminal: StageNext

    package init(_ stages: [any RequestStage], terminal: @escaping StageNext) {
        self.stages = stages
        self.terminal = terminal
    }

    package func run(_ request: TransportRequest) async throws -> Exchange {
        try await run(request, from: stages[...])
    }

    private func run(_ request: TransportRequest, from remaining: ArraySlice<any RequestStage>) async throws -> Exchange {
        guard let stage = remaining.first else { return try await terminal(request) }
        let rest = remaining.dropFirst()
        return try await stage.run(request) { next in try await self.run(next, from: rest) }
    }
}
