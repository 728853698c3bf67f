import NetCore
import Testing

@Suite("RetryBudget.Ledger: retries as a share of traffic, per origin, halved every window, a bounded map")
struct RetryBudgetLedgerTests {
    typealias Ledger = RetryBudget.Ledger

    static let start = MonotonicInstant.now
    static let api = HTTPOrigin(scheme: "https", host: "api.example.com", port: nil)
    static let cdn = HTTPOrigin(scheme: "https", host: "cdn.example.com", port: nil)

    static func origin(_ number: Int) -> HTTPOrigin {
        HTTPOrigin(scheme: "https", host: "host\(number).example.com", port: nil)
    }

    /// Sends `requests` requests to `origin` one after another, each wanting up to `retries` retries, at `now`;
    /// the retries granted in all.
    static func run(
        _ ledger: inout Ledger, requests: Int, wanting retries: Int, to origin: HTTPOrigin = api,
        at now: MonotonicInstant = start
    ) -> Int {
        var granted = 0
        for _ in 0..<requests {
            ledger.deposit(for: origin, now: now)
            for _ in 0..<retries {
                guard ledger.withdraw(for: origin, now: now) else { break }
                granted += 1
            }
        }
        return granted
    }

    @Test(
        "requests that each want retries get the floor or the share of the requests, whichever is larger",
        arguments: [
            // (requests, retries each wants, retries granted with the defaults: 20 % extra, a floor of 10)
            (1, 3, 3),  // the first request of a fresh budget retries: the floor
            (3, 3, 9),
            (4, 3, 10),  // the floor is spent
            (50, 3, 10),  // 20 % of 50 is the floor again
            (100, 3, 20),
            (1_000, 3, 200),
            (10_000, 3, 2_000),  // 12,000 sends at most
            (10_000, 1, 2_000),
            (10, 0, 0),
        ])
    func share(requests: Int, wanting retries: Int, granted: Int) {
        var ledger = Ledger()
        let got = Self.run(&ledger, requests: requests, wanting: retries)
        #expect(got == granted)
        #expect(got <= max(requests / 5, 10), "never more than the share of the requests or the floor")
    }

    @Test("a share whose product should be whole is not cut below it by rounding")
    func wholeProduct() {
        var ledger = Ledger(extraShare: 0.29, minimumRetries: 0)
        #expect(Self.run(&ledger, requests: 100, wanting: 0) == 0)
        #expect(ledger.availableRetries(for: Self.api, now: Self.start) == 29)
    }

    @Test("origins have budgets of their own: one spent leaves another whole")
    func originsIndependent() {
        var ledger = Ledger()
        #expect(Self.run(&ledger, requests: 100, wanting: 3, to: Self.api) == 20)
        let spent = !ledger.withdraw(for: Self.api, now: Self.start)
        #expect(spent)
        #expect(ledger.availableRetries(for: Self.cdn, now: Self.start) == 10)
        #expect(Self.run(&ledger, requests: 1, wanting: 3, to: Self.cdn) == 3)
        #expect(ledger.availableRetries(for: Self.api, now: Self.start) == 0)
    }

    @Test("an origin is one however it is spelled: scheme and host case, the default port")
    func originSpelling() {
        var ledger = Ledger(minimumRetries: 1)
        let shouted = HTTPOrigin(scheme: "HTTPS", host: "API.example.com", port: 443)
        let otherPort = HTTPOrigin(scheme: "https", host: "api.example.com", port: 8443)
        // `#expect` cannot make a mutating call: each withdrawal is made first.
        let first = ledger.withdraw(for: shouted, now: Self.start)
        let second = ledger.withdraw(for: Self.api, now: Self.start)
        let third = ledger.withdraw(for: otherPort, now: Self.start)
        #expect([first, second, third] == [true, false, true], "the floor of 1 is spent by the first")
    }

    @Test(
        "counts are halved at the end of each window, so old traffic leaves no large credit",
        arguments: [
            // (seconds after the traffic, retries then available)
            (0.0, 200),  // 1,000 requests, no retries yet: 20 % of them
            (9.9, 200),
            (10.0, 100),  // 500 requests count
            (25.0, 50),
            (35.0, 25),
            (60.0, 10),  // 15 requests count: the floor
            (1_000_000.0, 10),
        ])
    func halving(after seconds: Double, available: Int) {
        var ledger = Ledger()
        _ = Self.run(&ledger, requests: 1_000, wanting: 0)
        #expect(ledger.availableRetries(for: Self.api, now: Self.start + .seconds(seconds)) == available)
    }

    @Test("a spent budget recovers as the windows halve the retries it counted")
    func recovery() {
        var ledger = Ledger()
        #expect(Self.run(&ledger, requests: 1_000, wanting: 3) == 200)
        let before = ledger.withdraw(for: Self.api, now: Self.start + .seconds(9))
        #expect(!before)
        // 500 requests and 100 retries count: still spent, until new requests come.
        let halved = ledger.withdraw(for: Self.api, now: Self.start + .seconds(10))
        #expect(!halved)
        #expect(Self.run(&ledger, requests: 10, wanting: 1, at: Self.start + .seconds(10)) == 2)
        // Long after, only the floor is left of the credit.
        #expect(Self.run(&ledger, requests: 1, wanting: 30, at: Self.start + .seconds(3_600)) == 10)
    }

    @Test("an instant before the window began changes nothing")
    func earlierInstant() {
        var ledger = Ledger()
        _ = Self.run(&ledger, requests: 1_000, wanting: 0, at: Self.start + .seconds(100))
        #expect(ledger.availableRetries(for: Self.api, now: Self.start) == 200)
    }

    @Test("the map holds at most maximumOrigins origins, the least recently used forgotten first")
    func bounded() {
        var ledger = Ledger(maximumOrigins: 3)
        for number in 0..<3 { ledger.deposit(for: Self.origin(number), now: Self.start) }
        // Origin 0 is used again: origin 1 is now the least recently used.
        let used = ledger.withdraw(for: Self.origin(0), now: Self.start)
        #expect(used)
        ledger.deposit(for: Self.origin(3), now: Self.start)
        #expect(ledger.trackedOrigins == 3)
        #expect(ledger.tracks(Self.origin(0)))
        #expect(!ledger.tracks(Self.origin(1)))
        #expect(ledger.tracks(Self.origin(2)))
        #expect(ledger.tracks(Self.origin(3)))

        var large = Ledger()
        for number in 0..<5_000 { large.deposit(for: Self.origin(number), now: Self.start) }
        #expect(large.trackedOrigins == Ledger.defaultMaximumOrigins)
        #expect(large.tracks(Self.origin(4_999)))
        #expect(!large.tracks(Self.origin(0)))
    }

    @Test(
        "hostile settings are clamped, not trapped on",
        arguments: [
            // (share, floor, window in seconds, origins) → (share, floor, window in seconds, origins)
            (-1.0, -5, -3.0, -1, 0.0, 0, 1.0, 1),
            (.nan, 0, 0.0, 0, 0.0, 0, 1.0, 1),
            (.infinity, 10, 10.0, 1_024, 1_000.0, 10, 10.0, 1_024),
            (0.5, Int.max, 1e9, Int.max, 0.5, Int.max, 1e9, Int.max),
        ])
    func clamped(
        share: Double, floor: Int, window: Double, origins: Int,
        clampedShare: Double, clampedFloor: Int, clampedWindow: Double, clampedOrigins: Int
    ) {
        var ledger = Ledger(
            extraShare: share, minimumRetries: floor, window: .seconds(window), maximumOrigins: origins)
        #expect(ledger.extraShare == clampedShare)
        #expect(ledger.minimumRetries == clampedFloor)
        #expect(ledger.window == .seconds(clampedWindow))
        #expect(ledger.maximumOrigins == clampedOrigins)
        // Whatever the settings, the arithmetic holds: no trap, no negative count.
        _ = Self.run(&ledger, requests: 5, wanting: 2)
        #expect(ledger.availableRetries(for: Self.api, now: Self.start + .seconds(1e12)) >= 0)
    }

    @Test("a share of 0 leaves the floor alone; a floor of 0 and a share of 0 refuse every retry")
    func noShare() {
        var floorOnly = Ledger(extraShare: 0)
        #expect(Self.run(&floorOnly, requests: 1_000, wanting: 3) == 10)
        var none = Ledger(extraShare: 0, minimumRetries: 0)
        #expect(Self.run(&none, requests: 1_000, wanting: 3) == 0)
    }
}
