#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An HTTP request as a transport receives it: the head, the body beside it, and what the caller asks of the
/// transfer.
///
/// Plugins change requests through it too; every way to set a header or the target checks what it is given,
/// so nothing reaches the wire with CR, LF or NUL.
public struct TransportRequest: Sendable {
    /// Method, target and header fields.
    public var head: HTTPRequestHead {
        _read { yield storage.head }
        _modify {
            makeUnique()
            yield &storage.head
        }
    }
    /// The body; `nil` for a request without one (a `GET`), which differs from an empty body (sent with
    /// `Content-Length: 0`).
    public var body: UploadSource? {
        _read { yield storage.body }
        _modify {
            makeUnique()
            yield &storage.body
        }
    }
    /// Where the transport reports transfer progress, if anyone listens (see ``NetworkProgress/reportSent(_:of:)``).
    public var progress: NetworkProgress? {
        get { storage.progress }
        set {
            makeUnique()
            storage.progress = newValue
        }
    }
    /// Where the transport tells what it has sent of this request, if anyone listens (the engine does, for each
    /// exchange: ``RequestEvent/Kind/requestHeadSent`` and ``RequestEvent/Kind/requestBodySent(bytes:)``, and their
    /// instants in ``RequestMetrics``).
    ///
    /// A transport calls it with ``SentPart/head`` once the head has gone out, then, for a request with a body,
    /// with ``SentPart/body(bytes:)`` once its last byte has: each at most once, head first, and no later than it
    /// hands over the response head (a transport that cannot see its own writes tells what the answer proves: the
    /// head, and a body it has wholly handed to the connection, went out before the answer came). It never calls it
    /// for an exchange that failed before anything went out.
    public var onSent: (@Sendable (SentPart) -> Void)? {
        get { storage.onSent }
        set {
            makeUnique()
            storage.onSent = newValue
        }
    }
    /// Set when the caller collects the response body whole and keeps at most these many bytes of it (`send`
    /// sets it; `stream` does not). A transport may then hand over the body complete, in memory, when the
    /// transfer ends, rather than stream it: cheaper when the caller would only gather the chunks again.
    /// `nil` (the default): the body is read as it arrives.
    public var wholeBody: WholeBodyLimits? {
        get { storage.wholeBody }
        set {
            makeUnique()
            storage.wholeBody = newValue
        }
    }
    /// How long the transport may wait without a byte moving before it fails the attempt with
    /// ``TransportError/Kind/timedOut``; `nil` leaves the transport's own idle timeout in charge.
    public var idleTimeout: Duration? {
        get { storage.idleTimeout }
        set {
            makeUnique()
            storage.idleTimeout = newValue
        }
    }
    /// How the connection is made (TLS, the proxy, the HTTP version); `nil` (the default): the transport's own
    /// settings. The engine sets it from the configuration or the endpoint, with the proxy environment already read
    /// for this URL, after asking the transport whether it can apply it
    /// (``HTTPTransport/unsupportedSetting(in:for:)``); a transport applies it or fails before sending anything.
    public var connection: ConnectionSettings? {
        get { storage.connection }
        set {
            makeUnique()
            storage.connection = newValue
        }
    }
    /// The name of the operation the request performs, such as an OpenAPI `operationId` (NetOpenAPI sets it), so
    /// that plugins, logs, metrics and traces can tell operations apart without parsing paths; `nil` for a request
    /// that names none. Transports ignore it: it is never sent.
    public var operationID: String? {
        get { storage.operationID }
        set {
            makeUnique()
            storage.operationID = newValue
        }
    }
    /// The fields of this request that carry a credential: ``CredentialFields/standard`` unless the engine adds the
    /// ones its plugins and settings declare. What a redirect to another origin may carry, how the cache and the
    /// coalescer tell callers apart, and what logs and cURL lines hide follow from it; a transport that records or
    /// prints requests should hide these too.
    public var credentialFields: CredentialFields {
        _read { yield storage.credentialFields ?? .standard }
        _modify {
            makeUnique()
            if storage.credentialFields == nil { storage.credentialFields = .standard }
            yield &storage.credentialFields!
        }
    }
    /// Whether credentials the transport holds of its own may go with this request, such as the fields of a
    /// `URLSessionConfiguration`'s `httpAdditionalHeaders` that ``credentialFields`` names (`Authorization`, a
    /// secret-looking name, a declared field). `false` when the engine found the request's origin outside its
    /// credential scope (``CredentialScope``): a redirect to another origin, a request to another origin than the
    /// base URL's. A transport then adds none of them; the fields the request carries, the engine has already
    /// decided. `true` for a request made without the engine. Only the engine sets it (its credential guard, on every
    /// hop): a transport reads it.
    public package(set) var allowsTransportCredentials: Bool {
        get { storage.allowsTransportCredentials }
        set {
            makeUnique()
            storage.allowsTransportCredentials = newValue
        }
    }
    /// The header names (ASCII-lowercased) marked as correlation fields (``markCorrelationHeader(_:)``).
    var correlationHeaderNames: Set<String> {
        _read { yield storage.correlationHeaderNames }
        _modify {
            makeUnique()
            yield &storage.correlationHeaderNames
        }
    }
    /// Whether the engine's ``CookieJar`` decides this request's `Cookie` header and keeps its response's
    /// `Set-Cookie`: a transport with a cookie store of its own (URLSession's) then leaves it out.
    package var cookiesFromJar: Bool {
        get { storage.cookiesFromJar }
        set {
            makeUnique()
            storage.cookiesFromJar = newValue
        }
    }

    /// Every field, in one object shared by copies until one of them changes (copy on write): a request is copied
    /// several times on its road (into each exchange, each stage's change), and a copy of a dozen references
    /// retained each of them.
    private var storage: Storage

    /// Creates a request from a head, a body and an optional progress observer.
    public init(head: HTTPRequestHead, body: UploadSource? = nil, progress: NetworkProgress? = nil) {
        storage = Storage(head: head, body: body, progress: progress)
    }

    /// Gives this request a storage of its own before it changes one.
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// The fields of a ``TransportRequest``.
    ///
    /// `@unchecked Sendable`, and safe: a storage is changed only through `makeUnique()`, which first gives the
    /// request a storage of its own unless no other request holds this one. A storage that two requests (and so
    /// possibly two tasks) hold is only ever read, as an array's buffer is.
    private final class Storage: @unchecked Sendable {
        var head: HTTPRequestHead
        var body: UploadSource?
        var progress: NetworkProgress?
        var onSent: (@Sendable (SentPart) -> Void)?
        var wholeBody: WholeBodyLimits?
        var idleTimeout: Duration?
        var operationID: String?
        var connection: ConnectionSettings?
        /// `nil`: ``CredentialFields/standard``, which every request shares, left unreferenced until someone reads it
        /// (a reference taken by every request is an atomic write to memory that every core contends for).
        var credentialFields: CredentialFields?
        var correlationHeaderNames: Set<String> = []
        var cookiesFromJar = false
        var allowsTransportCredentials = true

        init(head: HTTPRequestHead, body: UploadSource?, progress: NetworkProgress?) {
            self.head = head
            self.body = body
            self.progress = progress
        }

        func copy() -> Storage {
            let copy = Storage(head: head, body: body, progress: progress)
            copy.onSent = onSent
            copy.wholeBody = wholeBody
            copy.idleTimeout = idleTimeout
            copy.operationID = operationID
            copy.connection = connection
            copy.credentialFields = credentialFields
            copy.correlationHeaderNames = correlationHeaderNames
            copy.cookiesFromJar = cookiesFromJar
            copy.allowsTransportCredentials = allowsTransportCredentials
            return copy
        }
    }

    /// The request method.
    public var method: HTTPRequestMethod { head.method }

    /// The request URL.
    public var url: URL? { head.url }

    /// The value of a header (case-insensitive; repeated fields joined, see ``HTTPHeaderFields/value(for:)``).
    public func value(forHeader name: String) -> String? {
        head.headerFields.value(for: name)
    }

    /// Makes `value` the only value of the header `name`.
    /// - Throws: ``NetworkError/invalidHeader(name:)`` for a name that is not a token or CR, LF or NUL anywhere.
    public mutating func setHeader(_ name: String, _ value: String) throws(NetworkError) {
        try head.headerFields.setValue(value, for: name)
    }

    /// Adds a field `name: value`, keeping those of the same name (a repeated field).
    /// - Throws: ``NetworkError/invalidHeader(name:)`` for a name that is not a token or CR, LF or NUL anywhere.
    public mutating func addHeader(_ name: String, _ value: String) throws(NetworkError) {
        try head.headerFields.addValue(value, for: name)
    }

    /// Removes every field named `name`.
    public mutating func removeHeader(_ name: String) {
        head.headerFields.removeValues(for: name)
    }

    /// Whether a second attempt can send the same body: retries and token refresh depend on it.
    public var isReplayable: Bool { body?.isReplayable ?? true }

    /// The body's size in bytes when known before sending (0 without a body); `nil` for a stream of unknown
    /// length, which goes out chunked.
    public var bodyLength: Int64? {
        guard let body else { return 0 }
        return body.length
    }
}

extension TransportRequest: CustomReflectable {
    /// The request as `dump` and debuggers show it: every field of ``credentialFields`` (and every secret-looking
    /// one) with its value hidden, every query value hidden, and the body described rather than shown.
    public var customMirror: Mirror {
        var shown = head
        shown.headerFields = head.headerFields.hidingValues(of: credentialFields)
        let body = body.map { body in
            body.length.map { "\($0) bytes" } ?? "a body of unknown length"
        }
        return Mirror(
            self,
            children: [
                "head": shown, "body": body as Any, "progress": progress as Any, "wholeBody": wholeBody as Any,
                "idleTimeout": idleTimeout as Any, "operationID": operationID as Any,
                "credentialFields": credentialFields, "connection": connection as Any,
            ])
    }
}
