#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Errors NetKit reports itself, as opposed to errors of the transport or of the server.
///
/// The first six cases are EKNetwork's; the others name failures EKNetwork had no word for. Every
/// validation error is thrown before a byte is sent.
public enum NetworkError: Error, Sendable, Equatable {
    /// The URL could not be built: a target the wire cannot carry.
    ///
    /// EKNetwork's `NetworkManager` also throws it for every path NetKit's path check refuses (a
    /// `..` segment, also percent-encoded, a scheme, a query or fragment, control characters, backslashes) and for
    /// every base URL it cannot send to, as EKNetwork did; NetKit's own engine throws ``invalidPath(path:rule:)`` and
    /// ``invalidBaseURL(url:rule:)`` there, naming the part and the one rule it breaks (the facade's log line names
    /// them too).
    case invalidURL
    /// The multipart form could not be encoded: a line break or NUL in a name, filename or MIME type, or a
    /// part whose data contains the boundary.
    case invalidMultipartEncoding
    /// The server sent an empty body where a value was expected and the request has no `emptyResponseHandler`.
    case emptyResponse
    /// The server answered 401 and the request could not (or may not) recover by refreshing the token.
    case unauthorized
    /// The response was not an HTTP response.
    case invalidResponse
    /// The request sets both `body` and `multipartData`.
    case conflictingBodyTypes
    /// A header name is not an RFC 9110 token, or a name or value contains CR, LF or NUL; or a framing header
    /// contradicts the body: a `Content-Length` other than the body's size, or a `Transfer-Encoding` (NetKit
    /// frames every body itself).
    case invalidHeader(name: String)
    /// A response body was larger than the limit NetKit holds in memory for it.
    case responseTooLarge(limitBytes: Int)
    /// A request body stream was already read by an earlier send; a stream can be sent once (bodies of
    /// memory and files can be sent any number of times).
    case uploadStreamConsumed
    /// The request path breaks `rule`; `path` is the path as far as its first `?` or `#` (what follows may be
    /// query values), control characters escaped.
    ///
    /// NetKit's own engine throws it; EKNetwork's `NetworkManager` shows it as ``invalidURL``, the error its
    /// users catch for a bad path, so `catch NetworkError.invalidURL` keeps working there.
    case invalidPath(path: String, rule: PathRule)
    /// The base URL (the engine's, or a request's own `baseURL`) breaks `rule`: it has no scheme, a scheme other
    /// than `http` or `https`, no host, or a host, port, path or query the wire cannot carry. `url` is the URL as far
    /// as its first `?` or `#` (what follows may be query values), without a user or password, control characters
    /// escaped.
    ///
    /// NetKit's own engine throws it before anything is sent; EKNetwork's `NetworkManager` shows it as
    /// ``invalidURL``, the error its users catch, and writes this case's text to its log.
    ///
    /// ```swift
    /// // NetworkError.invalidBaseURL(url: "localhost:8080", rule: .noScheme):
    /// // The base URL "localhost:8080" is invalid: it has no scheme; write it with one, as
    /// // "http://localhost:8080" or "https://api.example.com"
    /// ```
    case invalidBaseURL(url: String, rule: BaseURLRule)

    /// The rule a base URL broke (see ``invalidBaseURL(url:rule:)``).
    public enum BaseURLRule: String, Sendable, Hashable, CaseIterable {
        /// No scheme: `api.example.com/v1`, or `localhost:8080`, whose `localhost:` reads as a scheme.
        case noScheme
        /// A scheme other than `http` or `https` (`ftp://`, `file://`, `mailto:`), or one that is not a scheme.
        case unsupportedScheme
        /// No host: `https:///v1`, `https://`.
        case noHost
        /// A host or port holding what a request cannot carry (a space, a control character, `@`, `/`, `?`, `#`).
        case invalidAuthority
        /// A path or query holding what a request line cannot carry (a space, a control character, `#`).
        case invalidTarget

        /// Why the rule refuses the base URL and what to write instead, as the end of a sentence.
        public var reason: String {
            switch self {
            case .noScheme:
                "it has no scheme; write it with one, as \"http://localhost:8080\" or \"https://api.example.com\""
            case .unsupportedScheme:
                "its scheme is not http or https, the only schemes NetKit sends requests to; write it as "
                    + "\"https://host/path\""
            case .noHost:
                "it has no host; name one after \"//\", as in \"https://api.example.com/v1\""
            case .invalidAuthority:
                "its host or port holds a character a request cannot carry (a space, a control character, \"@\", "
                    + "\"/\", \"?\" or \"#\"); check the host for a typo"
            case .invalidTarget:
                "its path or query holds a character a request line cannot carry (a space, a control character or "
                    + "\"#\"); percent-encode it"
            }
        }
    }

    /// The rule of NetKit's path check that a path broke.
    public enum PathRule: String, Sendable, Hashable, CaseIterable {
        /// A `..` segment, which would leave the base URL's path.
        case dotSegment
        /// A segment that percent-decodes (once or more) to `..`, or to a piece `..` between slashes.
        case encodedDotSegment
        /// A percent-encoded control character (`%0a`, also double-encoded).
        case encodedControlCharacter
        /// Percent-encoding nested more deeply than a server would ever decode.
        case nestedEncoding
        /// A `?`: query values go in `queryParameters` or `queryItems`, where they are encoded.
        case query
        /// A `#`: a fragment is never sent.
        case fragment
        /// A scheme (`https://`): the base URL gives the scheme and host.
        case scheme
        /// A control character (below U+0020, or DEL).
        case controlCharacter
        /// A backslash, which some servers read as `/`.
        case backslash

        /// Why the rule refuses the path, as the end of a sentence.
        public var reason: String {
            switch self {
            case .dotSegment: "it has a \"..\" segment"
            case .encodedDotSegment: "it has a segment that percent-decodes to \"..\""
            case .encodedControlCharacter: "it has a percent-encoded control character"
            case .nestedEncoding: "it is percent-encoded more than four times over"
            case .query: "it holds a query (\"?\"); pass query values as queryParameters or queryItems"
            case .fragment: "it holds a fragment (\"#\")"
            case .scheme: "it names a scheme; the base URL gives the scheme and host"
            case .controlCharacter: "it holds a control character"
            case .backslash: "it holds a backslash"
            }
        }
    }

    /// `path` fit for ``invalidPath(path:rule:)``: cut at the first `?` or `#` (what follows may be query values),
    /// at most 200 characters, control characters escaped.
    static func printablePath(_ path: String) -> String {
        var shown = Substring(path)
        var cut = false
        if let mark = shown.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            shown = shown[...mark]
            cut = shown.endIndex != path.endIndex
        }
        if shown.count > 200 {
            shown = shown.prefix(200)
            cut = true
        }
        return HeaderValidation.printable(String(shown)) + (cut ? "…" : "")
    }

    /// `url` fit for ``invalidBaseURL(url:rule:)``: without a user or password (`https://user:pass@host` shows as
    /// `https://host`), cut at the first `?` or `#` as ``printablePath(_:)`` cuts a path.
    static func printableURL(_ url: String) -> String {
        var text = Substring(url)
        let separator = text.range(of: "://")
        let authorityStart = separator?.upperBound ?? text.startIndex
        let authorityEnd =
            text[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? text.endIndex
        if let at = text[authorityStart..<authorityEnd].lastIndex(of: "@") {
            // Without `://` what precedes the `@` is no userinfo a reader can tell apart: it is marked as hidden.
            let kept = separator == nil ? "…@" : ""
            text = text[..<authorityStart] + kept + text[text.index(after: at)...]
        }
        return printablePath(String(text))
    }

    /// ``invalidBaseURL(url:rule:)`` for `url`.
    static func invalidBaseURL(_ url: URL, _ rule: BaseURLRule) -> NetworkError {
        .invalidBaseURL(url: printableURL(url.absoluteString), rule: rule)
    }
}

extension NetworkError: LocalizedError, CustomStringConvertible {
    /// One line that names the failure and its reason; never includes header values or query values, which may be
    /// secrets.
    public var description: String {
        switch self {
        case .invalidURL:
            "The request URL is invalid: the base URL lacks a scheme or a host, or the path or query holds what a "
                + "request line cannot carry (a \"..\" segment, a scheme, \"?\" or \"#\" in the path, a control "
                + "character, a backslash)"
        case .invalidMultipartEncoding:
            "The multipart form could not be encoded: a name, filename or MIME type holds a line break or NUL, or a "
                + "part's data contains the boundary"
        case .emptyResponse:
            "The response body was empty where a value was expected (an emptyResponseHandler can supply one)"
        case .unauthorized: "The server rejected the request's credentials (401) and they could not be renewed"
        case .invalidResponse: "The response was not an HTTP response"
        case .conflictingBodyTypes: "The request sets both body and multipartData; it may set one"
        case .invalidHeader(let name):
            "The header \"\(HeaderValidation.printable(name))\" is invalid: its name is not a token, its value holds "
                + "CR, LF or NUL, or it is a framing header that contradicts the body"
        case .responseTooLarge(let limit): "The response body exceeded the limit of \(limit) bytes held in memory"
        case .uploadStreamConsumed: "The request body stream was already sent once; a stream can be sent only once"
        case .invalidPath(let path, let rule): "The path \"\(path)\" is invalid: \(rule.reason)"
        case .invalidBaseURL(let url, let rule): "The base URL \"\(url)\" is invalid: \(rule.reason)"
        }
    }

    /// The same sentence as ``description``, so `localizedDescription` reads well on every platform.
    public var errorDescription: String? { description }
}
