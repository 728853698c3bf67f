/// How strictly ``TransportConformance`` judges a transport, and how hard it pushes it.
public struct TransportConformanceOptions: Sendable {
    /// Whether the transport follows redirects (then credentials must not follow one to another origin); when
    /// `false` it must hand the 3xx response back instead. `true` by default, as NetKit's transports do.
    public var followsRedirects: Bool
    /// Whether failures must be the `URLError` codes NetKit's transports use (`.networkConnectionLost` for a body
    /// cut short, `.cannotConnectToHost` for a refused connection); when `false`, any error will do, as long as
    /// there is one. `true` by default.
    public var requiresURLErrorCodes: Bool
    /// The size of the large upload and download, in bytes (32 MiB by default).
    public var largeBodyBytes: Int
    /// How long one check may take before it counts as hung (30 s by default).
    public var timeLimit: Duration

    /// Creates options; the defaults are what NetKit's own transports are held to.
    public init(
        followsRedirects: Bool = true,
        requiresURLErrorCodes: Bool = true,
        largeBodyBytes: Int = 32 << 20,
        timeLimit: Duration = .seconds(30)
    ) {
        self.followsRedirects = followsRedirects
        self.requiresURLErrorCodes = requiresURLErrorCodes
        self.largeBodyBytes = max(1, largeBodyBytes)
        self.timeLimit = timeLimit
    }
}
