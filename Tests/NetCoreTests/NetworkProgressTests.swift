import Observation
import Synchronization
import Testing
@testable import NetCore

@Suite("Network progress")
struct NetworkProgressTests {
    @Test("values are clamped, never go backwards, and end at exactly 1.0")
    func monotonic() {
        let progress = NetworkProgress()
        progress.report(completed: 50, of: 100)
        #expect(progress.fractionCompleted == 0.5)
        progress.report(completed: 10, of: 100)
        #expect(progress.fractionCompleted == 0.5)
        progress.report(completed: 100, of: 100)
        #expect(progress.fractionCompleted < 1.0)
        progress.report(completed: 5, of: 0)
        progress.markFinished()
        #expect(progress.fractionCompleted == 1.0)
        #expect(progress.isFinished)
        progress.fractionCompleted = 7
        #expect(progress.fractionCompleted == 1.0)
    }

    @Test("updates start with the current value and finish after 1.0")
    func updates() async {
        let progress = NetworkProgress()
        progress.report(completed: 1, of: 4)
        let updates = progress.updates
        progress.report(completed: 2, of: 4)
        progress.markFinished()
        var seen: [Double] = []
        for await value in updates { seen.append(value) }
        #expect(seen == [0.25, 0.5, 1.0])
        var late: [Double] = []
        for await value in progress.updates { late.append(value) }
        #expect(late == [1.0])
    }

    @Test("Observation reports a change of fractionCompleted")
    func observation() {
        let progress = NetworkProgress()
        let changes = Mutex(0)
        withObservationTracking {
            _ = progress.fractionCompleted
        } onChange: {
            changes.withLock { $0 += 1 }
        }
        progress.report(completed: 1, of: 2)
        #expect(changes.withLock { $0 } == 1)
    }
}
