#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decoding at a request's `responseKeyPath`: the value `Response` is decoded from lies at a path of object members
/// inside the JSON body (`{"data": {"users": [...]}}` with `["data", "users"]`).
///
/// The body is parsed once, by the request's decoder: a wrapper type walks the decoder's keyed containers down the
/// path and decodes `Response` from the container it ends in, rather than decoding the whole body into a
/// ``JSONValue`` and encoding the part back to JSON. The path reaches the wrapper's `init(from:)` through a task-local
/// (a `JSONDecoder` is shared, so its `userInfo` cannot carry a value of one call).
///
/// Keys are the body's member names. A decoder with a `keyDecodingStrategy` renames the members its containers
/// show (`user_list` becomes `userList`); the path's names are renamed the same way, by the same decoder, so either
/// spelling finds the member.
enum ResponseKeyPath {
    /// The path of the decoding running on this task, and the names to look each key up by.
    @TaskLocal private static var walk: Walk?

    private struct Walk: Sendable {
        /// The path as the request gives it.
        let path: [String]
        /// For each key of `path`: the names its member may have in the decoder's containers, renamed one first.
        let names: [[String]]
    }

    /// Decodes `type` from the value at `path` of the JSON `data`.
    /// - Throws: ``ResponseDecodingError/missingKey(key:path:)`` when a member is absent,
    ///   ``ResponseDecodingError/notAnObject(key:path:)`` when the path runs into something other than an object,
    ///   and the decoder's errors.
    package static func decode<Value: Decodable>(
        _ type: Value.Type, from data: Data, path: [String], decoder: JSONDecoder
    ) throws -> Value {
        let walk = Walk(path: path, names: names(of: path, decoder: decoder))
        return try $walk.withValue(walk) { try decoder.decode(Located<Value>.self, from: data).value }
    }

    /// The names `path`'s keys have in `decoder`'s containers: asked of the decoder itself, on a small document
    /// with those keys, so that every key decoding strategy (a custom one too) renames them as it will the body's.
    private static func names(of path: [String], decoder: JSONDecoder) -> [[String]] {
        if case .useDefaultKeys = decoder.keyDecodingStrategy { return path.map { [$0] } }
        let document = path.reversed().reduce(JSONValue.number(0)) { inner, key in .object([key: inner]) }
        guard let data = try? JSONEncoder().encode(document),
            let renamed = try? decoder.decode(RenamedKeys.self, from: data).names,
            renamed.count == path.count
        else { return path.map { [$0] } }
        return zip(renamed, path).map { renamed, key in renamed == key ? [key] : [renamed, key] }
    }

    /// The value at the path of the decoding in progress.
    private struct Located<Value: Decodable>: Decodable {
        let value: Value

        init(from decoder: any Decoder) throws {
            guard let walk = ResponseKeyPath.walk, !walk.path.isEmpty else {
                value = try Value(from: decoder)
                return
            }
            var container: KeyedDecodingContainer<AnyKey>
            do {
                container = try decoder.container(keyedBy: AnyKey.self)
            } catch is DecodingError {
                throw ResponseDecodingError.notAnObject(key: nil, path: walk.path)
            }
            let last = walk.path.count - 1
            for index in 0..<last {
                let key = try Self.key(at: index, of: walk, in: container)
                do {
                    container = try container.nestedContainer(keyedBy: AnyKey.self, forKey: key)
                } catch is DecodingError {
                    throw ResponseDecodingError.notAnObject(key: walk.path[index], path: walk.path)
                }
            }
            value = try container.decode(Value.self, forKey: try Self.key(at: last, of: walk, in: container))
        }

        /// The key of `walk`'s key number `index` as `container` holds it.
        private static func key(at index: Int, of walk: Walk, in container: KeyedDecodingContainer<AnyKey>) throws
            -> AnyKey
        {
            for name in walk.names[index] where container.contains(AnyKey(stringValue: name)) {
                return AnyKey(stringValue: name)
            }
            throw ResponseDecodingError.missingKey(key: walk.path[index], path: walk.path)
        }
    }

    /// The first member's name of each nested object, down to the first value that is not an object.
    private struct RenamedKeys: Decodable {
        let names: [String]

        init(from decoder: any Decoder) throws {
            var names: [String] = []
            var container = try decoder.container(keyedBy: AnyKey.self)
            while let key = container.allKeys.first {
                names.append(key.stringValue)
                guard let nested = try? container.nestedContainer(keyedBy: AnyKey.self, forKey: key) else { break }
                container = nested
            }
            self.names = names
        }
    }

    /// A member name as a coding key.
    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }

        init(stringValue: String) {
            self.stringValue = stringValue
        }

        init?(intValue: Int) {
            return nil
        }
    }
}
