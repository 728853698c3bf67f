import Testing
@testable import NetAuth

@Suite("Refresh state machine")
struct RefreshStateMachineTests {
    struct Failure: Error, Equatable {}
    let start = ContinuousClock.now

    @Test("the first 401 starts a refresh; the others wait; all are released together")
    func singleFlight() {
        var machine = RefreshStateMachine<String>()
        guard
            case .startRefresh = machine.unauthorized(
                sentGeneration: 0, waiter: 1, "a", now: start, policy: TokenRefreshPolicy())
        else {
            Issue.record()
            return
        }
        guard
            case .wait = machine.unauthorized(
                sentGeneration: 0, waiter: 2, "b", now: start, policy: TokenRefreshPolicy())
        else {
            Issue.record()
            return
        }
        #expect(machine.waitingCount == 2)
        #expect(Set(machine.refreshFinished(1, failure: nil) ?? []) == ["a", "b"])
        #expect(machine.generation == 1)
        #expect(machine.startedRefreshes == 1)
        #expect(!machine.isRefreshing)
    }

    @Test("a 401 sent before a successful refresh retries at once; before a failed one it fails with it")
    func staleRequests() {
        var machine = RefreshStateMachine<Int>()
        _ = machine.unauthorized(sentGeneration: 0, waiter: 1, 1, now: start, policy: TokenRefreshPolicy())
        _ = machine.refreshFinished(machine.runningRefresh ?? 0, failure: nil)
        guard
            case .retryNow = machine.unauthorized(
                sentGeneration: 0, waiter: 2, 2, now: start, policy: TokenRefreshPolicy())
        else {
            Issue.record()
            return
        }

        _ = machine.unauthorized(sentGeneration: 1, waiter: 3, 3, now: start, policy: TokenRefreshPolicy())
        _ = machine.refreshFinished(machine.runningRefresh ?? 0, failure: Failure())
        guard
            case .failWithRefreshError(let error) = machine.unauthorized(
                sentGeneration: 1, waiter: 4, 4, now: start, policy: TokenRefreshPolicy())
        else {
            Issue.record()
            return
        }
        #expect(error as? Failure == Failure())
        guard
            case .startRefresh = machine.unauthorized(
                sentGeneration: 2, waiter: 5, 5, now: start, policy: TokenRefreshPolicy())
        else {
            Issue.record()
            return
        }
        #expect(machine.startedRefreshes == 3)
    }

    @Test("more refreshes than the window allows fail; the window slides")
    func window() {
        var machine = RefreshStateMachine<Int>()
        let policy = TokenRefreshPolicy(maxRefreshes: 2, interval: .seconds(10))
        for round in 0..<2 {
            guard
                case .startRefresh = machine.unauthorized(
                    sentGeneration: UInt64(round), waiter: round, round, now: start, policy: policy)
            else {
                Issue.record()
                return
            }
            _ = machine.refreshFinished(machine.runningRefresh ?? 0, failure: nil)
        }
        guard
            case .fail(let error) = machine.unauthorized(
                sentGeneration: 2, waiter: 9, 9, now: start + .seconds(5), policy: policy)
        else {
            Issue.record()
            return
        }
        #expect(error == .refreshLimitExceeded(limit: 2, interval: .seconds(10)))
        #expect(machine.waitingCount == 0)
        guard
            case .startRefresh = machine.unauthorized(
                sentGeneration: 2, waiter: 10, 10, now: start + .seconds(10), policy: policy)
        else {
            Issue.record()
            return
        }
    }

    @Test("a cancelled waiter leaves the queue; an unknown one is ignored")
    func cancel() {
        var machine = RefreshStateMachine<String>()
        _ = machine.unauthorized(sentGeneration: 0, waiter: 1, "a", now: start, policy: TokenRefreshPolicy())
        _ = machine.unauthorized(sentGeneration: 0, waiter: 2, "b", now: start, policy: TokenRefreshPolicy())
        #expect(machine.cancel(waiter: 1) == "a")
        #expect(machine.cancel(waiter: 1) == nil)
        #expect(machine.refreshFinished(machine.runningRefresh ?? 0, failure: nil) == ["b"])
    }

    @Test("a refresh ended once (by its timeout) ignores its late return; the next refresh gets a new number")
    func lateReturn() {
        var machine = RefreshStateMachine<String>()
        _ = machine.unauthorized(sentGeneration: 0, waiter: 1, "a", now: start, policy: TokenRefreshPolicy())
        #expect(machine.runningRefresh == 1)
        #expect(machine.refreshFinished(1, failure: Failure()) == ["a"])
        #expect(machine.refreshFinished(1, failure: nil) == nil)
        #expect(machine.generation == 1)
        #expect(machine.lastFailure is Failure)
        _ = machine.unauthorized(sentGeneration: 1, waiter: 2, "b", now: start, policy: TokenRefreshPolicy())
        #expect(machine.runningRefresh == 2)
        #expect(machine.refreshFinished(1, failure: nil) == nil)
        #expect(machine.refreshFinished(2, failure: nil) == ["b"])
    }
}
