import Foundation

/// One HTTP request as the ``LoopbackServer`` received it.
package struct LoopbackRequest: Sendable {
    /// The method token, e.g. `GET`; case is preserved as sent.
    package let method: String
    /// The request target exactly as sent, e.g. `/v1/users?a=1&b=%20`.
    package let target: String
    /// The protocol version from the request line, e.g. `HTTP/1.1`.
    package let version: String
    /// Every header field, in order, as received (names keep their case).
    package let headers: [(name: String, value: String)]
    /// The body, de-chunked if it was sent with `Transfer-Encoding: chunked`; empty when the server
    /// digests bodies (``LoopbackRequestBodyMode/digested``; see ``bodyDigest``).
    package let body: Data
    /// The body's summary when the server digests bodies instead of keeping them; `nil` otherwise.
    package let bodyDigest: LoopbackBodyDigest?
    /// The body's length in bytes (after de-chunking) in every body mode, also
    /// ``LoopbackRequestBodyMode/counted`` where it is all the server keeps.
    package let bodyByteCount: Int
    /// Whether the body was sent with `Transfer-Encoding: chunked`.
    package let wasChunked: Bool
    /// Trailer fields that followed a chunked body, in order.
    package let trailers: [(name: String, value: String)]
    /// Whether the client sent `Expect: 100-continue` (the server then answered `100 Continue` before reading the body).
    package let expectedContinue: Bool
    /// Which accepted connection (1-based, in accept order) carried this request.
    package let connectionNumber: Int

    /// Creates a request by hand, e.g. to run ``multipartParts()`` on a body produced elsewhere;
    /// the defaults describe an empty `POST /` over HTTP/1.1.
    package init(
        method: String = "POST",
        target: String = "/",
        version: String = "HTTP/1.1",
        headers: [(name: String, value: String)] = [],
        body: Data = Data(),
        wasChunked: Bool = false,
        trailers: [(name: String, value: String)] = [],
        expectedContinue: Bool = false,
        connectionNumber: Int = 0,
        bodyDigest: LoopbackBodyDigest? = nil,
        bodyByteCount: Int? = nil
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.wasChunked = wasChunked
        self.trailers = trailers
        self.expectedContinue = expectedContinue
        self.connectionNumber = connectionNumber
        self.bodyDigest = bodyDigest
        self.bodyByteCount = bodyByteCount ?? bodyDigest?.byteCount ?? body.count
    }

    /// The declared `Content-Length`, if the request has a valid one (the server refuses invalid ones).
    package var contentLength: Int? {
        guard let value = header("Content-Length"),
            let first = value.split(separator: ",").first?.trimmingWhitespace()
        else { return nil }
        return Int(first)
    }

    /// The target before any `?`, still percent-encoded.
    package var path: String {
        guard let question = target.firstIndex(of: "?") else { return target }
        return String(target[..<question])
    }

    /// The target after the first `?`, as sent; `nil` when there is no `?`.
    package var rawQuery: String? {
        guard let question = target.firstIndex(of: "?") else { return nil }
        return String(target[target.index(after: question)...])
    }

    /// The query as ordered, percent-decoded pairs; `+` stays `+` (it means space only in form bodies).
    package var queryItems: [(name: String, value: String)] {
        guard let rawQuery else { return [] }
        return PercentDecoding.pairs(Array(rawQuery.utf8), plusAsSpace: false)
    }

    /// The first header field with this name, compared case-insensitively.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Every value of the header fields with this name, in order, compared case-insensitively.
    package func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// The body decoded as UTF-8 (invalid sequences become U+FFFD), for convenient assertions.
    package var bodyText: String {
        String(decoding: body, as: UTF8.self)
    }

    /// Parses a `multipart/form-data` body (boundary from the `Content-Type` header), per RFC 7578 / RFC 2046.
    ///
    /// Strict on purpose, because it checks another component's encoder: the body must begin with
    /// the first delimiter (no preamble), delimiters carry no transport padding, at most one CRLF
    /// may follow the close delimiter, the boundary must not occur inside any part, and every part
    /// needs exactly one `Content-Disposition: form-data` with a `name`. Quoted parameter values are
    /// unescaped (`\"` → `"`, `\\` → `\`).
    /// - Throws: ``LoopbackMultipartError`` describing the first defect found.
    package func multipartParts() throws(LoopbackMultipartError) -> [LoopbackMultipartPart] {
        try MultipartFormParser.parse(body: [UInt8](body), contentType: header("Content-Type"))
    }

    /// Decodes an `application/x-www-form-urlencoded` body into ordered pairs.
    ///
    /// Follows the WHATWG form rules: `+` means space, `%XX` is decoded, invalid escapes stay literal,
    /// and empty `&`-separated pieces are skipped. The `Content-Type` header is not checked.
    package func formFields() -> [(name: String, value: String)] {
        PercentDecoding.pairs([UInt8](body), plusAsSpace: true)
    }
}
