import HTTPTransport

/// A JSON document built by hand so that keys keep the order we write them in and numbers print exactly.
package enum JSONValue: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null

    package init(stringLiteral value: String) { self = .string(value) }
    package init(integerLiteral value: Int) { self = .int(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }

    /// Compact serialisation, UTF-8.
    package var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case let .object(members):
            out.append("{")
            for (n, (key, value)) in members.enumerated() {
                if n > 0 { out.append(",") }
                JSONValue.quote(key, into: &out)
                out.append(":")
                value.write(to: &out)
            }
            out.append("}")
        case let .array(items):
            out.append("[")
            for (n, item) in items.enumerated() {
                if n > 0 { out.append(",") }
                item.write(to: &out)
            }
            out.append("]")
        case let .string(s): JSONValue.quote(s, into: &out)
        case let .int(i): out.append(String(i))
        case let .double(d): out.append(JSONValue.format(d))
        case let .bool(b): out.append(b ? "true" : "false")
        case .null: out.append("null")
        }
    }

    /// Shortest round-tripping form; integral values without a fraction; non-finite values as null.
    package static func format(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) }
        return "\(d)"
    }

    private static func quote(_ s: String, into out: inout String) {
        out.append("\"")
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(s)   // nothing to escape: one copy, not one append per character
            out.append("\"")
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out.append("\"")
    }
}
