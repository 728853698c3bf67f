extension TransportRequest {
    /// A part of a request a transport has sent, told to ``TransportRequest/onSent``.
    public enum SentPart: Sendable, Equatable {
        /// The request line and header fields went out.
        case head
        /// The last byte of the body went out: `bytes` bytes in all.
        case body(bytes: Int64)
    }
}
