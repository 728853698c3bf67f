/// A value that belongs to the caller's actor, used by a request's stages wherever they run.
///
/// EKNetwork's `accessToken` closure and a request's `errorDecoder` are not `Sendable`: they are formed on the
/// caller's actor (often the main actor) and may read its state. The stages run on the generic executor (and,
/// under a whole-request timeout, in a child task), so they never call such a value directly: ``read(_:)`` hops
/// to the actor the value was formed on and calls it there.
///
/// `@unchecked Sendable` is safe because the value is only ever touched inside ``read(_:)``, on `isolation`,
/// the actor it was formed on; for a value formed outside any actor (`isolation` is `nil`), `read` runs while
/// the caller's task is suspended in `send` or `stream`, one call at a time, so nothing else can touch the value
/// meanwhile. Nothing that outlives the caller's call may hold such a value: `eventSource`, which returns a source
/// that connects later from any task, reads a closure formed outside any actor once, before it returns, and keeps
/// the token (`EventSourceTokenTests`) until a renewal, then sends the refresher's current token
/// (`EventSourceRenewalTests`); or it takes a `Sendable` token provider.
package struct CallerIsolated<Value>: @unchecked Sendable {
    private let value: Value
    private let isolation: (any Actor)?

    package init(_ value: Value, isolation: isolated (any Actor)? = #isolation) {
        self.value = value
        self.isolation = isolation
    }

    /// Calls `body` with the value on the caller's actor.
    package func read<Result: Sendable>(_ body: @Sendable (Value) -> Result) async -> Result {
        await Self.call(self, body, on: isolation)
    }

    private static func call<Result: Sendable>(
        _ box: CallerIsolated,
        _ body: @Sendable (Value) -> Result,
        on actor: isolated (any Actor)?
    ) -> Result {
        body(box.value)
    }
}

extension CallerIsolated {
    /// Whether the value is `nil`: known when the value is formed, so it needs no trip to the caller's actor.
    func isNone<Wrapped>() -> Bool where Value == Wrapped? {
        value == nil
    }
}
