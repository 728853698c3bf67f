#if AsyncHTTPClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

/// A response body with `layers` content codings decoded off it, one zlib stream each (``Inflater``): the codings
/// SwiftNIO's decompressor leaves, which decodes at most one, and only when the field's first coding is `gzip` or
/// `deflate` (`gzip, gzip` came out still gzipped, `identity, gzip` and `x-gzip` not decoded at all).
///
/// Bounded like SwiftNIO's decompressor: each layer's decoded bytes may grow to at most
/// ``NetCore/ContentCoding/decompressionRatio`` times its encoded ones, and so may the body against the bytes this
/// reads; past that, or on data that does not decode, the body ends with a ``NetCore/TransportError`` of kind
/// ``NetCore/TransportError/Kind/badResponse`` that is not transient. Each chunk handed over is at most
/// ``pieceSize`` bytes, so a bomb is never inflated whole into memory.
struct InflatingChunks: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error

    /// The most decoded bytes handed over at once.
    static let pieceSize = 64 * 1024
    /// zlib's Z_BUF_ERROR, for a stream that neither consumes nor produces.
    static let noProgressCode: Int32 = -5

    let base: ResponseBody
    let layers: Int
    /// The host errors name.
    let host: String?

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), layers: layers, host: host)
    }

    /// One layer's decoder and the encoded bytes it has been given.
    final class Layer {
        let inflater: Inflater
        var input = Data()
        var offset = 0
        /// Whether the last decode filled its output: zlib may hold more without new input.
        var outputWasFull = false
        var encoded: Int64 = 0
        var decoded: Int64 = 0

        init() throws(Inflater.Failure) {
            inflater = try Inflater()
        }

        var hasInput: Bool { offset < input.count }
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: ResponseBody.AsyncIterator
        let layerCount: Int
        let host: String?
        /// Made on the first read (a failure to start zlib is the body's error).
        var stack: [Layer]?

        init(base: ResponseBody.AsyncIterator, layers: Int, host: String?) {
            self.base = base
            self.layerCount = layers
            self.host = host
        }

        mutating func next() async throws -> Data? {
            do {
                if stack == nil { stack = try (0..<layerCount).map { _ in try Layer() } }
                guard let stack, !stack.isEmpty else { return try await base.next() }
                guard let piece = try await pull(stack.count - 1) else { return nil }
                // Against what this read: the whole stack's growth, as SwiftNIO bounds its own layer.
                let decoded = stack[stack.count - 1].decoded
                let encoded = stack[0].encoded
                if decoded > Int64(ContentCoding.decompressionRatio) * encoded {
                    throw ContentCoding.bomb(host: host, encoded: encoded, decoded: decoded)
                }
                return piece
            } catch let failure as Inflater.Failure {
                throw TransportError.undecodableBody(
                    host: host,
                    detail: "the compressed body could not be decoded (\(layerCount) coding layer"
                        + "\(layerCount == 1 ? "" : "s") decoded by NetKit): \(failure)",
                    underlying: failure)
            }
        }

        /// The next decoded piece of layer `index` (0: the outermost NetKit decodes), or `nil` at its end.
        private mutating func pull(_ index: Int) async throws -> Data? {
            guard let layer = stack?[index] else { return nil }
            while true {
                if layer.inflater.isFinished {
                    // Nothing may follow the end: neither in what it was given, nor from below.
                    if layer.hasInput { throw Inflater.Failure.trailingData }
                    if let more = try await encoded(for: index), !more.isEmpty { throw Inflater.Failure.trailingData }
                    return nil
                }
                if layer.hasInput || layer.outputWasFull {
                    let before = layer.offset
                    let piece = try layer.inflater.decode(
                        layer.input, from: &layer.offset, capacity: InflatingChunks.pieceSize)
                    // zlib either consumes, produces or ends; anything else would loop here for ever.
                    if piece.isEmpty, layer.offset == before, layer.hasInput, !layer.inflater.isFinished {
                        throw Inflater.Failure.data(InflatingChunks.noProgressCode, "no progress")
                    }
                    layer.outputWasFull = piece.count == InflatingChunks.pieceSize
                    if !layer.hasInput {
                        layer.input = Data()
                        layer.offset = 0
                    }
                    if !piece.isEmpty {
                        layer.decoded += Int64(piece.count)
                        if layer.decoded > Int64(ContentCoding.decompressionRatio) * layer.encoded {
                            throw ContentCoding.bomb(host: host, encoded: layer.encoded, decoded: layer.decoded)
                        }
                        return piece
                    }
                    // A header, or input zlib keeps for later: ask for more (or finish, above).
                    if layer.hasInput || layer.inflater.isFinished { continue }
                }
                guard let more = try await encoded(for: index) else { throw Inflater.Failure.truncated }
                layer.input = more
                layer.offset = 0
                layer.encoded += Int64(more.count)
            }
        }

        /// The encoded bytes layer `index` decodes next: the body's next chunk for the outermost, the decoded
        /// piece of the layer above for the others.
        private mutating func encoded(for index: Int) async throws -> Data? {
            index == 0 ? try await base.next() : try await pull(index - 1)
        }
    }
}
#endif
