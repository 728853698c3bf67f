/// One header field: a name and a value, both checked when the field is made.
///
/// A name must be an RFC 9110 token; a value may not hold CR, LF or NUL. Those three would let a value smuggle a
/// second header or a second request onto the wire, or cut a value short in a C-based stack, so no NetKit API
/// accepts them: every way to set a field goes through this check.
public struct HTTPHeaderField: Sendable, Hashable {
    /// The name as it was given (names compare case-insensitively, see ``HTTPHeaderFields``).
    public let name: String
    /// The value.
    public let value: String

    /// Creates a field after checking it.
    /// - Throws: ``NetworkError/invalidHeader(name:)`` when the name is not a token or either part holds CR, LF or
    ///   NUL.
    public init(name: String, value: String) throws(NetworkError) {
        try HeaderValidation.validate(name: name, value: value)
        self.name = name
        self.value = value
    }

    /// A field already checked (by the caller, or by the parser it came from).
    package init(uncheckedName name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension HTTPHeaderField: CustomStringConvertible {
    /// `Name: value`, with the value of a field that carries secrets (`Authorization`, cookies, tokens) hidden.
    public var description: String {
        "\(name): \(HeaderRedaction.redact(name: name, value: value))"
    }
}

extension HTTPHeaderField: CustomReflectable {
    /// The name and the value, the value of a field that carries secrets hidden as in ``description``: what `dump`
    /// and debuggers show.
    public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "value": HeaderRedaction.redact(name: name, value: value)])
    }
}
