import NetCore
import NetKitLock
import Testing

@Suite("RenewOnce: the one renew-once routine of the credential stage and NetOpenAPI's middleware")
struct RenewOnceTests {
    typealias Machine = RenewOnce.StateMachine

    @Test(
        "what an answer leads to",
        arguments: [
            // (can renew, rejected, action)
            (true, false, Machine.AnswerAction.deliver),
            (true, true, .renew),
            (false, true, .deliver),
            (false, false, .deliver),
        ])
    func firstAnswer(canRenew: Bool, rejected: Bool, action: Machine.AnswerAction) {
        var machine = Machine(canRenew: canRenew)
        #expect(machine.answered(rejected: rejected) == action)
        #expect(!machine.mayRenew, "one answer ends the chance of a renewal unless it asked for one")
    }

    @Test(
        "what a renewal's end leads to",
        arguments: [
            (Machine.RenewalResult.renewed, Machine.RenewalAction.resend),
            (.rejectedInsideRenewal, .deliverRejection),
            (.cancelled, .cancel),
            (.failed, .fail),
        ])
    func renewalEnd(result: Machine.RenewalResult, action: Machine.RenewalAction) {
        var machine = Machine(canRenew: true)
        #expect(machine.answered(rejected: true) == .renew)
        #expect(machine.renewalEnded(result) == action)
    }

    @Test("the resend's answer is final, even a rejection: one renewal per request")
    func resendIsFinal() {
        var machine = Machine(canRenew: true)
        #expect(machine.answered(rejected: true) == .renew)
        #expect(machine.renewalEnded(.renewed) == .resend)
        #expect(!machine.mayRenew)
        #expect(machine.answered(rejected: true) == .deliver)
    }

    /// A recovery that counts renewals and ends each as told.
    final class Recovery: CredentialRecovery {
        private let state = Lock((generation: UInt64(0), renewals: 0))
        let ending: (any Error)?
        init(ending: (any Error)? = nil) { self.ending = ending }
        var renewals: Int { state.withLock { $0.renewals } }
        func generation() async -> UInt64 { state.withLock { $0.generation } }
        func recover(fromUnauthorizedAt generation: UInt64) async throws {
            state.withLock {
                $0.renewals += 1
                $0.generation += 1
            }
            if let ending { throw ending }
        }
    }

    struct RefreshBroke: Error, Equatable {}

    /// Runs the routine over answers that are statuses, 401 a rejection: the answer delivered, the attempts made and
    /// the resends announced.
    func run(_ statuses: [Int], recovery: Recovery?) async throws -> (answer: Int, attempts: Int, resends: Int) {
        let attempts = Lock(0)
        let resends = Lock(0)
        let answer = try await RenewOnce.send(
            recovery: recovery,
            attempt: {
                attempts.withLock { count in
                    defer { count += 1 }
                    return statuses[min(count, statuses.count - 1)]
                }
            },
            isRejected: { $0 == 401 },
            willResend: { resends.withLock { $0 += 1 } })
        return (answer, attempts.withLock { $0 }, resends.withLock { $0 })
    }

    @Test("a rejection is renewed once and sent again; a server that always rejects costs one renewal")
    func renewsOnce() async throws {
        let recovery = Recovery()
        let renewed = try await run([401, 200], recovery: recovery)
        #expect(renewed.answer == 200 && renewed.attempts == 2 && renewed.resends == 1)
        let rejecting = try await run([401, 401, 401], recovery: recovery)
        #expect(rejecting.answer == 401 && rejecting.attempts == 2)
        #expect(recovery.renewals == 2)
        let accepted = try await run([200], recovery: recovery)
        #expect(accepted.attempts == 1)
        #expect(recovery.renewals == 2)
    }

    @Test("without a recovery the rejection is delivered as it came")
    func noRecovery() async throws {
        let result = try await run([401, 200], recovery: nil)
        #expect(result.answer == 401 && result.attempts == 1)
    }

    @Test("the renewal's own request rejected: the rejection is delivered, nothing waits for itself")
    func rejectedInsideRenewal() async throws {
        let result = try await run([401, 200], recovery: Recovery(ending: NetworkError.unauthorized))
        #expect(result.answer == 401 && result.attempts == 1)
    }

    @Test("a renewal that fails ends the request with its error, marked so that no retry repeats it")
    func renewalFails() async throws {
        do {
            _ = try await run([401, 200], recovery: Recovery(ending: RefreshBroke()))
            Issue.record("the request went on after its renewal failed")
        } catch let failure as RefreshFailure {
            #expect(failure.underlying is RefreshBroke)
        }
        await #expect(throws: CancellationError.self) {
            _ = try await run([401, 200], recovery: Recovery(ending: CancellationError()))
        }
    }
}
