extension MultipartEncodingError {
    /// Which RFC 2046 §5.1.1 rule a boundary breaks.
    public enum BoundaryProblem: Equatable, Hashable, Sendable, CustomStringConvertible {
        /// The boundary is the empty string; RFC 2046 requires at least one character.
        case empty
        /// The boundary is longer than the 70 characters RFC 2046 allows.
        case tooLong(length: Int)
        /// The boundary contains a character outside `bchars`
        /// (`0-9 A-Z a-z ' ( ) + _ , - . / : = ?` and space).
        case invalidCharacter(Unicode.Scalar)
        /// The boundary ends with a space, which RFC 2046 forbids because transports may strip
        /// trailing whitespace and the delimiter would no longer match.
        case endsWithSpace

        /// A short explanation of the broken rule.
        public var description: String {
            switch self {
            case .empty:
                "it is empty"
            case let .tooLong(length):
                "it has \(length) characters, at most 70 are allowed"
            case let .invalidCharacter(scalar):
                "it contains \(scalar.escaped(asASCII: true)), which is not allowed by RFC 2046"
            case .endsWithSpace:
                "it ends with a space"
            }
        }
    }
}
