#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A redirect the engine would not follow: the request fails before anything goes to the target.
///
/// Its text names the status, the origins and the rule, never a path or query value:
///
/// ```swift
/// catch let error as RedirectError where error.reason == .insecureDowngrade { … }
/// print(error)   // "Refused the 302 from https://api.example.com to http://api.example.com: it leaves https for http …"
/// ```
public struct RedirectError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why a hop was refused.
    public enum Reason: Sendable, Equatable {
        /// The `Location` is not an `http` or `https` URL (`file:`, `data:`, `ftp:` …): its scheme.
        case unsupportedScheme(String)
        /// The `Location` cannot be read as a URL, or names no host.
        case invalidLocation
        /// The `Location` carries a user name or password for another origin.
        case credentialsInLocation
        /// The hop leaves `https` for `http` (see ``RedirectPolicy/allowsInsecureDowngrade``).
        case insecureDowngrade
        /// The target is a loopback, private or link-local address (see ``RedirectPolicy/refusesPrivateAddresses``):
        /// the host as the `Location` names it.
        case privateAddress(String)
        /// A `307` or `308` would send the request's body to another origin.
        case bodyToAnotherOrigin
        /// A `307` or `308` needs the body again, and it is a stream that cannot be read twice.
        case bodyNotReplayable
        /// ``RedirectPolicy/decide`` refused the hop, for this reason.
        case refused(String)
    }

    /// Why the hop was refused.
    public let reason: Reason
    /// The redirect's status.
    public let statusCode: Int
    /// The origin that answered with the redirect.
    public let from: HTTPOrigin?
    /// The origin it pointed to, when it has one.
    public let to: HTTPOrigin?

    /// Creates an error.
    public init(_ reason: Reason, statusCode: Int, from: HTTPOrigin?, to: HTTPOrigin?) {
        self.reason = reason
        self.statusCode = statusCode
        self.from = from
        self.to = to
    }

    /// "Refused the 302 from https://a.example to http://a.example: it leaves https for http …"
    public var description: String {
        let source = from.map { " from \($0)" } ?? ""
        let target = to.map { " to \($0)" } ?? ""
        return "Refused the \(statusCode) redirect\(source)\(target): \(why)"
    }

    private var why: String {
        switch reason {
        case .unsupportedScheme(let scheme):
            "its Location is a \(HeaderValidation.printable(scheme)): URL, and only http and https are followed"
        case .invalidLocation:
            "its Location is not a URL with a host"
        case .credentialsInLocation:
            "its Location carries a user name or password for another origin"
        case .insecureDowngrade:
            "it leaves https for http; set RedirectPolicy.allowsInsecureDowngrade to follow such hops (credentials never go)"
        case .privateAddress(let host):
            "\(HeaderValidation.printable(host)) is a loopback, private or link-local address, "
                + "and RedirectPolicy.refusesPrivateAddresses is on"
        case .bodyToAnotherOrigin:
            "a 307 or 308 would send the request's body to another origin; follow it yourself if you mean to"
        case .bodyNotReplayable:
            "a 307 or 308 needs the body again, and the body is a stream that cannot be read twice "
                + "(give the request a file or Data body to let it be sent again)"
        case .refused(let why):
            "RedirectPolicy.decide refused it (\(why))"
        }
    }
}

extension RedirectError: LocalizedError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}
