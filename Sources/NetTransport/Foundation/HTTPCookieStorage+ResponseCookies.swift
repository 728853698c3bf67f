#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import NetCore

extension HTTPCookieStorage {
    /// Keeps the cookies `head` sets for `url`, one `Set-Cookie` field at a time, as FoundationNetworking keeps them
    /// for a session that accepts cookies (the storage's own accept policy still decides).
    ///
    /// URLSessionTransport's session accepts none, because FoundationNetworking would otherwise read every header
    /// line of every response for cookies on the work queue all sessions of a process share; the transport calls
    /// this instead, off that queue, and a response without `Set-Cookie` costs one look through its fields.
    func keepCookies(of head: HTTPResponseHead, for url: URL) {
        let cookies = head.headerFields.values(for: "Set-Cookie").flatMap {
            HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": $0], for: url)
        }
        if !cookies.isEmpty { setCookies(cookies, for: url, mainDocumentURL: nil) }
    }
}
#endif
