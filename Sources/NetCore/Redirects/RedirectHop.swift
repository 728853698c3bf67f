#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One redirect the engine is about to follow, as ``RedirectPolicy/decide`` sees it.
public struct RedirectHop: Sendable {
    /// The `3xx` that asks for the hop.
    public let response: HTTPResponseHead
    /// The URL that answered with it.
    public let from: URL
    /// Where it points (its `Location`, resolved against ``from``).
    public let to: URL
    /// The hop's number in the chain, from 1.
    public let number: Int
    /// The request the engine would send: the method the status calls for, the fields that may go to ``to``, the
    /// body when it may go. Credentials, cookies and plugins' fields are added per hop by the stages that own them.
    public let request: TransportRequest

    /// Whether ``to`` is another origin than ``from``.
    public var isCrossOrigin: Bool { HTTPOrigin(from) != HTTPOrigin(to) }

    /// Creates a hop (for tests of a policy of your own).
    public init(response: HTTPResponseHead, from: URL, to: URL, number: Int, request: TransportRequest) {
        self.response = response
        self.from = from
        self.to = to
        self.number = number
        self.request = request
    }
}

/// What ``RedirectPolicy/decide`` answers for a hop.
public enum RedirectDecision: Sendable {
    /// Follow the hop with this request: ``RedirectHop/request`` as it is, or changed. The engine's rules (schemes,
    /// downgrades, private addresses, what may cross origins) are checked again on it.
    case follow(TransportRequest)
    /// Do not follow: the `3xx` is the response.
    case deliver
    /// Fail the request with ``RedirectError/Reason/refused(_:)`` and this reason.
    case refuse(String)
}
