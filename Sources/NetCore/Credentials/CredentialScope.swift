#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The origins a request may carry the engine's credentials to: the bearer token, the fields plugins and
/// ``RequestExecutor/Configuration/credentialFields`` declare, and default headers that carry one (``CredentialFields``).
///
/// By default (``baseURLOrigin``) only the base URL's origin gets them: a request that names another `baseURL` (an
/// avatar, a `next` link, a pre-signed download URL the API handed out) goes without, and so does every redirect hop
/// to another origin. Credentials a request sets in its own `headers` go to that request's own origin. Name the other
/// origins your credentials are meant for:
///
/// ```swift
/// executor.credentialScope = .baseURLOrigin(and: [URL(string: "https://uploads.example.com")!])
/// ```
///
/// ``anyOrigin`` restores NetKit 0.1's behaviour, where a request's own origin always got them (redirects to
/// another origin still drop them).
public struct CredentialScope: Sendable, Hashable {
    private enum Kind: Hashable {
        case origins(Set<HTTPOrigin>)
        case any
    }

    private let kind: Kind

    /// The base URL's origin alone (the default).
    public static let baseURLOrigin = CredentialScope(kind: .origins([]))

    /// The base URL's origin and the origins of `urls` (scheme, host and port each count: `http://` is another
    /// origin than `https://`).
    public static func baseURLOrigin(and urls: [URL]) -> CredentialScope {
        CredentialScope(kind: .origins(Set(urls.compactMap(HTTPOrigin.init))))
    }

    /// Whatever origin a request names (NetKit 0.1's behaviour). A redirect to another origin still drops them.
    public static let anyOrigin = CredentialScope(kind: .any)

    /// Whether a request to `origin` may carry the credentials of an engine whose base URL has `base` for origin.
    public func allows(_ origin: HTTPOrigin, base: HTTPOrigin?) -> Bool {
        switch kind {
        case .any: true
        case .origins(let others): origin == base || others.contains(origin)
        }
    }

    /// Whether every origin is allowed.
    package var allowsAnyOrigin: Bool { kind == .any }
}
