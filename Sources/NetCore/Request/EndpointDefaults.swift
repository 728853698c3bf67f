#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetKitLock
import Synchronization

/// What an engine lends, while it sends a request, to the request's properties that keep ``Endpoint``'s defaults:
/// the configuration's JSON encoder, JSON decoder and retry policy.
///
/// The rule it carries: a request that implements `jsonEncoder`, `jsonDecoder` or `retryPolicy` itself keeps its own;
/// one that keeps the protocol's default gets the engine's (``RequestExecutor/Configuration/defaultEncoder`` and its siblings),
/// and a plain `JSONEncoder()`, `JSONDecoder()` or `RetryPolicy()` outside an engine that has one. Swift cannot
/// tell whether a type replaced a protocol requirement's default, so the default itself asks: it reads this value,
/// which ``RequestExecutor`` binds for the length of one request (and only when it has a default to lend, so an
/// engine without one pays nothing). Being task-local, it belongs to that request alone: another engine's request on
/// the same task, or the same request sent elsewhere, sees its own engine's defaults.
package struct EndpointDefaults: Sendable {
    /// The encoder of JSON bodies for requests that keep the default `jsonEncoder`.
    package var encoder: JSONEncoder?
    /// The decoder of JSON responses for requests that keep the default `jsonDecoder`.
    package var decoder: JSONDecoder?
    /// The retry policy for requests that keep the default `retryPolicy`.
    package var retryPolicy: RetryPolicy?

    /// Whether there is nothing to lend.
    package var isEmpty: Bool { encoder == nil && decoder == nil && retryPolicy == nil }

    /// The defaults of the request the engine is sending on this task, if its engine has any.
    @TaskLocal package static var current: EndpointDefaults?

    /// The encoder a request that keeps the default `jsonEncoder` gets now.
    package static var encoder: JSONEncoder { current?.encoder ?? JSONEncoder() }
    /// The decoder a request that keeps the default `jsonDecoder` gets now.
    package static var decoder: JSONDecoder { current?.decoder ?? JSONDecoder() }
    /// The retry policy a request that keeps the default `retryPolicy` gets now.
    package static var retryPolicy: RetryPolicy { current?.retryPolicy ?? RetryPolicy() }

    /// While bound, the requirements whose protocol default answered are noted in it: how NetKitTesting's
    /// `EndpointRequirements` tells a request's own properties from a near miss (a property of another type, which
    /// Swift accepts silently and never calls). Bound only by ``withProbe(_:_:)``.
    @TaskLocal private static var probe: DefaultsProbe?

    /// How many ``probe``s are bound now, in any task. A request reads a dozen of its defaults; while no probe is
    /// bound anywhere (always, outside NetKitTesting), each read costs one atomic load instead of a task-local lookup.
    private static let boundProbes = Atomic<Int>(0)

    /// Runs `body` with `probe` bound: every default read in it, on this task, is noted in `probe`.
    package static func withProbe<Value>(_ probe: DefaultsProbe, _ body: () throws -> Value) rethrows -> Value {
        // Counted before it is bound and until it is unbound: a read that finds no probe counted has none bound.
        boundProbes.add(1, ordering: .sequentiallyConsistent)
        defer { boundProbes.subtract(1, ordering: .sequentiallyConsistent) }
        return try $probe.withValue(probe, operation: body)
    }

    /// Notes, in the bound ``probe``, that the default of the requirement `name` answered.
    package static func noteDefault(_ name: String) {
        guard boundProbes.load(ordering: .relaxed) > 0 else { return }
        probe?.note(name)
    }
}

/// The requirements whose default answered while it was bound to ``EndpointDefaults/probe``.
package final class DefaultsProbe: Sendable {
    private let names = Lock<[String]>([])

    package init() {}

    /// Notes `name` once.
    package func note(_ name: String) {
        names.withLock { if !$0.contains(name) { $0.append(name) } }
    }

    /// The requirements noted, in the order they were first read.
    package var noted: [String] { names.withLock { $0 } }
}
