/// An error type of another library that says which ``TransportError`` it is, so that NetKit's retry rules
/// judge it as they judge their own.
///
/// NetTransport makes Foundation's `URLError` one (a mock session or a stub may throw `URLError(.timedOut)`);
/// conform the errors of a transport you wrap when they can reach NetKit untranslated.
public protocol TransportErrorConvertible: Error {
    /// The same failure in NetKit's words.
    var transportError: TransportError { get }
}

extension TransportError: TransportErrorConvertible {
    /// Itself.
    public var transportError: TransportError { self }
}
