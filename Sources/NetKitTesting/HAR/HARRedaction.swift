import Foundation
import NetCore

/// What ``HARRecordingTransport`` replaces with ``placeholder`` before it writes anything: the values of credential
/// header fields, of query items and of JSON (and form) body fields. A recorded fixture holds no secret unless you
/// opt one field back in with `keeping(…)`.
///
/// ``standard`` (the default) replaces:
/// - header values of `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `Authentication-Info`, every
///   name that looks secret (`X-API-Key`, anything with `token`, `secret`, `password`, `session`… in it) and every
///   field the request's `TransportRequest.credentialFields` declare (what plugins such as `TokenPlugin` and the
///   engine's settings add). A `Cookie` or `Set-Cookie` value keeps its cookie names and attributes
///   (`session=REDACTED; Path=/; HttpOnly`), so a fixture still shows which cookies went back and forth;
/// - query values of the items the request's credential fields declare and of secret-looking names (`api_key`,
///   `access_token`, `X-Amz-Signature`), in the URL, in `queryString` and in the header fields that carry a URL
///   (`Location`, `Content-Location`, `Referer`, `Refresh`, each `<…>` of a `Link`);
/// - in JSON bodies (any body that reads as JSON, whatever its `Content-Type`), the value of every object member
///   named as in ``standardJSONFields``, at any depth, and the same names in `application/x-www-form-urlencoded`
///   bodies.
///
/// ```swift
/// let redaction = HARRedaction(headers: ["X-Tenant-Signature"], queryItems: ["sig"], jsonFields: ["pin"])
///     .keeping(header: "X-Session-Region")   // not a secret, though its name looks like one
/// ```
///
/// Only what is written changes: the request on the wire keeps its credentials.
public struct HARRedaction: Sendable, Equatable {
    /// What replaces a redacted value: `REDACTED` (a JSON string in a JSON body).
    public static let placeholder = "REDACTED"

    /// The JSON and form field names ``standard`` redacts: OAuth's tokens and client secret, passwords, API keys.
    public static let standardJSONFields: Set<String> = [
        "access_token", "refresh_token", "id_token", "client_secret", "password", "api_key", "apikey", "secret",
        "token", "client_assertion",
    ]

    /// The default: credential header fields, credential and secret-looking query items, ``standardJSONFields``.
    public static let standard = HARRedaction()

    /// Header names redacted besides the standard ones and the request's credential fields, ASCII-lowercased.
    private(set) var headers: Set<String>
    /// Query item names redacted besides the request's credential fields and secret-looking names, lowercased and
    /// percent-decoded.
    private(set) var queryItems: Set<String>
    /// JSON (and form) field names redacted, lowercased: ``standardJSONFields`` and your own.
    private(set) var jsonFields: Set<String>
    /// Header names recorded as they are although they would be redacted, ASCII-lowercased.
    private(set) var keptHeaders: Set<String> = []
    /// Query item names recorded as they are although they would be redacted, lowercased and percent-decoded.
    private(set) var keptQueryItems: Set<String> = []
    /// JSON (and form) field names recorded as they are although they would be redacted, lowercased.
    private(set) var keptJSONFields: Set<String> = []

    /// The standard redaction plus your own names; every name compares case-insensitively.
    /// - Parameters:
    ///   - headers: Header fields whose values are replaced.
    ///   - queryItems: Query items whose values are replaced (as they read decoded: `api key`, not `api%20key`).
    ///   - jsonFields: JSON object members (at any depth) and form fields whose values are replaced.
    public init(
        headers: some Sequence<String> = [], queryItems: some Sequence<String> = [],
        jsonFields: some Sequence<String> = []
    ) {
        self.headers = Set(headers.map { $0.lowercased() })
        self.queryItems = Set(queryItems.map { $0.lowercased() })
        self.jsonFields = Self.standardJSONFields.union(jsonFields.map { $0.lowercased() })
    }

    /// This redaction, recording the header `name` as it is (its credential too): the opt-in for one field.
    public func keeping(header name: String) -> HARRedaction {
        var copy = self
        copy.keptHeaders.insert(name.lowercased())
        return copy
    }

    /// This redaction, recording the query item `name` as it is.
    public func keeping(queryItem name: String) -> HARRedaction {
        var copy = self
        copy.keptQueryItems.insert(name.lowercased())
        return copy
    }

    /// This redaction, recording the JSON (and form) field `name` as it is.
    public func keeping(jsonField name: String) -> HARRedaction {
        var copy = self
        copy.keptJSONFields.insert(name.lowercased())
        return copy
    }

    /// This redaction, replacing the header `name` too (and no longer keeping it).
    public func redacting(header name: String) -> HARRedaction {
        var copy = self
        copy.headers.insert(name.lowercased())
        copy.keptHeaders.remove(name.lowercased())
        return copy
    }

    /// This redaction, replacing the query item `name` too (and no longer keeping it).
    public func redacting(queryItem name: String) -> HARRedaction {
        var copy = self
        copy.queryItems.insert(name.lowercased())
        copy.keptQueryItems.remove(name.lowercased())
        return copy
    }

    /// This redaction, replacing the JSON (and form) field `name` too (and no longer keeping it).
    public func redacting(jsonField name: String) -> HARRedaction {
        var copy = self
        copy.jsonFields.insert(name.lowercased())
        copy.keptJSONFields.remove(name.lowercased())
        return copy
    }

    /// Whether the value of the header field `name` is replaced, for a request that declares `credentialFields`.
    public func redactsHeader(_ name: String, credentialFields: CredentialFields = .standard) -> Bool {
        let lowered = name.lowercased()
        if keptHeaders.contains(lowered) { return false }
        return headers.contains(lowered) || Self.standardHeaders.contains(lowered)
            || credentialFields.containsHeader(name) || LogRedaction.isSecretName(name)
    }

    /// Whether the value of the query item `name` (percent-encoded, as in the URL) is replaced, for a request that
    /// declares `credentialFields`.
    public func redactsQueryItem(_ name: String, credentialFields: CredentialFields = .standard) -> Bool {
        let decoded = (name.removingPercentEncoding ?? name).lowercased()
        if keptQueryItems.contains(decoded) || keptQueryItems.contains(name.lowercased()) { return false }
        return credentialFields.containsQueryItem(name) || queryItems.contains(decoded)
            || queryItems.contains(name.lowercased()) || LogRedaction.isSecretName(decoded)
    }

    /// Whether the value of the JSON object member or form field `name` (decoded) is replaced.
    public func redactsJSONField(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return jsonFields.contains(lowered) && !keptJSONFields.contains(lowered)
    }

    /// Header names redacted whatever the request declares: the credential fields of responses too.
    private static let standardHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "set-cookie2", "authentication-info",
        "proxy-authentication-info",
    ]
}
