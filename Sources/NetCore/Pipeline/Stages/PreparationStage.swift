/// Runs every plugin's `prepare`, once per request, before the first attempt.
struct PreparationStage: RequestStage {
    package let plugins: PluginList
    package let state: RequestState

    nonisolated(nonsending) package func run(_ request: TransportRequest, next: StageNext) async throws -> Exchange {
        var prepared = request
        let context = state.preparationContext
        for plugin in plugins.taking(.prepare) {
            prepared = try await plugin.prepare(prepared, context: context)
        }
        return try await next(prepared)
    }
}
