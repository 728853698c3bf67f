#if Tracing
import NetCore

/// What a span records in place of a request's error: its description without URLs, headers or query values
/// (`LogRedaction.describe(_:)`), because an exporter writes a recorded error's text out as it is.
public struct RedactedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The type of the error it stands for, such as `TransportError`.
    public let type: String
    /// The error's description, secrets left out.
    public let description: String

    /// The stand-in for `error`.
    public init(_ error: any Error) {
        self.type = String(describing: Swift.type(of: error))
        self.description = LogRedaction.describe(error)
    }
}
#endif
