import Foundation
import LoopbackServer
import NetCore

/// The engine's response cache over the transport, one check per rule of RFC 9111 (RFC 5861, RFC 8246), each against
/// a loopback server of its own: what the transport delivers (statuses, `Age`, `Expires`, `Last-Modified`, `Vary`,
/// 304s, a dropped connection, a method outside ``HTTPMethod``) must let the cache decide as it does over any other
/// transport. This file holds freshness; `+CachingValidation`, `+CachingInvalidation` and `+CachingStale` the rest.
extension TransportConformance {
    /// Every caching check, in the order ``checks`` runs them.
    static var cachingChecks: [TransportConformanceCheck] {
        [
            cachingExpires, cachingAge, cachingExplicitFreshness, cachingHeuristicFreshness, cachingNotModified,
            cachingVary, cachingImmutable, cachingMustUnderstand, cachingInvalidation, cachingStaleWhileRevalidate,
            cachingStaleIfError,
        ]
    }

    /// §5.3: an `Expires` that is no strict HTTP-date (a `UTC` zone) means already expired; one in GMT is fresh.
    static let cachingExpires = TransportConformanceCheck("cache: RFC 9111 §5.3 strict Expires") { context in
        let rig = try CachingRig(context, rule: "RFC 9111 §5.3") { request, _ in
            let zone = request.path == "/expires-utc" ? "UTC" : "GMT"
            return LoopbackResponse(
                headers: [(name: "Expires", value: "Thu, 18 Aug 2050 02:01:18 \(zone)")], body: Data("a".utf8))
        }
        defer { rig.server.stop() }
        for _ in 0..<2 { _ = try await rig.send("/expires-utc") }
        for _ in 0..<2 { _ = try await rig.send("/expires-gmt") }
        try context.expect(
            rig.count("GET /expires-utc") == 2,
            "RFC 9111 §5.3: an Expires in UTC is no HTTP-date and means expired, yet the response answered again "
                + "(the server was asked \(rig.count("GET /expires-utc")) times for two requests)")
        try context.expect(
            rig.count("GET /expires-gmt") == 1,
            "RFC 9111 §5.3: an Expires in GMT in 2050 is fresh, yet the server was asked "
                + "\(rig.count("GET /expires-gmt")) times for two requests")
    }

    /// §5.1 (and §4.2.3): `Age: 7200, 0` is 7200 seconds, older than `max-age=3600`: stale, asked again;
    /// `Age: 0, 7200` is fresh.
    static let cachingAge = TransportConformanceCheck("cache: RFC 9111 §5.1 Age") { context in
        let rig = try CachingRig(context, rule: "RFC 9111 §5.1") { request, count in
            let age = request.path == "/old" ? "7200, 0" : "0, 7200"
            return LoopbackResponse(
                headers: [(name: "Cache-Control", value: "max-age=3600"), (name: "Age", value: age)],
                body: Data("\(request.path) \(count)".utf8))
        }
        defer { rig.server.stop() }
        let first = try await rig.send("/old")
        let second = try await rig.send("/old")
        try context.expect(
            second.text == "/old 2" && rig.count("GET /old") == 2,
            "RFC 9111 §5.1: a max-age=3600 response with Age: 7200, 0 is stale and must be asked for again; got "
                + "\(first.text.debugDescription) then \(second.text.debugDescription), the server was asked "
                + "\(rig.count("GET /old")) times (Age reached the cache as \(first.fields["age"] ?? "nothing"))")
        for _ in 0..<2 { _ = try await rig.send("/young") }
        try context.expect(
            rig.count("GET /young") == 1,
            "RFC 9111 §5.1: with Age: 0, 7200 the response is fresh, yet the server was asked "
                + "\(rig.count("GET /young")) times for two requests")
    }

    /// §3 and §4.2.1: a 301, 404 or 410 with an explicit `max-age` is stored and answers again without the network
    /// (the 301's target, marked `no-store`, is asked each time the stored 301 sends the request on).
    static let cachingExplicitFreshness = TransportConformanceCheck(
        "cache: RFC 9111 §3 and §4.2.1 a fresh 301, 404 or 410"
    ) { context in
        let rig = try CachingRig(context, rule: "RFC 9111 §3, §4.2.1") { request, _ in
            let fresh = (name: "Cache-Control", value: "max-age=3600")
            switch request.path {
            case "/moved":
                return LoopbackResponse(status: 301, headers: [fresh, (name: "Location", value: "/target")])
            case "/not-found": return LoopbackResponse(status: 404, headers: [fresh], body: Data("absent".utf8))
            case "/gone": return LoopbackResponse(status: 410, headers: [fresh], body: Data("gone".utf8))
            default:
                return LoopbackResponse(
                    headers: [(name: "Cache-Control", value: "no-store")], body: Data("target".utf8))
            }
        }
        defer { rig.server.stop() }
        for path in ["/moved", "/not-found", "/gone"] {
            var answers: [String] = []
            for _ in 0..<2 {
                let answer = try await rig.send(path)
                answers.append("\(answer.status) \(answer.text)")
            }
            try context.expect(
                rig.count("GET \(path)") == 1 && answers[0] == answers[1],
                "RFC 9111 §3, §4.2.1: a \(path == "/moved" ? 301 : path == "/gone" ? 410 : 404) with max-age=3600 "
                    + "should be stored and answer again without the network; the server was asked "
                    + "\(rig.count("GET \(path)")) times, the caller got \(answers)")
        }
        try context.expect(
            rig.count("GET /target") == 2,
            "RFC 9111 §3: the stored 301 should still lead to its target each time; /target was asked "
                + "\(rig.count("GET /target")) times")
    }

    /// §4.2.2: without explicit freshness, a 200 or 404 with only `Last-Modified` (in 2001) is fresh for a tenth of
    /// its age, at most a week: the second request does not reach the server.
    static let cachingHeuristicFreshness = TransportConformanceCheck("cache: RFC 9111 §4.2.2 heuristic freshness") {
        context in
        let rig = try CachingRig(context, rule: "RFC 9111 §4.2.2") { request, _ in
            LoopbackResponse(
                status: request.path == "/heuristic-404" ? 404 : 200,
                headers: [(name: "Last-Modified", value: "Mon, 01 Jan 2001 00:00:00 GMT")],
                body: Data("body".utf8))
        }
        defer { rig.server.stop() }
        for path in ["/heuristic-404", "/heuristic-200"] {
            for _ in 0..<2 { _ = try await rig.send(path) }
            try context.expect(
                rig.count("GET \(path)") == 1,
                "RFC 9111 §4.2.2: a \(path.suffix(3)) with only Last-Modified was asked \(rig.count("GET \(path)")) "
                    + "times, expected once (heuristic freshness; a revalidation would have asked again)")
        }
    }
}
