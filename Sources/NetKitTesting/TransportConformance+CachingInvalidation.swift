import Foundation
import LoopbackServer
import NetCore

extension TransportConformance {
    /// §4.4: a successful `POST` removes what is stored for the URLs its `Location` and `Content-Location` name
    /// (and its own), and nothing else; a successful `PROPFIND`, a method ``HTTPMethod`` does not have, removes what
    /// is stored for its URL.
    static let cachingInvalidation = TransportConformanceCheck("cache: RFC 9111 §4.4 invalidation") { context in
        let rig = try CachingRig(context, rule: "RFC 9111 §4.4") { request, count in
            switch (request.method, request.path) {
            case ("POST", _):
                return LoopbackResponse(
                    status: 201,
                    headers: [(name: "Location", value: "/created"), (name: "Content-Location", value: "/described")],
                    body: Data("created".utf8))
            case ("PROPFIND", _):
                return LoopbackResponse(status: 207, body: Data("multi-status".utf8))
            default:
                return LoopbackResponse(
                    headers: [(name: "Cache-Control", value: "max-age=3600")],
                    body: Data("\(request.path) \(count)".utf8))
            }
        }
        defer { rig.server.stop() }
        let paths = ["/created", "/described", "/untouched", "/dav"]
        for path in paths { _ = try await rig.send(path) }
        let posted = try await rig.send("/items", method: .post)
        try context.expect(
            posted.status == 201,
            "RFC 9111 §4.4: the POST should have been answered 201 by the server; the caller got \(posted.status)")
        for path in ["/created", "/described"] {
            let again = try await rig.send(path)
            try context.expect(
                again.text == "\(path) 2",
                "RFC 9111 §4.4: a 201 to a POST naming \(path) in Location or Content-Location should have removed "
                    + "its stored response; got \(again.text.debugDescription), the server was asked "
                    + "\(rig.count("GET \(path)")) times")
        }
        let untouched = try await rig.send("/untouched")
        try context.expect(
            untouched.text == "/untouched 1",
            "RFC 9111 §4.4: the POST named no other URL, yet the stored /untouched was asked for again "
                + "(\(untouched.text.debugDescription))")

        _ = try await rig.send("/dav", method: HTTPRequestMethod(rawValue: "PROPFIND")!)
        let folder = try await rig.send("/dav")
        try context.expect(
            folder.text == "/dav 2" && rig.count("PROPFIND /dav") == 1,
            "RFC 9111 §4.4: a successful PROPFIND should invalidate the stored GET of /dav; got "
                + "\(folder.text.debugDescription), the server saw \(rig.count("PROPFIND /dav")) PROPFIND")
    }
}
