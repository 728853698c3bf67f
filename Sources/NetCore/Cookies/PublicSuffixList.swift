/// The Public Suffix List's rules and its algorithm (https://publicsuffix.org/list/): which part of a host is a
/// public suffix (`co.uk`, `github.io`), under which anyone may register a name, so that no cookie may be set for
/// it.
///
/// Rules are kept as bytes, three sorted runs (plain, `*.` wildcard, `!` exception) in one buffer each, looked up by
/// binary search, so that a list of ten thousand rules costs one pass to load and no allocation per rule. Hosts are
/// compared as their bytes: the rules' labels are in their ASCII (A-label, `xn--…`) form, as hosts arrive on the
/// wire.
package struct PublicSuffixList: Sendable {
    /// Rules of one kind, packed: every rule's bytes one after the other, in ascending byte order.
    private struct Rules: Sendable {
        var bytes: [UInt8] = []
        /// Where each rule ends in ``bytes`` (it starts where the one before ends).
        var ends: [Int32] = []

        var count: Int { ends.count }

        func rule(_ index: Int) -> ArraySlice<UInt8> {
            bytes[(index == 0 ? 0 : Int(ends[index - 1]))..<Int(ends[index])]
        }

        mutating func append(_ rule: UnsafeBufferPointer<UInt8>) {
            bytes.append(contentsOf: rule)
            ends.append(Int32(bytes.count))
        }

        /// Sorts the rules unless they came sorted (the generated list does), dropping duplicates.
        mutating func sort() {
            let isSorted = (1..<max(count, 1)).allSatisfy { Self.compare(rule($0 - 1), rule($0)) < 0 }
            guard !isSorted else { return }
            let rules = (0..<count).map { Array(rule($0)) }.sorted { Self.compare($0[...], $1[...]) < 0 }
            self = Rules()
            for (index, rule) in rules.enumerated() where index == 0 || rule != rules[index - 1] {
                rule.withUnsafeBufferPointer { append($0) }
            }
        }

        func contains(_ key: ArraySlice<UInt8>) -> Bool {
            var low = 0
            var high = count
            while low < high {
                let middle = (low + high) / 2
                let order = Self.compare(rule(middle), key)
                if order == 0 { return true }
                if order < 0 { low = middle + 1 } else { high = middle }
            }
            return false
        }

        /// Byte order: negative when `lhs` comes first, zero when equal.
        static func compare(_ lhs: ArraySlice<UInt8>, _ rhs: ArraySlice<UInt8>) -> Int {
            var left = lhs.startIndex
            var right = rhs.startIndex
            while left < lhs.endIndex, right < rhs.endIndex {
                if lhs[left] != rhs[right] { return Int(lhs[left]) - Int(rhs[right]) }
                left += 1
                right += 1
            }
            return (lhs.endIndex - left) - (rhs.endIndex - right)
        }
    }

    private var plain = Rules()
    /// The rules `*.x`, kept as `x`.
    private var wildcards = Rules()
    /// The rules `!x`, kept as `x`.
    private var exceptions = Rules()

    /// The list of the text `rules`, in the list's own format: a rule is the first run of non-space bytes of a
    /// line; lines starting with `//` and blank lines are skipped. Labels must be in their ASCII form already (the
    /// generator converts the list's U-labels), and lowercase.
    package init(rules: String) {
        var rules = rules
        self = rules.withUTF8 { PublicSuffixList(utf8: $0) }
    }

    /// The list of `bytes`, in the format of ``init(rules:)``: one pass over the bytes, and a sort only for rules
    /// that do not come in byte order (the generated list does).
    package init(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        var index = 0
        // Every turn moves past one line: at most `bytes.count` turns.
        while index < bytes.count {
            var lineEnd = index
            while lineEnd < bytes.count, bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            var start = index
            while start < lineEnd, Self.isSpace(bytes[start]) { start += 1 }
            var end = start
            while end < lineEnd, !Self.isSpace(bytes[end]) { end += 1 }
            index = lineEnd + 1
            guard start < end,
                !(end - start >= 2 && bytes[start] == UInt8(ascii: "/") && bytes[start + 1] == UInt8(ascii: "/"))
            else { continue }
            if bytes[start] == UInt8(ascii: "!") {
                exceptions.append(UnsafeBufferPointer(rebasing: bytes[(start + 1)..<end]))
            } else if end - start >= 2, bytes[start] == UInt8(ascii: "*"), bytes[start + 1] == UInt8(ascii: ".") {
                wildcards.append(UnsafeBufferPointer(rebasing: bytes[(start + 2)..<end]))
            } else {
                plain.append(UnsafeBufferPointer(rebasing: bytes[start..<end]))
            }
        }
        plain.sort()
        wildcards.sort()
        exceptions.sort()
    }

    /// The list NetKit ships (``PublicSuffixes/bundled``), loaded on first use.
    package static let bundled: PublicSuffixList = bundledRules.withUTF8Buffer { PublicSuffixList(utf8: $0) }

    /// No rules: only the list's implicit `*` rule applies (every top-level name is a public suffix).
    package static let empty = PublicSuffixList(rules: "")

    /// How many rules the list holds.
    package var count: Int { plain.count + wildcards.count + exceptions.count }

    /// Whether `domain` (a canonical host or domain; one trailing dot is ignored) is a public suffix: a listed
    /// one, one a wildcard covers, or an unlisted top-level name. A name with an empty label is one too.
    package func isPublicSuffix(_ domain: String) -> Bool {
        let bytes = Self.withoutTrailingDot(domain)
        return publicSuffixStart(bytes).map { $0 == bytes.startIndex } ?? true
    }

    /// The registrable domain of `host` (a canonical host; one trailing dot is ignored): its public suffix and
    /// the label before it; `nil` when `host` is a public suffix itself or has an empty label.
    package func registrableDomain(of host: String) -> String? {
        let bytes = Self.withoutTrailingDot(host)
        guard let start = publicSuffixStart(bytes), start != bytes.startIndex else { return nil }
        // `start - 1` is the dot before the public suffix; the label before that dot makes the domain registrable.
        let labelStart = bytes[..<(start - 1)].lastIndex(of: UInt8(ascii: ".")).map { $0 + 1 } ?? bytes.startIndex
        return String(decoding: bytes[labelStart...], as: UTF8.self)
    }

    /// Where `host`'s public suffix starts; `nil` when a label is empty (then it is taken as a public suffix).
    private func publicSuffixStart(_ host: ArraySlice<UInt8>) -> Int? {
        // The start of the suffix of 1, 2, 3… labels, right to left.
        var starts: [Int] = []
        var labelEnd = host.endIndex
        var index = host.endIndex
        while index > host.startIndex {
            index -= 1
            guard host[index] == UInt8(ascii: ".") else { continue }
            guard index + 1 < labelEnd else { return nil }
            starts.append(index + 1)
            labelEnd = index
        }
        guard labelEnd > host.startIndex else { return nil }
        starts.append(host.startIndex)
        // The implicit rule "*": the last label. The longest matching rule prevails, an exception over all.
        var labels = 1
        for count in 1...starts.count {
            let suffix = host[starts[count - 1]...]
            if count >= 2, exceptions.contains(suffix) { return starts[count - 2] }
            if plain.contains(suffix) || (count >= 2 && wildcards.contains(host[starts[count - 2]...])) {
                labels = count
            }
        }
        return starts[labels - 1]
    }

    private static func withoutTrailingDot(_ text: String) -> ArraySlice<UInt8> {
        let bytes = ArraySlice(text.utf8)
        return bytes.last == UInt8(ascii: ".") ? bytes.dropLast() : bytes
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }
}
