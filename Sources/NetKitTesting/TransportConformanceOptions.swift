/// How strictly ``TransportConformance`` judges a transport, and how hard it pushes it.
public struct TransportConformanceOptions: Sendable {
    /// Whether failures must be `TransportError`s of the kind that fits (`TransportError.Kind.connectionLost`
    /// for a body cut short, `TransportError.Kind.cannotConnect` for a refused connection,
    /// `TransportError.Kind.timedOut` for an idle timeout), as the retry rules read them; when `false`,
    /// any error will do, as long as there is one. `true` by default: a transport whose failures carry no kind is
    /// never retried.
    public var requiresTransportErrorKinds: Bool
    /// The size of the large upload and download, in bytes (32 MiB by default).
    public var largeBodyBytes: Int
    /// How long one check may take before it counts as hung (30 s by default).
    public var timeLimit: Duration

    /// Creates options; the defaults are what NetKit's own transports are held to.
    public init(
        requiresTransportErrorKinds: Bool = true,
        largeBodyBytes: Int = 32 << 20,
        timeLimit: Duration = .seconds(30)
    ) {
        self.requiresTransportErrorKinds = requiresTransportErrorKinds
        self.largeBodyBytes = max(1, largeBodyBytes)
        self.timeLimit = timeLimit
    }

    /// Ignored: every transport hands `3xx` responses back, which the check "redirects" holds it to; NetKit's engine
    /// follows redirects (`RedirectPolicy`).
    @available(*, deprecated, message: "Transports no longer follow redirects: the engine does (RedirectPolicy)")
    public var followsRedirects: Bool {
        get { false }
        set {}
    }

    /// Creates options; `followsRedirects` is ignored (see ``followsRedirects``).
    @available(*, deprecated, message: "Transports no longer follow redirects: drop followsRedirects")
    public init(
        followsRedirects: Bool,
        requiresTransportErrorKinds: Bool = true,
        largeBodyBytes: Int = 32 << 20,
        timeLimit: Duration = .seconds(30)
    ) {
        self.init(
            requiresTransportErrorKinds: requiresTransportErrorKinds, largeBodyBytes: largeBodyBytes,
            timeLimit: timeLimit)
    }
}
