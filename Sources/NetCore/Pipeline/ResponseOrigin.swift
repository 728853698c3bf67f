#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a response came from, kept as parts and parsed into a URL only when someone asks.
package enum ResponseOrigin: Sendable {
    /// The URL redirects led to, or a URL given as it is.
    case url(URL?)
    /// The request's own target.
    case request(HTTPRequestHead)

    package init(redirectedTo url: URL?, request: HTTPRequestHead) {
        self = url.map { .url($0) } ?? .request(request)
    }

    package var url: URL? {
        switch self {
        case .url(let url): url
        case .request(let head): head.url
        }
    }
}
