extension RetryBudget {
    /// The arithmetic of a retry budget, as a plain value: per origin, how many requests that may retry were sent
    /// (deposits) and how many retries were granted (withdrawals). No lock and no clock: the caller passes `now` in,
    /// so that a test can walk the windows by hand and ``RetryBudget`` decides where time comes from.
    ///
    /// A retry is granted while `retries + 1 <= max(minimumRetries, extraShare × requests)`: retries stay a share of
    /// the traffic (the share that makes a struggling server's load grow by at most that much), and the floor lets a
    /// quiet client, or the first request of a fresh budget, still retry. Both counts of an origin are halved at the
    /// end of each window, so old traffic does not leave a large credit that a sudden outage could spend at once.
    /// At most ``maximumOrigins`` origins are counted; the one used least recently is forgotten first (a forgotten
    /// origin starts again from the floor).
    package struct Ledger: Sendable {
        /// One origin's counts.
        private struct Account {
            /// Requests that may retry, deposited (halved at the end of each window).
            var requests = 0
            /// Retries granted (halved with ``requests``).
            var retries = 0
            /// When the current window began.
            var windowStart: MonotonicInstant
            /// The ledger's use count at the account's last use: the smallest is forgotten first when the map is full.
            var lastUse: UInt64
        }

        /// 1,024: the default of ``maximumOrigins``; a client talks to far fewer origins, and a scan of this many
        /// accounts (done only when a new origin arrives at a full map) costs microseconds.
        package static let defaultMaximumOrigins = 1_024
        /// The most ``extraShare`` may be: a thousand retries per request is already no limit at all.
        package static let maximumExtraShare = 1_000.0
        /// The shortest ``window``: shorter, the floor would be granted again so often that it limits nothing.
        package static let minimumWindow = Duration.seconds(1)

        /// Retries granted per request that may retry, beyond the floor: 0.2 allows 20 % more sends than requests.
        package let extraShare: Double
        /// Retries granted in a window whatever the traffic: the floor.
        package let minimumRetries: Int
        /// How long the counts last before they are halved.
        package let window: Duration
        /// The most origins counted at once.
        package let maximumOrigins: Int

        private var accounts: [HTTPOrigin: Account] = [:]
        /// Counts every use, to order the accounts by their last one.
        private var uses: UInt64 = 0

        /// A ledger with nothing deposited. Values that make no sense are clamped rather than trapped on, since they
        /// may come from a setting: a share that is negative or not a number counts as 0 and one above
        /// ``maximumExtraShare`` as that, a negative floor as 0, a window below ``minimumWindow`` as that, and fewer
        /// than one origin as one.
        package init(
            extraShare: Double = 0.2, minimumRetries: Int = 10, window: Duration = .seconds(10),
            maximumOrigins: Int = defaultMaximumOrigins
        ) {
            self.extraShare = extraShare.isNaN ? 0 : min(max(extraShare, 0), Self.maximumExtraShare)
            self.minimumRetries = max(minimumRetries, 0)
            self.window = max(window, Self.minimumWindow)
            self.maximumOrigins = max(maximumOrigins, 1)
        }

        /// Counts one request to `origin` that may retry.
        package mutating func deposit(for origin: HTTPOrigin, now: MonotonicInstant) {
            update(origin, now: now) { account in
                if account.requests < Int.max { account.requests += 1 }
            }
        }

        /// Grants one retry to `origin` and counts it, or refuses it when the origin's budget is spent.
        package mutating func withdraw(for origin: HTTPOrigin, now: MonotonicInstant) -> Bool {
            let (share, floor) = (extraShare, minimumRetries)
            return update(origin, now: now) { account in
                guard account.retries < Self.allowance(account, share: share, floor: floor) else { return false }
                account.retries += 1
                return true
            }
        }

        /// The retries `origin` would still be granted at `now`, were no request deposited meanwhile.
        package func availableRetries(for origin: HTTPOrigin, now: MonotonicInstant) -> Int {
            guard let account = accounts[origin] else { return minimumRetries }
            let current = decayed(account, at: now)
            return max(Self.allowance(current, share: extraShare, floor: minimumRetries) - current.retries, 0)
        }

        /// The number of origins counted.
        package var trackedOrigins: Int { accounts.count }

        /// Whether `origin` is counted (rather than never seen, or forgotten to make room).
        package func tracks(_ origin: HTTPOrigin) -> Bool { accounts[origin] != nil }

        /// The most retries an account may have been granted: the floor, or the share of its requests. Static, so
        /// that a change of an account (which holds the ledger exclusively) can ask it.
        private static func allowance(_ account: Account, share: Double, floor: Int) -> Int {
            // The tolerance keeps a product that should be whole (0.29 × 100) from landing just below it and losing
            // a retry to rounding.
            let product = (share * Double(account.requests) + 1e-9).rounded(.down)
            let granted = product >= Double(Int.max) ? Int.max : Int(product)
            return max(floor, granted)
        }

        /// `account` with its counts halved once for every whole window since its window began.
        private func decayed(_ account: Account, at now: MonotonicInstant) -> Account {
            let elapsed = now - account.windowStart
            guard elapsed >= window else { return account }
            var account = account
            let windows = elapsed / window
            if windows >= 62 {
                // Every count is zero by then; a shift that large would also be undefined.
                account.requests = 0
                account.retries = 0
                account.windowStart = now
            } else {
                let halvings = Int(windows)
                account.requests >>= halvings
                account.retries >>= halvings
                account.windowStart = account.windowStart + window * halvings
            }
            return account
        }

        /// Runs `change` on `origin`'s account, brought up to `now`, made (and room made for it) when there is none.
        private mutating func update<Result>(
            _ origin: HTTPOrigin, now: MonotonicInstant, _ change: (inout Account) -> Result
        ) -> Result {
            uses &+= 1
            var account: Account
            if let existing = accounts[origin] {
                account = decayed(existing, at: now)
            } else {
                forgetLeastRecentlyUsed()
                account = Account(windowStart: now, lastUse: uses)
            }
            account.lastUse = uses
            let result = change(&account)
            accounts[origin] = account
            return result
        }

        /// Forgets the account used least recently when the map is full, so that a new one fits.
        private mutating func forgetLeastRecentlyUsed() {
            guard accounts.count >= maximumOrigins,
                let oldest = accounts.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            else { return }
            accounts.removeValue(forKey: oldest)
        }
    }
}
