import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

extension URLRequest {
    /// The head of `request` as URLSession takes it: URL, method, header fields and idle timeout; no body. A request
    /// that names no `Accept-Encoding` asks for ``NetCore/ContentCoding/acceptEncoding``.
    ///
    /// URLSession sends one field per name, so repeated fields are joined as RFC 9110 §5.3 allows (`", "`, and
    /// `"; "` for `Cookie`): the receiver reads the same values.
    /// - Throws: ``NetworkError/invalidURL`` when the target does not parse as a URL.
    package init(head request: TransportRequest) throws(NetworkError) {
        guard let url = request.head.url else { throw .invalidURL }
        self.init(url: url)
        // A new request is a GET already; setting the method makes Foundation copy and normalise the request.
        if request.head.method != .get { httpMethod = request.head.method.rawValue }
        // NetKit's cookie jar decides the Cookie header: the session's own cookie storage neither replaces it nor
        // adds to it (nor keeps the response's cookies, on Apple platforms). FoundationNetworking ignores this flag;
        // URLSessionTransport handles its storage itself there (see `addingStoredCookies(from:for:)`).
        if request.cookiesFromJar { httpShouldHandleCookies = false }
        if let idle = request.idleTimeout {
            let (seconds, attoseconds) = idle.components
            let interval = Double(seconds) + Double(attoseconds) / 1e18
            #if canImport(FoundationNetworking)
            // libcurl takes whole seconds and truncates: 0.5 s would fire at once. Rounded up, it never fires early;
            // a streamed body's idle timeout is NetKit's own, to the millisecond (ResponseBody.bounded(by:)).
            timeoutInterval = interval.rounded(.up)
            #else
            timeoutInterval = interval
            #endif
        }
        let fields = request.head.headerFields
        // Only the content codings NetKit decodes (ContentCoding): left alone, URLSession asks for br and zstd too
        // (libcurl's "deflate, gzip, br, zstd" on Linux), which NetKit refuses on every transport.
        guard !fields.isEmpty else {
            allHTTPHeaderFields = ["Accept-Encoding": ContentCoding.acceptEncoding]
            return
        }
        // A conditional request (NetKit's ResponseCache validating, or the caller's own) must reach the server and
        // bring its 304 back: the session's URLCache neither answers it nor swaps the 304 for a 200 of its own.
        if fields.contains("If-None-Match") || fields.contains("If-Modified-Since") {
            cachePolicy = .reloadIgnoringLocalCacheData
        }
        // One entry per name, repeats joined (`HTTPHeaderFields.dictionary`), assigned at once: on Linux every
        // setValue copies the request and compares each name through NSString.
        var dictionary = fields.dictionary
        if !fields.contains("Accept-Encoding") { dictionary["Accept-Encoding"] = ContentCoding.acceptEncoding }
        allHTTPHeaderFields = dictionary
    }
}

extension URLRequest {
    /// `fields` (a `URLSessionConfiguration`'s `httpAdditionalHeaders`) added where this request has no field of the
    /// name, as URLSession adds them; those that `TransportRequest.credentialFields` names only where the
    /// engine allows the transport's own credentials (`TransportRequest.allowsTransportCredentials`).
    /// URLSession would add every one to every request, a redirect to another origin included, so
    /// URLSessionTransport's session has none and the transport calls this instead.
    package func addingConfigurationFields(_ fields: HTTPHeaderFields, for request: TransportRequest) -> URLRequest {
        guard !fields.isEmpty else { return self }
        let withholds = !request.allowsTransportCredentials
        var copy = self
        // Asked of the URLRequest, not of the request's fields: what the conversion added (`Accept-Encoding`) wins too.
        for field in fields where value(forHTTPHeaderField: field.name) == nil {
            if withholds, request.credentialFields.containsHeader(field.name) { continue }
            copy.setValue(field.value, forHTTPHeaderField: field.name)
        }
        return copy
    }
}

#if canImport(FoundationNetworking)
extension URLRequest {
    /// The cookies `storage` holds for the request added as a `Cookie` header, as URLSession does for a
    /// configuration with `httpShouldSetCookies`, but only where neither the request's own `Cookie` header nor
    /// NetKit's cookie jar decides, and chosen by RFC 6265's rules (``HTTPCookieStorage/cookieHeader(for:at:)``).
    /// FoundationNetworking ignores `httpShouldHandleCookies`, puts its stored cookies in place of a request's own
    /// header, and matches them by host alone, so URLSessionTransport turns that off and calls this instead.
    package func addingStoredCookies(from storage: HTTPCookieStorage?, for request: TransportRequest) -> URLRequest {
        guard let storage, !request.cookiesFromJar, !request.head.headerFields.contains("Cookie"),
            let header = storage.cookieHeader(for: request.head)
        else { return self }
        var copy = self
        copy.setValue(header, forHTTPHeaderField: "Cookie")
        return copy
    }
}
#endif

extension TransportRequest {
    /// A request from a `URLRequest`: its URL, method and headers; its `httpBody`, if any, as the body.
    /// A method of ``HTTPMethod`` may be spelled in any case (`get`), as URLSession allows; any other is sent as it
    /// is spelled.
    /// - Throws: ``NetworkError/invalidURL`` for a URL the wire cannot carry, ``NetworkError/invalidHeader(name:)``
    ///   for a header NetKit would refuse to send (`:method` for a method that is not a token).
    package init(_ request: URLRequest) throws(NetworkError) {
        guard let url = request.url else { throw .invalidURL }
        var method = HTTPRequestMethod.get
        if let text = request.httpMethod {
            guard
                let given = HTTPMethod(rawValue: text.uppercased()).map(HTTPRequestMethod.init)
                    ?? HTTPRequestMethod(rawValue: text)
            else { throw .invalidHeader(name: ":method") }
            method = given
        }
        var head = try HTTPRequestHead(method: method, url: url)
        head.headerFields = try HTTPHeaderFields(request.allHTTPHeaderFields ?? [:])
        self.init(head: head, body: request.httpBody.map(UploadSource.init(data:)))
        if request.timeoutInterval > 0, request.timeoutInterval.isFinite {
            idleTimeout = .milliseconds(Int64(request.timeoutInterval * 1000))
        }
    }
}
