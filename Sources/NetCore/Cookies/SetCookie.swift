#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What one `Set-Cookie` field says (RFC 6265 §5.2), before the jar decides whether and how to keep it.
package struct SetCookie: Sendable, Equatable {
    package var name: String
    package var value: String
    /// The last valid `Expires` date.
    package var expires: Date?
    /// The last valid `Max-Age`, in seconds (zero or less: expire now). It wins over `Expires`.
    package var maxAge: Int?
    /// The last non-empty `Domain`, lowercased, without a leading dot.
    package var domain: String?
    /// The last `Path` that starts with `/`.
    package var path: String?
    package var isSecure = false
    package var isHTTPOnly = false
    package var sameSite: Cookie.SameSite?

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
