/// Anything that turns a ``TransportRequest`` into a ``TransportResponse``: URLSession, AsyncHTTPClient, a stub,
/// your own.
///
/// A transport moves bytes and nothing else: it does not build requests, authenticate, retry or judge status
/// codes. Its contract, which `TransportConformance` (in NetKitTesting) checks:
/// - it returns when the response head has arrived (or, when ``TransportRequest/wholeBody`` is set, may return at
///   the end with the body in memory) and says when the head arrived (``TransportResponse/headReceivedAt``);
/// - it sends every header field of the request, repeated ones included (joined with `", "` where the stack
///   cannot send a name twice), and hands over every response field, `Set-Cookie` fields one by one;
/// - it reports progress to ``TransportRequest/progress``: bytes sent and received (``NetworkProgress/reportSent(_:of:)``,
///   ``NetworkProgress/reportReceived(_:of:)``), never completion, which the engine reports; and tells
///   ``TransportRequest/onSent`` when the head, then the body, have gone out, no later than it hands over the
///   response head;
/// - it fails in NetKit's words: ``TransportError`` with the ``TransportError/Kind`` that fits (the retry rules read
///   it), `CancellationError` when the calling task was cancelled, the body's ``UploadSourceError`` when a file or
///   stream broke its length;
/// - it ends the body with an error, never cleanly, when the connection breaks before the body is complete, and
///   stops the transfer when the consumer stops reading;
/// - it never follows a redirect: each `3xx` comes back as it was sent, `Location`, `Set-Cookie` and body included,
///   for the engine to decide the hop (``RedirectPolicy``).
/// - it applies the request's ``TransportRequest/connection`` settings, or refuses them in
///   ``unsupportedSetting(in:for:)``, which the engine asks before it sends: never a connection with less than was
///   asked for.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns once the response head is known.
    func send(_ request: TransportRequest) async throws -> TransportResponse

    /// The first of `connection`'s settings this transport cannot apply to a request for `head`, as the error the
    /// request fails with before anything is sent; `nil` when it applies them all. The engine asks for every attempt
    /// whose settings are not the transport's defaults, with the proxy environment already read for the URL.
    ///
    /// The default refuses every setting that is not the transport's default: a transport applies settings only
    /// once it says which it can.
    func unsupportedSetting(in connection: ConnectionSettings, for head: HTTPRequestHead)
        -> UnsupportedConnectionSettingError?
}

extension HTTPTransport {
    /// Refuses the first setting that is not the transport's default, naming the transport's type.
    public func unsupportedSetting(in connection: ConnectionSettings, for head: HTTPRequestHead)
        -> UnsupportedConnectionSettingError?
    {
        connection.requestedSettings.first.map {
            UnsupportedConnectionSettingError(
                $0, transport: String(describing: Self.self),
                reason: "this transport does not say which connection settings it applies",
                alternative:
                    "URLSessionTransport and AsyncHTTPClientTransport apply what they can (Docs/Security.md); a transport of your own implements unsupportedSetting(in:for:)."
            )
        }
    }
}
