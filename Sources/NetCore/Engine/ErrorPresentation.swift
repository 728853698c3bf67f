/// How the caller sees an error the engine ends with: as it is (NetKit's own types), or as a facade speaks it
/// (EKNetwork's `NetworkManager` shows a ``TransportError`` as the `URLError` EKNetwork users catch).
package struct ErrorPresentation: Sendable {
    private let transform: (@Sendable (any Error) -> any Error)?

    /// Errors as NetKit throws them.
    package static let native = ErrorPresentation(nil)

    package init(_ transform: (@Sendable (any Error) -> any Error)?) {
        self.transform = transform
    }

    package func present(_ error: any Error) -> any Error {
        transform?(error) ?? error
    }
}
