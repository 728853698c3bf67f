import Foundation
import LoopbackServer
import NetCore

extension TransportConformance {
    /// §4.3.4: a stale response is validated with `If-None-Match`; the server's 304 reaches the caller as the stored
    /// response with the 304's fields, and those fields (and its freshness) are stored: the next request is
    /// answered without the network, with them.
    static let cachingNotModified = TransportConformanceCheck("cache: RFC 9111 §4.3.4 a 304 updates the stored fields")
    { context in
        let rig = try CachingRig(context, rule: "RFC 9111 §4.3.4") { request, count in
            guard request.header("If-None-Match") == #""v1""# else {
                return LoopbackResponse(
                    headers: [
                        (name: "ETag", value: #""v1""#), (name: "Cache-Control", value: "max-age=0"),
                        (name: "X-Version", value: "1"),
                    ],
                    body: Data("stored body".utf8))
            }
            return LoopbackResponse(
                status: 304,
                headers: [
                    (name: "ETag", value: #""v1""#), (name: "Cache-Control", value: "max-age=3600"),
                    (name: "X-Version", value: "\(count)"),
                ])
        }
        defer { rig.server.stop() }
        _ = try await rig.send("/validated")
        let validated = try await rig.send("/validated")
        let fresh = try await rig.send("/validated")
        let conditional = rig.server.requests.map { $0.header("If-None-Match") }
        try context.expect(
            conditional == [nil, #""v1""#],
            "RFC 9111 §4.3.4: the stale response should be validated once with If-None-Match: \"v1\"; the server saw "
                + "If-None-Match \(conditional) and \(conditional.count) requests for three")
        try context.expect(
            validated.status == 200 && validated.text == "stored body" && validated.fields["x-version"] == "2",
            "RFC 9111 §4.3.4: the 304 should reach the caller as the stored 200 with the 304's X-Version: 2; got "
                + "\(validated.status) \(validated.text.debugDescription), X-Version "
                + "\(validated.fields["x-version"] ?? "none")")
        try context.expect(
            fresh.text == "stored body" && fresh.fields["x-version"] == "2",
            "RFC 9111 §4.3.4: the 304's fields (max-age=3600, X-Version: 2) should have been stored; the next answer "
                + "had X-Version \(fresh.fields["x-version"] ?? "none")")
    }

    /// §4.1: a response with `Vary: Accept-Language` answers a request whose `Accept-Language` lists the same
    /// languages in another order and case, and not one that asks for another language.
    static let cachingVary = TransportConformanceCheck("cache: RFC 9111 §4.1 Vary normalised") { context in
        let rig = try CachingRig(context, rule: "RFC 9111 §4.1") { request, count in
            LoopbackResponse(
                headers: [(name: "Cache-Control", value: "max-age=3600"), (name: "Vary", value: "Accept-Language")],
                body: Data("\(request.header("Accept-Language") ?? "none") \(count)".utf8))
        }
        defer { rig.server.stop() }
        let first = try await rig.send("/vary", headers: ["Accept-Language": "en, de"])
        let reordered = try await rig.send("/vary", headers: ["Accept-Language": "de,EN"])
        let other = try await rig.send("/vary", headers: ["Accept-Language": "fr"])
        try context.expect(
            reordered.text == first.text && rig.count("GET /vary") == 2 && other.text == "fr 2",
            "RFC 9111 §4.1: Accept-Language \"de,EN\" should be answered by the response stored for \"en, de\", and "
                + "\"fr\" by the server; got \(first.text.debugDescription), \(reordered.text.debugDescription), "
                + "\(other.text.debugDescription), the server was asked \(rig.count("GET /vary")) times")
    }

    /// RFC 8246 §2: a request with `Cache-Control: max-age=0` (a reload) is answered by a fresh `immutable`
    /// response without the network; a fresh response that is not immutable is validated.
    static let cachingImmutable = TransportConformanceCheck("cache: RFC 8246 immutable") { context in
        let rig = try CachingRig(context, rule: "RFC 8246 §2") { request, count in
            let immutable = request.path == "/immutable" ? ", immutable" : ""
            return LoopbackResponse(
                headers: [(name: "Cache-Control", value: "max-age=3600" + immutable), (name: "ETag", value: #""a""#)],
                body: Data("\(request.path) \(count)".utf8))
        }
        defer { rig.server.stop() }
        let reload = ["Cache-Control": "max-age=0"]
        _ = try await rig.send("/immutable")
        let kept = try await rig.send("/immutable", headers: reload)
        try context.expect(
            kept.text == "/immutable 1" && rig.count("GET /immutable") == 1,
            "RFC 8246 §2: a reload (max-age=0) should be answered by the fresh immutable response; got "
                + "\(kept.text.debugDescription), the server was asked \(rig.count("GET /immutable")) times")
        _ = try await rig.send("/mutable")
        _ = try await rig.send("/mutable", headers: reload)
        try context.expect(
            rig.count("GET /mutable") == 2,
            "RFC 8246 §2: a reload of a fresh response that is not immutable should reach the server; it was asked "
                + "\(rig.count("GET /mutable")) times")
    }

    /// §5.2.2.3: `must-understand` with a status the cache understands (200) stores the response despite
    /// `no-store`; `no-store` alone stores nothing.
    static let cachingMustUnderstand = TransportConformanceCheck("cache: RFC 9111 §5.2.2.3 must-understand") {
        context in
        let rig = try CachingRig(context, rule: "RFC 9111 §5.2.2.3") { request, _ in
            let understood = request.path == "/must-understand" ? ", must-understand" : ""
            return LoopbackResponse(
                headers: [(name: "Cache-Control", value: "max-age=3600, no-store" + understood)],
                body: Data("body".utf8))
        }
        defer { rig.server.stop() }
        for path in ["/must-understand", "/no-store"] {
            for _ in 0..<2 { _ = try await rig.send(path) }
        }
        try context.expect(
            rig.count("GET /must-understand") == 1,
            "RFC 9111 §5.2.2.3: a 200 with must-understand and no-store should be stored; the server was asked "
                + "\(rig.count("GET /must-understand")) times for two requests")
        try context.expect(
            rig.count("GET /no-store") == 2,
            "RFC 9111 §5.2.2.3: without must-understand, no-store should keep the 200 out of the cache; the server "
                + "was asked \(rig.count("GET /no-store")) times for two requests")
    }
}
