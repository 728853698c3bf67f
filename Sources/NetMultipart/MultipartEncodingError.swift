/// The exact reason a ``MultipartFormData`` could not be encoded, or why a boundary was rejected.
///
/// Every case describes a condition that would make the body ambiguous or exploitable
/// for the receiver, so the encoder refuses to produce bytes rather than emitting a
/// body the server would parse differently from what the caller intended.
///
/// ``MultipartFormData/encodedData()`` collapses all of these into `nil`; call
/// ``MultipartFormData/encoded()`` to learn which one happened.
public enum MultipartEncodingError: Error, Equatable, Sendable {
    /// The boundary violates RFC 2046 §5.1.1; `reason` says which rule.
    ///
    /// Thrown by ``MultipartFormData/init(validatingBoundary:)``.
    case invalidBoundary(String, reason: BoundaryProblem)

    /// A header value of the part at `partIndex` contains CR, LF or NUL.
    ///
    /// CR and LF would let the value end its header line and inject further headers or
    /// even a fake part (header injection); NUL truncates the value in C-string based
    /// parsers. Such values cannot be represented in a `quoted-string`, so they are
    /// rejected instead of being silently altered.
    case lineBreakInHeader(field: HeaderField, partIndex: Int)

    /// The data of the part at `partIndex` contains the delimiter `CRLF--boundary`.
    ///
    /// A receiver would end the part there, truncating it and interpreting the rest of the
    /// data as further parts. Use a different boundary (or the random default) to send it.
    case boundaryInPart(name: String, partIndex: Int)

    /// The part at `partIndex` reads its bytes from a file or stream, so the form cannot be
    /// encoded into one `Data`.
    ///
    /// Thrown by ``MultipartFormData/encoded()`` only: such forms are sent through
    /// ``MultipartFormData/uploadSource()``, which reads each part when the transport asks
    /// for it instead of loading files of any size (or consuming a one-shot stream) into memory.
    case partNotInMemory(name: String, partIndex: Int)
}

extension MultipartEncodingError: CustomStringConvertible {
    /// A human-readable explanation, suitable for logs.
    ///
    /// Header values are not echoed because they are exactly the strings containing
    /// control characters that would garble a log line.
    public var description: String {
        switch self {
        case let .invalidBoundary(boundary, reason):
            "Invalid multipart boundary \(boundary.debugDescription): \(reason)"
        case let .lineBreakInHeader(field, partIndex):
            "Multipart part #\(partIndex): \(field) contains CR, LF or NUL"
        case let .boundaryInPart(name, partIndex):
            "Multipart part #\(partIndex) (\(name.debugDescription)): data contains the boundary delimiter"
        case let .partNotInMemory(name, partIndex):
            "Multipart part #\(partIndex) (\(name.debugDescription)) is a file or stream; send the form with uploadSource()"
        }
    }
}
