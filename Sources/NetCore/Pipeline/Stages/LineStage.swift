/// Waits while the ``HoldTheLine`` is held (a refresh, a migration), before the credential is read.
package struct LineStage: RequestStage {
    package let line: HoldTheLine

    package func run(_ request: TransportRequest, next: StageNext) async throws -> Exchange {
        try await line.waitUntilOpen()
        return try await next(request)
    }
}
