/// A response type for endpoints that signal success through the status code alone (204, or a body to ignore).
///
/// A request whose `Response` is `EmptyResponse` ignores any payload the server sends.
public struct EmptyResponse: Decodable, Equatable, Sendable {
    /// Creates the empty value.
    public init() {}
}
