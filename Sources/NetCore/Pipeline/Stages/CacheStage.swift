#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Answers `send`'s `GET` requests from the ``ResponseCache`` when it may, validates stale responses with a
/// conditional request, and stores what may be stored (see ``CachePolicy`` for the rules); on every road, a
/// successful response to a method that is not safe invalidates what is stored for its target (RFC 9111 §4.4).
///
/// It sits inside the plugins, the credential and the cookies, so that a response is filed under the request as it
/// goes out: whose it is (``CredentialPartition``: the transport, the cookie jar, every credential field's value)
/// decides which later requests it may answer. A 304 that validates a stored response comes back out as that
/// response (status, body) with the 304's header fields: the stages outside never see the 304. A response served
/// without the network is marked ``Exchange/isFromCache``.
///
/// A stale response within its `stale-while-revalidate` window answers at once while one validation per stored
/// response runs in the background, down the rest of the road; one within its `stale-if-error` window answers in
/// place of a 500, 502, 503 or 504 or a failure to reach the server.
///
/// On the roads that hand the body over unread (`stream`, `forward`) it only invalidates: nothing is answered from
/// the cache or stored there, since the body is the caller's to read, once.
///
/// Each pass records what it did in the request's ``RequestMetrics/cacheEvents``: one answer (hit, served stale,
/// revalidated, miss, unavailable) followed by what became of the server's response (stored, not stored and why),
/// or `invalidated`. The events are recorded by ``run(_:road:)`` alone, from what its helpers return, so that the
/// background validation of `stale-while-revalidate`, which runs those helpers after the request has ended, adds
/// nothing to the metrics of a request that may still be reading them.
package struct CacheStage: Sendable {
    package let cache: ResponseCache
    package let state: RequestState
    /// The road's transport, whose identity is part of every partition.
    package let transport: any HTTPTransport
    /// The road's cookie jar, whose identity is part of every partition.
    package let cookieJar: CookieJar?
    /// Whether the stage answers and stores (`send`'s road), or only invalidates.
    package let stores: Bool

    package init(
        cache: ResponseCache, state: RequestState, transport: any HTTPTransport, cookieJar: CookieJar?, stores: Bool
    ) {
        self.cache = cache
        self.state = state
        self.transport = transport
        self.cookieJar = cookieJar
        self.stores = stores
    }

    /// Answers `request` from the cache or sends it down `road`'s stages inside this one.
    nonisolated(nonsending) package func run(_ request: TransportRequest, road: Road) async throws -> Exchange {
        guard stores, let directives = CachePolicy.directives(ifTakingPart: request) else {
            let exchange = try await road.runInsideCache(request)
            if CachePolicy.invalidates(method: request.method, status: exchange.response.statusCode) {
                for target in CachePolicy.invalidatedTargets(of: request.head, response: exchange.response.head) {
                    cache.invalidate(target)
                }
                state.recordCache([.invalidated])
            }
            return exchange
        }
        let partition = CredentialPartition(request, transport: transport, cookieJar: cookieJar)
        let stored = cache.response(for: request.head, in: partition)
        if let stored {
            let now = cache.now()
            switch CachePolicy.use(stored, request: directives, at: now) {
            case .serve:
                return try served(stored, for: request, at: now, recording: [.hit])
            case .serveStale:
                return try served(stored, for: request, at: now, recording: [.servedStale(.maxStale)])
            case .serveWhileRevalidating:
                revalidateInBackground(stored, for: request, partition, directives, road: road)
                return try served(stored, for: request, at: now, recording: [.servedStale(.staleWhileRevalidate)])
            case .validate:
                break
            }
        }
        if directives.onlyIfCached {
            state.recordCache([.unavailable])
            return unavailable(request)
        }
        let outcome: Outcome
        do {
            if let stored, let conditional = CachePolicy.validation(of: request, for: stored) {
                outcome = try await validate(
                    stored, with: conditional, for: request, partition, directives, road: road)
            } else {
                outcome = try await fetch(request, partition, directives, road: road)
            }
        } catch let error as TransportError where error.kind.isTransient && !Task.isCancelled {
            guard let stored, CachePolicy.servesOnError(stored, request: directives, at: cache.now()) else {
                state.recordCache([.miss])
                throw error
            }
            return try served(
                stored, for: request, at: cache.now(), recording: [.servedStale(.staleIfErrorConnection)])
        } catch {
            // Nothing stored answered and the server's answer did not come: a miss that failed.
            state.recordCache([.miss])
            throw error
        }
        if let stored, CachePolicy.isServerError(outcome.exchange.response.statusCode),
            CachePolicy.servesOnError(stored, request: directives, at: cache.now())
        {
            // The error response was kept or refused like any other before the stored one answered in its place.
            let events = [CacheEvent.servedStale(.staleIfErrorStatus)] + [outcome.storing].compactMap { $0 }
            return try served(stored, for: request, at: cache.now(), recording: events)
        }
        state.recordCache([outcome.answer] + [outcome.storing].compactMap { $0 })
        return outcome.exchange
    }

    /// What sending a request past the cache came to: the exchange the caller gets unless a stored response
    /// answers in its place, how it answered (``CacheEvent/miss`` or ``CacheEvent/revalidated``), and what the
    /// cache did with the response (`nil`: nothing to say, a revalidated response stored again).
    private typealias Outcome = (exchange: Exchange, answer: CacheEvent, storing: CacheEvent?)

    /// Validates `stored` down the rest of `road` after the caller has been answered, once at a time per stored
    /// response; the outcome only updates the cache, and no event of it is recorded: the request it would belong to
    /// may have ended already.
    private func revalidateInBackground(
        _ stored: CachedResponse,
        for request: TransportRequest,
        _ partition: CredentialPartition,
        _ directives: CacheControl,
        road: Road
    ) {
        let key = CacheKey(request.head)
        guard cache.beginRevalidation(key) else { return }
        // Its phases are none of the request's events: the request may end before it does.
        state.beginDetachedWork()
        RequestState.$isDetached.withValue(true) {
            Task {
                defer { cache.endRevalidation(key) }
                if let conditional = CachePolicy.validation(of: request, for: stored) {
                    _ = try? await validate(stored, with: conditional, for: request, partition, directives, road: road)
                } else {
                    _ = try? await fetch(request, partition, directives, road: road)
                }
            }
        }
    }

    /// `stored` as the answer, without the network, recording `events` once it is sure to answer.
    private func served(
        _ stored: CachedResponse, for request: TransportRequest, at now: Date, recording events: [CacheEvent]
    ) throws -> Exchange {
        try Task.checkCancellation()
        state.recordCache(events)
        let response = TransportResponse(
            head: stored.head(at: now), body: ResponseBody(data: stored.body), url: stored.url, headArrival: .now)
        state.recordHead(at: response.headArrival, status: response.head.statusCode)
        var exchange = Exchange(request: request, response: response, data: stored.body)
        exchange.isFromCache = true
        return exchange
    }

    /// The 504 of `only-if-cached` when nothing stored may answer (RFC 9111 §5.2.1.7).
    private func unavailable(_ request: TransportRequest) -> Exchange {
        let head = HTTPResponseHead(statusCode: 504, reasonPhrase: "Gateway Timeout")
        var exchange = Exchange(request: request, response: TransportResponse(head: head, body: .empty), data: Data())
        exchange.isFromCache = true
        return exchange
    }

    /// Sends `conditional`; a 304 that validates `stored` becomes `stored` with the 304's fields, and refreshes it.
    nonisolated(nonsending) private func validate(
        _ stored: CachedResponse,
        with conditional: TransportRequest,
        for request: TransportRequest,
        _ partition: CredentialPartition,
        _ directives: CacheControl,
        road: Road
    ) async throws -> Outcome {
        let requestTime = cache.now()
        let exchange = try await road.runInsideCache(conditional)
        guard exchange.response.statusCode == 304 else {
            // A full response: the stored one could not answer after all.
            return (exchange, .miss, keep(exchange, for: request, partition, directives, requestTime: requestTime))
        }
        guard CachePolicy.validates(exchange.response.head, stored) else {
            // The 304 is about another response than the one stored: ask again, unconditionally.
            cache.remove(for: request.head, in: partition)
            return try await fetch(request, partition, directives, road: road)
        }
        let responseTime = cache.now()
        let (updated, delivered) = stored.updated(
            with: exchange.response.head, requestTime: requestTime, responseTime: responseTime)
        let storing: CacheEvent?
        if let refusal = CachePolicy.storageRefusal(
            updated.head, isComplete: true, request: directives, requestTime: requestTime, responseTime: responseTime)
        {
            cache.remove(for: request.head, in: partition)
            storing = .notStored(refusal)
        } else {
            // The 304's fields can make the entry larger than the whole bound; `store` then drops it.
            // Read from bytes, `stored` names its owner by digests: the request that matched it names it again.
            let owned = updated.owned(by: partition, for: request.head)
            storing = cache.store(owned, for: request.head) ? nil : .notStored(.tooLarge)
        }
        let response = TransportResponse(
            head: delivered, body: ResponseBody(data: stored.body), url: stored.url,
            headReceivedAt: exchange.response.headReceivedAt
        )
        return (Exchange(request: exchange.request, response: response, data: stored.body), .revalidated, storing)
    }

    /// Sends `request` as it is and stores the response if it may.
    nonisolated(nonsending) private func fetch(
        _ request: TransportRequest,
        _ partition: CredentialPartition,
        _ directives: CacheControl,
        road: Road
    ) async throws -> Outcome {
        let requestTime = cache.now()
        let exchange = try await road.runInsideCache(request)
        return (exchange, .miss, keep(exchange, for: request, partition, directives, requestTime: requestTime))
    }

    /// Stores a full response to `request` if it may be stored, and says whether it was; a success that may not
    /// replaces nothing stale: what was stored for the request goes.
    private func keep(
        _ exchange: Exchange, for request: TransportRequest, _ partition: CredentialPartition,
        _ directives: CacheControl, requestTime: Date
    ) -> CacheEvent {
        let head = exchange.response.head
        let responseTime = cache.now()
        let refusal = CachePolicy.storageRefusal(
            head, isComplete: !exchange.isTruncated, request: directives, requestTime: requestTime,
            responseTime: responseTime
        )
        if refusal == nil, let body = exchange.data,
            let entry = CachedResponse(
                head: head, body: body, url: exchange.response.url, request: request.head, partition: partition,
                requestTime: requestTime, responseTime: responseTime
            )
        {
            // `store` refuses only a response larger than the cache's whole bound.
            return cache.store(entry, for: request.head) ? .stored : .notStored(.tooLarge)
        }
        if head.isSuccess { cache.remove(for: request.head, in: partition) }
        // Without a refusal, what failed is the body (not read into memory: not whole); `Vary: *`, the other way
        // `CachedResponse` refuses, is a refusal already.
        return .notStored(refusal ?? .incomplete)
    }
}
