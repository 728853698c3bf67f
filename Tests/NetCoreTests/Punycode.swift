/// RFC 3492 punycode, the encoding half: turns the list's and the test vectors' U-labels (`公司`) into the A-labels
/// (`xn--55qx5d`) hosts arrive as, the way the generator script does with Python's codec.
enum Punycode {
    /// `name` with each non-ASCII label as `xn--` and its punycode, ASCII letters lowercased.
    static func asciiName(_ name: String) -> String {
        name.split(separator: ".", omittingEmptySubsequences: false).map { label in
            label.utf8.allSatisfy { $0 < 0x80 } ? label.lowercased() : "xn--" + encode(label.lowercased())
        }.joined(separator: ".")
    }

    static func encode(_ label: String) -> String {
        let base = 36
        let tMin = 1
        let tMax = 26
        let input = label.unicodeScalars.map { Int($0.value) }
        var output = String(String.UnicodeScalarView(label.unicodeScalars.filter(\.isASCII)))
        let basicCount = output.unicodeScalars.count
        var handled = basicCount
        if basicCount > 0 { output += "-" }
        var n = 128
        var delta = 0
        var bias = 72
        // Each round handles at least one more code point: at most `input.count` rounds.
        while handled < input.count {
            let next = input.filter { $0 >= n }.min() ?? n
            delta += (next - n) * (handled + 1)
            n = next
            for code in input {
                if code < n { delta += 1 }
                guard code == n else { continue }
                var q = delta
                // A digit per round; q shrinks by a factor of at least 10 each time.
                for k in stride(from: base, to: base * 32, by: base) {
                    let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                }
                output.append(digit(q))
                bias = adapt(delta, points: handled + 1, first: handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return output
    }

    private static func adapt(_ delta: Int, points: Int, first: Bool) -> Int {
        var delta = first ? delta / 700 : delta / 2
        delta += delta / points
        var k = 0
        while delta > (35 * 26) / 2 {
            delta /= 35
            k += 36
        }
        return k + (36 * delta) / (delta + 38)
    }

    private static func digit(_ value: Int) -> Character {
        Character(Unicode.Scalar(UInt8(value < 26 ? 97 + value : 22 + value)))
    }
}
