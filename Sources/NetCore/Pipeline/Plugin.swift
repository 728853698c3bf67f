/// Code that takes part in every request's life: SmartNetwork's lifecycle points, on NetKit's one road.
///
/// A plugin is registered on a `NetworkManager` (every request) or returned from a request's `plugins`
/// (that request only); `send` and `stream` run the same plugins. Every hook has a default that does nothing,
/// so a plugin implements only what it needs:
///
/// ```swift
/// struct Stopwatch: Plugin {
///     func didFinish(
///         _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics,
///         context: PluginContext
///     ) async {
///         print("#\(context.requestNumber) \(request.method) took \(metrics.duration)")
///     }
/// }
/// ```
///
/// When the hooks run, per request:
///
/// | hook | when | may |
/// | --- | --- | --- |
/// | ``prepare(_:context:)`` | once, before the first attempt | rewrite the request, throw |
/// | ``willSend(_:context:)`` | before every attempt (retries and the resend after a token refresh included) | change that attempt's request, throw |
/// | ``didReceive(_:for:context:)`` | after every attempt that got a response, whatever its status | observe |
/// | ``verify(_:for:context:)`` | after `didReceive`, before NetKit judges the status | throw, ask for another attempt, or replace the response |
/// | ``didFinish(_:result:metrics:context:)`` | once, when the request succeeded or failed | observe |
/// | ``wasCancelled(_:metrics:context:)`` | once, when the caller cancelled (then `didFinish` follows with `CancellationError`) | observe |
///
/// Every hook gets the request's ``PluginContext``: its ``PluginContext/requestNumber`` is the same from `prepare` to
/// `didFinish`, so a plugin that keeps something per request (a span, a timer, a log correlation) files it under that
/// number in `prepare` and takes it out in `didFinish`, however many requests overlap and however they end.
///
/// Order: plugins with a higher ``priority`` run first in every hook; equal priorities keep their registration
/// order, the manager's plugins before the request's.
public protocol Plugin: Sendable {
    /// Where the plugin runs among the others: higher first. Defaults to ``PluginPriority/normal``.
    var priority: PluginPriority { get }

    /// The header fields and query items this plugin sets that carry a credential (an API key, a signature): they go
    /// only to the origins the engine's ``CredentialScope`` allows, never across a redirect to another origin, and
    /// logs hide them. ``CredentialFields/none`` by default.
    var credentialFields: CredentialFields { get }

    /// Rewrites the request before its first attempt (a different URL, a signature, extra headers), or throws to
    /// fail the request before anything is sent.
    func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest

    /// Runs before each attempt with the request as that attempt sends it (the credential already applied).
    func willSend(_ request: inout TransportRequest, context: PluginContext) async throws

    /// Observes each response: status, headers and, for `send`, the body read so far.
    func didReceive(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async

    /// Judges each response before NetKit does: throw to fail the attempt with your own error, return
    /// ``PluginVerdict/retry`` to send the request again (a replayable request, at most
    /// ``PluginVerdict/maximumRetries`` times), ``PluginVerdict/replace(_:)`` to go on with another response, or
    /// ``PluginVerdict/accept``.
    func verify(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async throws
        -> PluginVerdict

    /// Observes how the request ended, once, with NetKit's own measurements.
    ///
    /// `context` is the request's: the ``PluginContext/requestNumber`` `prepare` saw, the last attempt's number and
    /// reason (attempt 0 when the request failed before any was made), and the request's start. For a request that
    /// failed without a response, `request` is the one built before any plugin ran: what `prepare` added is not in
    /// it, so keep what you need under the request number.
    func didFinish(
        _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics,
        context: PluginContext
    ) async

    /// Observes that the caller cancelled the request; `context` as in
    /// ``didFinish(_:result:metrics:context:)``, which follows.
    func wasCancelled(_ request: TransportRequest, metrics: RequestMetrics, context: PluginContext) async

    /// The end hook before it carried the request's context: a plugin that implements it still has it called, by
    /// the default ``didFinish(_:result:metrics:context:)``.
    @available(*, deprecated, renamed: "didFinish(_:result:metrics:context:)")
    func didFinish(_ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics)
        async

    /// The cancellation hook before it carried the request's context: a plugin that implements it still has it
    /// called, by the default ``wasCancelled(_:metrics:context:)``.
    @available(*, deprecated, renamed: "wasCancelled(_:metrics:context:)")
    func wasCancelled(_ request: TransportRequest, metrics: RequestMetrics) async
}

extension Plugin {
    /// ``PluginPriority/normal``.
    public var priority: PluginPriority { .normal }
    /// ``CredentialFields/none``: the plugin sets no credential.
    public var credentialFields: CredentialFields { .none }
    /// Leaves the request as it is.
    public func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
        request
    }
    /// Does nothing.
    public func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {}
    /// Does nothing.
    public func didReceive(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async {}
    /// Accepts the response.
    public func verify(_ response: ReceivedResponse, for request: TransportRequest, context: PluginContext) async throws
        -> PluginVerdict
    { .accept }
    /// Does nothing.
    @available(*, deprecated, renamed: "didFinish(_:result:metrics:context:)")
    public func didFinish(
        _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics
    ) async {}
    /// Does nothing.
    @available(*, deprecated, renamed: "wasCancelled(_:metrics:context:)")
    public func wasCancelled(_ request: TransportRequest, metrics: RequestMetrics) async {}
}

// The defaults of the hooks with a context call the deprecated ones, so that a plugin written before the context
// came still runs as it did. They live in a deprecated extension because that is where the compiler lets them call
// a deprecated requirement without a warning; a plugin that uses them, or implements the new hooks, gets none.
@available(*, deprecated, message: "implement the hook that takes a context")
extension Plugin {
    /// Calls ``didFinish(_:result:metrics:)``, which does nothing unless the plugin implements it.
    public func didFinish(
        _ request: TransportRequest, result: Result<ReceivedResponse, any Error>, metrics: RequestMetrics,
        context: PluginContext
    ) async {
        await didFinish(request, result: result, metrics: metrics)
    }
    /// Calls ``wasCancelled(_:metrics:)``, which does nothing unless the plugin implements it.
    public func wasCancelled(_ request: TransportRequest, metrics: RequestMetrics, context: PluginContext) async {
        await wasCancelled(request, metrics: metrics)
    }
}
