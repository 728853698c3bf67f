import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP request as a transport receives it: the head in a `URLRequest`, the body beside it.
///
/// The `URLRequest` never carries `httpBody` or `httpBodyStream`; the body is ``payload`` so that every
/// transport can tell whether it may be sent again.
public struct TransportRequest: Sendable {
    /// Method, URL, headers and timeout.
    public var head: URLRequest
    /// The request body.
    public var payload: RequestPayload
    /// Where the transport reports transfer progress, if anyone listens.
    public var progress: NetworkProgress?
    /// Set when the caller collects the response body whole and keeps at most these many bytes of it (`send`
    /// sets it; `stream` does not). A transport may then hand over the body complete, in memory, when the
    /// transfer ends, rather than stream it: cheaper when the caller would only gather the chunks again.
    /// `nil` (the default): the body is read as it arrives.
    public var wholeBody: WholeBodyLimits?

    /// Creates a request from a head, a payload and an optional progress observer.
    public init(head: URLRequest, payload: RequestPayload = .empty, progress: NetworkProgress? = nil) {
        var head = head
        // Only when there is one: setting it copies Foundation's request storage even to write nil.
        if head.httpBody != nil { head.httpBody = nil }
        self.head = head
        self.payload = payload
        self.progress = progress
    }

    /// The request method (`GET` when the head names none).
    public var method: String { head.httpMethod ?? "GET" }

    /// The request URL.
    public var url: URL? { head.url }

    /// The value of a header (case-insensitive), if present.
    public func value(forHeader name: String) -> String? {
        head.value(forHTTPHeaderField: name)
    }

    /// Sets a header after checking it, so a middleware cannot smuggle CR or LF onto the wire either.
    /// - Throws: ``NetworkError/invalidHeader(name:)``.
    public mutating func setHeader(_ name: String, _ value: String) throws(NetworkError) {
        try HeaderValidation.validate(name: name, value: value)
        head.setValue(value, forHTTPHeaderField: name)
    }

    /// Removes a header.
    public mutating func removeHeader(_ name: String) {
        head.setValue(nil, forHTTPHeaderField: name)
    }
}
