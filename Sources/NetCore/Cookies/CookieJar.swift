import Synchronization

/// Cookies (RFC 6265) kept between requests, opt-in: `manager.cookieJar = CookieJar()`.
public final class CookieJar: Sendable {
    /// Creates an empty jar.
    public init() {}
}
