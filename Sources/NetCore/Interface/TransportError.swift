#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A transport's failure in NetKit's own words: what kind of failure, and with which host.
///
/// Every transport reports its failures as these (URLSession's `URLError`s and AsyncHTTPClient's errors are
/// translated at the transport's edge, the original kept as ``underlying``), so one set of retry rules judges them
/// all: ``isTransient`` says whether another attempt may succeed. Its text names the kind and the host, never a
/// path or query value:
///
/// ```swift
/// catch let error as TransportError where error.kind == .timedOut { … }
/// print(error)
/// // "Timed out: api.example.com:443 (no answer within the request's timeout). The server at api.example.com:443
/// //  did not answer in time: check that it is up, or give the request a longer timeout or idleTimeout."
/// ```
public struct TransportError: Error, Sendable {
    /// What went wrong.
    public var kind: Kind
    /// The host the request went to, when the transport knows it.
    public var host: String?
    /// The port the request went to: its URL's, or its scheme's default (80, 443). NetKit's engine fills it in (and
    /// ``host``, when the transport left it out) for every failure of an exchange, so the text says where.
    public var port: Int?
    /// More about the failure in the transport's words, free of URLs and secrets.
    public var detail: String?
    /// The transport's own error, for debugging; its text may hold the full URL, so NetKit never prints it.
    public var underlying: (any Error)?

    /// Creates an error.
    public init(_ kind: Kind, host: String? = nil, detail: String? = nil, underlying: (any Error)? = nil) {
        self.kind = kind
        self.host = host
        self.detail = detail
        self.underlying = underlying
    }

    /// Whether the same failure would come again however often the request is sent, although its ``kind`` is one
    /// that may pass: set for a response whose body NetKit refuses to hand over because it cannot decode it whole (a
    /// content coding it does not decode, data that does not decode, a body that inflates past the decompression
    /// limit) or stopped for its shape (a flood of tiny chunks over URLSession), which the server would send the same
    /// way again.
    package var isPermanent = false
    /// What to do, when the failure's own cause decides it rather than its kind (a coding NetKit does not decode):
    /// ``hint`` then says this.
    var advice: String?

    /// Whether another attempt may succeed: a refused, reset or lost connection, a timeout, a failed name lookup,
    /// no network, or a malformed response — unless the server would send the same malformed response again (a body
    /// in a content coding NetKit does not decode, one that does not decode whole, a flood of tiny chunks). Retries still need an
    /// idempotent request and a replayable body.
    public var isTransient: Bool { kind.isTransient && !isPermanent }

    /// A response whose body cannot be handed over decoded whole (see ``ContentCoding``): a
    /// ``Kind/badResponse`` that is not transient, saying what was refused and why in `detail`.
    package static func undecodableBody(host: String?, detail: String, underlying: (any Error)? = nil)
        -> TransportError
    {
        var error = TransportError(.badResponse, host: host, detail: detail, underlying: underlying)
        error.isPermanent = true
        error.advice = "Ask the server for gzip, deflate or no coding (the request's Accept-Encoding field)"
        return error
    }

    /// The kinds of transport failure. Compare with `==` or match in a `switch` (`case .timedOut:`); new kinds may
    /// be added, so keep a `default`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        /// Whether a failure of this kind may pass when tried again.
        public let isTransient: Bool

        private init(_ name: String, transient: Bool) {
            self.name = name
            self.isTransient = transient
        }

        /// The connection was refused or could not be made.
        public static let cannotConnect = Kind("cannotConnect", transient: true)
        /// The server reset the connection before answering.
        public static let connectionReset = Kind("connectionReset", transient: true)
        /// The connection broke while the response was being read.
        public static let connectionLost = Kind("connectionLost", transient: true)
        /// Nothing arrived within a timeout (the transport's idle timeout, or NetKit's whole-request one).
        public static let timedOut = Kind("timedOut", transient: true)
        /// The host name could not be resolved.
        public static let cannotFindHost = Kind("cannotFindHost", transient: true)
        /// The device has no network.
        public static let notConnected = Kind("notConnected", transient: true)
        /// The server's answer was not a well-formed HTTP response.
        public static let badResponse = Kind("badResponse", transient: true)
        /// TLS failed: the handshake, or the server's or the client's certificate.
        public static let tlsFailure = Kind("tlsFailure", transient: false)
        /// Redirects went on too long or in a circle.
        public static let tooManyRedirects = Kind("tooManyRedirects", transient: false)
        /// The URL cannot be sent by this transport (an unsupported scheme, say).
        public static let unsupportedURL = Kind("unsupportedURL", transient: false)
        /// The transfer was cancelled, but not by the caller's task (which sees `CancellationError`).
        public static let cancelled = Kind("cancelled", transient: false)
        /// Anything else.
        public static let other = Kind("other", transient: false)

        /// The kind's name, as in code: `timedOut`.
        public var description: String { name }

        /// A short phrase for messages.
        var phrase: String {
            switch self {
            case .cannotConnect: "Could not connect"
            case .connectionReset: "Connection reset"
            case .connectionLost: "Connection lost"
            case .timedOut: "Timed out"
            case .cannotFindHost: "Host not found"
            case .notConnected: "Not connected to a network"
            case .badResponse: "Malformed response"
            case .tlsFailure: "TLS failed"
            case .tooManyRedirects: "Too many redirects"
            case .unsupportedURL: "Unsupported URL"
            case .cancelled: "Cancelled"
            default: "Transport failed"
            }
        }
    }
}

extension TransportError: CustomStringConvertible {
    /// `<what happened>: <host:port> (<detail>). <hint>`: one line, no path, query or header; the hint (see
    /// ``hint``) says what to check, for the kinds that have one.
    public var description: String {
        var text = kind.phrase
        if let location { text += ": \(location)" }
        if let detail, !detail.isEmpty { text += " (\(detail))" }
        if let hint { text += ". \(hint)" }
        return text
    }
}

extension TransportError: LocalizedError {
    /// The same line as ``description``, so `localizedDescription` reads as well.
    public var errorDescription: String? { description }
}

extension TransportError: CustomReflectable {
    /// The kind, host and detail, and the underlying error described by `LogRedaction.describe(_:)`: URLSession's
    /// own error keeps the full URL, query values included, which `dump` would otherwise show.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "kind": kind, "host": host as Any, "port": port as Any, "detail": detail as Any,
                "underlying": underlying.map(LogRedaction.describe) as Any,
            ])
    }
}
