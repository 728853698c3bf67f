import Testing
import NetCore

/// What a log line and a metrics dimension say of each ``CacheEvent``: fixed texts and words, one per case.
@Suite("Cache events: descriptions and names")
struct CacheEventDescriptionTests {
    static let events: [CacheEvent] =
        [.hit, .miss, .revalidated, .stored, .invalidated, .unavailable]
        + CacheEvent.StaleReason.allCases.map(CacheEvent.servedStale)
        + CacheEvent.NotStoredReason.allCases.map(CacheEvent.notStored)

    @Test("a log line's text for each event")
    func descriptions() {
        #expect(CacheEvent.hit.description == "hit")
        #expect(CacheEvent.miss.description == "miss")
        #expect(CacheEvent.revalidated.description == "revalidated")
        #expect(CacheEvent.stored.description == "stored")
        #expect(CacheEvent.invalidated.description == "invalidated")
        #expect(CacheEvent.unavailable.description == "unavailable")
        #expect(CacheEvent.servedStale(.staleWhileRevalidate).description == "served stale: stale-while-revalidate")
        #expect(
            CacheEvent.servedStale(.staleIfErrorStatus).description == "served stale: stale-if-error on an error status"
        )
        #expect(
            CacheEvent.servedStale(.staleIfErrorConnection).description
                == "served stale: stale-if-error on a failed connection")
        #expect(CacheEvent.servedStale(.maxStale).description == "served stale: max-stale")
        #expect(CacheEvent.notStored(.noStore).description == "not stored: no-store")
        #expect(CacheEvent.notStored(.varyAsterisk).description == "not stored: Vary: *")
        #expect(CacheEvent.notStored(.tooLarge).description == "not stored: larger than the cache")
        #expect(Set(Self.events.map(\.description)).count == Self.events.count, "two events read alike")
    }

    @Test("metrics words: the event's kind, and the reason's only where there is one")
    func names() {
        #expect(Self.events.map(\.name).filter { $0 == "stale" }.count == CacheEvent.StaleReason.allCases.count)
        #expect(
            Set(Self.events.map(\.name)) == [
                "hit", "miss", "revalidated", "stale", "stored", "not_stored", "invalidated", "unavailable",
            ])
        #expect(CacheEvent.notStored(.noStore).reasonName == "no_store")
        #expect(CacheEvent.servedStale(.staleWhileRevalidate).reasonName == "while_revalidate")
        #expect(CacheEvent.hit.reasonName == nil && CacheEvent.invalidated.reasonName == nil)
        let reasons = Self.events.compactMap(\.reasonName)
        #expect(
            Set(CacheEvent.NotStoredReason.allCases.map(\.name)).count == CacheEvent.NotStoredReason.allCases.count,
            "two reasons not to store share a word")
        #expect(
            Set(CacheEvent.StaleReason.allCases.map(\.name)).count == CacheEvent.StaleReason.allCases.count,
            "two reasons to serve stale share a word")
        for word in Self.events.map(\.name) + reasons {
            #expect(
                !word.isEmpty && word.allSatisfy { $0.isLowercase || $0 == "_" },
                "\(word) is not a fixed lowercase word a metrics backend takes as a dimension value")
        }
    }
}
