import Observation
import NetKitLock
import Testing
@testable import NetCore

@Suite("Network progress")
struct NetworkProgressTests {
    @Test("values are clamped, never go backwards, and end at exactly 1.0")
    func monotonic() {
        let progress = NetworkProgress()
        progress.reportSent(50, of: 100)
        #expect(progress.fractionCompleted == 0.5)
        progress.reportSent(10, of: 100)
        #expect(progress.fractionCompleted == 0.5)
        progress.reportSent(100, of: 100)
        #expect(progress.fractionCompleted < 1.0)
        progress.reportSent(5, of: 0)
        progress.markFinished()
        #expect(progress.fractionCompleted == 1.0)
        #expect(progress.isFinished)
        progress.fractionCompleted = 7
        #expect(progress.fractionCompleted == 1.0)
    }

    @Test("updates start with the current value and finish after 1.0")
    func updates() async {
        let progress = NetworkProgress()
        progress.reportSent(1, of: 4)
        let updates = progress.updates
        progress.reportSent(2, of: 4)
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
        let changes = Lock(0)
        withObservationTracking {
            _ = progress.fractionCompleted
        } onChange: {
            changes.withLock { $0 += 1 }
        }
        progress.reportSent(1, of: 2)
        #expect(changes.withLock { $0 } == 1)
    }

    @Test("the last byte sent is not completion: the upload is complete, the fraction waits below 1.0 for the engine")
    func uploadFinishedIsNotCompleted() {
        let progress = NetworkProgress()
        progress.follow(.upload)
        progress.reportSent(1_000, of: 1_000)
        #expect(progress.isUploadComplete)
        #expect(progress.bytesSent == 1_000)
        #expect(progress.totalBytesToSend == 1_000)
        #expect(progress.fractionCompleted < 1.0)
        #expect(!progress.isFinished)
        #expect(progress.outcome == nil)
        progress.reportReceived(500, of: 500)
        #expect(progress.fractionCompleted < 1.0, "bytes received do not move an upload's fraction")
        #expect(progress.bytesReceived == 500)
        progress.markFinished()
        #expect(progress.fractionCompleted == 1.0)
        #expect(progress.outcome == .completed)
    }

    @Test("a request without a body follows the bytes received; bytes sent do not move it")
    func downloadFollowsReceived() {
        let progress = NetworkProgress()
        progress.follow(.download)
        progress.reportSent(10, of: 10)
        #expect(progress.fractionCompleted == 0)
        progress.reportReceived(25, of: 100)
        #expect(progress.fractionCompleted == 0.25)
        progress.reportReceived(20, of: 100)
        #expect(progress.fractionCompleted == 0.25, "counts only grow")
        #expect(progress.bytesReceived == 25)
        progress.reportReceived(100, of: 100)
        #expect(progress.fractionCompleted < 1.0)
        #expect(progress.totalBytesToReceive == 100)
    }

    @Test("an unknown total moves no fraction but counts the bytes")
    func unknownTotal() {
        let progress = NetworkProgress()
        progress.follow(.upload)
        progress.reportSent(4_096, of: nil)
        #expect(progress.fractionCompleted == 0)
        #expect(progress.bytesSent == 4_096)
        #expect(progress.totalBytesToSend == nil)
        #expect(!progress.isUploadComplete)
    }
}
