#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An event source made outside any actor got its token renewed after a 401, but has no way to read the new one.
///
/// Outside any actor, `eventSource(_:accessToken:)` reads its `accessToken` closure once, when the source is made:
/// the closure is not `Sendable`, and the source connects later from whichever task iterates it. After a renewal it
/// sends the token the manager's `tokenRefresher` reports when that refresher adopts NetAuth's
/// `CurrentTokenProviding`; otherwise it ends with this error rather than send the rejected token again.
///
/// Fix it in one of three ways: make the source with `eventSource(_:tokenProvider:)`, whose `@Sendable` provider is
/// read for each connection; make it on an actor (the main actor, say), where `accessToken` is read afresh on that
/// actor; or let the refresher adopt `CurrentTokenProviding`.
public struct RenewedTokenUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    /// Creates the error.
    public init() {}

    /// A sentence that says what failed, why, and what to do.
    public var description: String {
        "The event source's token was renewed after a 401, but the source cannot read the new one: it was made "
            + "outside any actor, so its accessToken closure (not Sendable) was read once, when it was made. Make the "
            + "source with eventSource(_:tokenProvider:) (a @Sendable closure read for each connection), make it on "
            + "an actor, or let the tokenRefresher adopt CurrentTokenProviding."
    }
}

extension RenewedTokenUnavailable: LocalizedError {
    /// The same sentence as ``description``.
    public var errorDescription: String? { description }
}
