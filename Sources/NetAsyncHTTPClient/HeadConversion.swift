#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOHTTP1

/// Moves request and response heads between Foundation's types and AsyncHTTPClient's. Pure, tested without I/O.
enum HeadConversion {
    /// Headers that describe the body's framing: the payload decides them (AsyncHTTPClient sets
    /// `Content-Length` for a known length and chunked otherwise), so stale values from the head are dropped.
    static let framingHeaders: Set<String> = ["content-length", "transfer-encoding"]

    /// The request's headers, without framing headers.
    static func headers(of head: URLRequest) -> HTTPHeaders {
        guard let fields = head.allHTTPHeaderFields, !fields.isEmpty else { return HTTPHeaders() }
        var headers = HTTPHeaders()
        headers.reserveCapacity(fields.count)
        // Sorted so that the wire order does not depend on dictionary order.
        for (name, value) in fields.sorted(by: { $0.key < $1.key })
        where !framingHeaders.contains(name.lowercased()) {
            headers.add(name: name, value: value)
        }
        return headers
    }

    /// The response head as an `HTTPURLResponse`; repeated fields are joined with ", " (RFC 9110 §5.3), as
    /// URLSession joins them.
    static func response(
        status: HTTPResponseStatus,
        version: HTTPVersion,
        headers: HTTPHeaders,
        url: URL
    ) -> HTTPURLResponse? {
        var fields: [String: String] = [:]
        fields.reserveCapacity(headers.count)
        var canonicalNames: [String: String] = [:]
        for (name, value) in headers {
            let key = name.lowercased()
            if let first = canonicalNames[key] {
                fields[first, default: ""] += ", " + value
            } else {
                canonicalNames[key] = name
                fields[name] = value
            }
        }
        return HTTPURLResponse(url: url, statusCode: Int(status.code), httpVersion: versionString(version), headerFields: fields)
    }

    /// `HTTP/1.1`, `HTTP/2`, …
    static func versionString(_ version: HTTPVersion) -> String {
        version.minor == 0 && version.major >= 2 ? "HTTP/\(version.major)" : "HTTP/\(version.major).\(version.minor)"
    }
}
#endif
