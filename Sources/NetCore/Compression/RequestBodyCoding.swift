/// A content coding ``RequestCompressionPlugin`` applies to request bodies, named in the request's
/// `Content-Encoding`.
///
/// Both are zlib's deflate compression in a different wrapper, with the same ratio and speed; they differ in what a
/// server accepts. `gzip` is the safer choice: "deflate" was long read by some implementations as the raw format
/// without a wrapper, and servers that take compressed request bodies at all most often take gzip.
public enum RequestBodyCoding: String, Sendable, Equatable, CaseIterable {
    /// `gzip`: the gzip format (RFC 1952; RFC 9110 §8.4.1.3).
    case gzip
    /// `deflate`: the zlib format (RFC 1950) around deflate data (RFC 1951), as RFC 9110 §8.4.1.2 defines the coding
    /// (not the bare deflate data), and as Alamofire's `DeflateRequestCompressor` sends it.
    case deflate

    /// The token sent in `Content-Encoding`.
    public var contentEncoding: String { rawValue }

    /// zlib's `windowBits` for the format: a 32 KiB window (15), plus 16 for the gzip wrapper instead of zlib's.
    var windowBits: Int32 {
        switch self {
        case .gzip: 15 + 16
        case .deflate: 15
        }
    }
}
