#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

/// Sends HTTP Basic credentials (RFC 7617) with every attempt.
///
/// ```swift
/// let basic = try BasicAuthenticationPlugin(username: "ann", password: "secret")
/// manager.plugins.append(basic)
/// ```
public struct BasicAuthenticationPlugin: Plugin {
    private let headerValue: String

    /// Credentials that cannot be sent: a user-id with a colon, or a control character anywhere.
    public struct InvalidCredentials: Error, Equatable, CustomStringConvertible {
        /// Creates the error.
        public init() {}

        /// What is wrong, without the credentials themselves.
        public var description: String {
            "Basic credentials cannot hold a colon in the user-id or a control character anywhere (RFC 7617)."
        }
    }

    /// Prepares the header for `username` and `password` (UTF-8, as RFC 7617 recommends).
    /// - Throws: ``InvalidCredentials`` when the user-id holds a colon or either part a control character.
    public init(username: String, password: String) throws(InvalidCredentials) {
        let hasControl = (username + password).unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
        guard !username.contains(":"), !hasControl else { throw InvalidCredentials() }
        headerValue = "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }

    /// Adds `Authorization: Basic …` to each attempt.
    public func willSend(_ request: inout TransportRequest, context: PluginContext) async throws {
        try request.setHeader("Authorization", headerValue)
    }
}

/// The plugin's name before NetKit had one way to intercept a request.
@available(*, deprecated, renamed: "BasicAuthenticationPlugin")
public typealias BasicAuthenticationMiddleware = BasicAuthenticationPlugin
