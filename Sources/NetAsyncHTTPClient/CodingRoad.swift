#if AsyncHTTPClient
import NetCore

/// What AsyncHTTPClientTransport does with a response's content codings: NetKit's plan (``NetCore/ContentCoding``)
/// set against what the client's SwiftNIO decompressor has done already. Pure, tested without I/O.
///
/// SwiftNIO's decompressor (on when the client's configuration enables `decompression`) decodes one coding, the
/// outermost, and only when the field's first coding is `gzip` or `deflate` as it reads it; NetKit decodes the rest.
enum CodingRoad: Equatable {
    /// The body as the client hands it over.
    case asItComes
    /// The response is refused, for this reason.
    case refuse(String)
    /// This many codings are still on the body: NetKit decodes them (``InflatingChunks``).
    case decode(layers: Int)

    /// - Parameters:
    ///   - plan: NetKit's plan for the head.
    ///   - firstCoding: The field's first coding as SwiftNIO reads it (`headers[canonicalForm:].first`).
    ///   - clientDecodes: Whether the client decompresses: known for a client the transport made, `nil` for a client
    ///     passed in, whose configuration cannot be read. A client that does not decompress was asked for bodies as
    ///     they were sent: they come so, `Content-Encoding` intact, and nothing is refused.
    init(plan: ContentCoding, firstCoding: String?, clientDecodes: Bool?) {
        guard clientDecodes != false else {
            self = .asItComes
            return
        }
        let swiftNIODecodes = ["gzip", "deflate"].contains(firstCoding?.lowercased())
        switch plan {
        case .identity:
            self = .asItComes
        case .refuse(let reason):
            // A client passed in decodes what its own configuration says; what it leaves comes with its field.
            self = clientDecodes == true ? .refuse(reason) : .asItComes
        case .decode(let codings):
            let left = codings.count - (swiftNIODecodes ? 1 : 0)
            if clientDecodes == true {
                self = left == 0 ? .asItComes : .decode(layers: left)
            } else if codings.count > 1, swiftNIODecodes {
                self = .refuse(
                    "the body has \(codings.count) content codings; a client passed to "
                        + "AsyncHTTPClientTransport(client:) may have decoded the outermost, and its configuration "
                        + "cannot be read to know: refused rather than handed over half-decoded (a transport that "
                        + "makes its own client decodes them all)")
            } else {
                self = .asItComes
            }
        }
    }
}
#endif
