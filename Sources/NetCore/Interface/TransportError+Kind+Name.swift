extension TransportError.Kind {
    /// Every kind NetKit defines, in the order they are declared.
    public static let allKinds: [TransportError.Kind] = [
        .cannotConnect, .connectionReset, .connectionLost, .timedOut, .cannotFindHost, .notConnected, .badResponse,
        .tlsFailure, .tooManyRedirects, .unsupportedURL, .cancelled, .other,
    ]

    /// The kind whose name (``description``, as in code: `timedOut`) is `name`, or `nil` for a name NetKit does not
    /// define: what a transport that replays recorded failures, or reads them from a configuration, needs.
    public init?(named name: String) {
        guard let kind = Self.allKinds.first(where: { $0.description == name }) else { return nil }
        self = kind
    }
}
