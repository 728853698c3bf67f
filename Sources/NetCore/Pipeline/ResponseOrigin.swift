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

extension ResponseOrigin: CustomReflectable {
    /// The URL that answered, with query values hidden; never the request head it may keep, whose headers hold
    /// credentials.
    package var customMirror: Mirror {
        Mirror(self, children: ["url": LogRedaction.url(url)])
    }
}
