import Pyramid
import Logging
import ImageCodecs
import TileAPI

/// One setting of `tileserver serve`, declared once: its name (the flag `--NAME` and the variable
/// `TILESERVER_NAME`), what it accepts, its help, and where it goes in `ServerConfiguration`.
struct Setting: Sendable {
    let name: String
    let help: String
    /// The default, as the help shows it.
    let defaultText: String
    /// Parses `value` (from `source`, for messages) into the configuration, or throws what it accepts.
    let apply: @Sendable (inout ServerConfiguration, _ value: String, _ source: String) throws -> Void

    var flag: String { "--" + name }
    var variable: String { "TILESERVER_" + String(name.uppercased().map { $0 == "-" ? "_" : $0 }) }

    private static func shown(_ value: some Any) -> String { String(describing: value) }

    /// `shownDefault`: the default in words when it depends on the machine (`CPU count (2 here)`).
    static func integer(_ name: String, _ path: WritableKeyPath<ServerConfiguration, Int> & Sendable,
                        _ range: ClosedRange<Int>, _ help: String, shownDefault: String? = nil) -> Setting {
        let setting = ranged(name, path, range, help, kind: "an integer")
        guard let shownDefault else { return setting }
        return Setting(name: name, help: help, defaultText: shownDefault, apply: setting.apply)
    }

    static func number(_ name: String, _ path: WritableKeyPath<ServerConfiguration, Double> & Sendable,
                       _ range: ClosedRange<Double>, _ help: String) -> Setting {
        ranged(name, path, range, help, kind: "a number")
    }

    private static func ranged<Value: LosslessStringConvertible & Comparable & Sendable>(
        _ name: String, _ path: WritableKeyPath<ServerConfiguration, Value> & Sendable, _ range: ClosedRange<Value>,
        _ help: String, kind: String
    ) -> Setting {
        Setting(name: name, help: help, defaultText: shown(ServerConfiguration()[keyPath: path])) { config, value, source in
            guard let parsed = Value(value), range.contains(parsed) else {
                throw ConfigurationError(message: "\(source) must be \(kind) from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
            }
            config[keyPath: path] = parsed
        }
    }

    static func text(_ name: String, _ path: WritableKeyPath<ServerConfiguration, String> & Sendable, _ help: String) -> Setting {
        Setting(name: name, help: help, defaultText: ServerConfiguration()[keyPath: path]) { config, value, _ in
            config[keyPath: path] = value
        }
    }

    /// Empty means none.
    static func optionalText(_ name: String, _ path: WritableKeyPath<ServerConfiguration, String?> & Sendable, _ help: String) -> Setting {
        Setting(name: name, help: help, defaultText: "none") { config, value, _ in
            config[keyPath: path] = value.isEmpty ? nil : value
        }
    }

    static func `switch`(_ name: String, _ path: WritableKeyPath<ServerConfiguration, Bool> & Sendable, _ help: String) -> Setting {
        Setting(name: name, help: help, defaultText: ServerConfiguration()[keyPath: path] ? "on" : "off") { config, value, source in
            switch value.lowercased() {
            case "1", "true", "on", "yes": config[keyPath: path] = true
            case "0", "false", "off", "no": config[keyPath: path] = false
            default: throw ConfigurationError(message: "\(source) must be on or off, not '\(value)'")
            }
        }
    }

    static func logLevel(_ name: String, _ path: WritableKeyPath<ServerConfiguration, Logger.Level> & Sendable, _ help: String) -> Setting {
        Setting(name: name, help: help, defaultText: ServerConfiguration()[keyPath: path].rawValue) { config, value, source in
            guard let level = Logger.Level(rawValue: value.lowercased()) else {
                throw ConfigurationError(message: "\(source) must be one of trace, debug, info, notice, warning, error, critical")
            }
            config[keyPath: path] = level
        }
    }

    /// One of two words for a switch whose two states are not on and off (`--colour convert|keep`).
    static func format(_ name: String, _ path: WritableKeyPath<ServerConfiguration, ImageFormat> & Sendable, _ help: String) -> Setting {
        Setting(name: name, help: help, defaultText: ServerConfiguration()[keyPath: path].rawValue) { config, value, source in
            guard let format = ImageFormat(fileExtension: value) else {
                throw ConfigurationError(message: "\(source) must be jpeg, webp, avif or png, not '\(value)'")
            }
            config[keyPath: path] = format
        }
    }

    static func choice(_ name: String, _ path: WritableKeyPath<ServerConfiguration, Bool> & Sendable,
                       _ words: (off: String, on: String), _ help: String) -> Setting {
        Setting(name: name, help: help, defaultText: ServerConfiguration()[keyPath: path] ? words.on : words.off) { config, value, source in
            switch value.lowercased() {
            case words.off: config[keyPath: path] = false
            case words.on: config[keyPath: path] = true
            default: throw ConfigurationError(message: "\(source) must be \(words.off) or \(words.on), not '\(value)'")
            }
        }
    }

    /// A comma-separated list of addresses and ranges (`127.0.0.1,10.0.0.0/8,::1`); empty: none.
    static func addresses(_ name: String, _ path: WritableKeyPath<ServerConfiguration, [AddressRange]> & Sendable,
                          _ help: String, shownDefault: String = "none") -> Setting {
        Setting(name: name, help: help, defaultText: shownDefault) { config, value, source in
            switch AddressRange.list(value) {
            case let .success(ranges): config[keyPath: path] = ranges
            case let .failure(bad): throw ConfigurationError(message: "\(source): '\(bad.text)' is not an address or a range like 10.0.0.0/8")
            }
        }
    }

    /// A request header's name (letters, digits, `-`), kept lower-case; empty: none.
    static func header(_ name: String, _ path: WritableKeyPath<ServerConfiguration, String?> & Sendable, _ help: String) -> Setting {
        Setting(name: name, help: help, defaultText: "none") { config, value, source in
            guard value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                throw ConfigurationError(message: "\(source) must be a header name (letters, digits and -), not '\(value)'")
            }
            config[keyPath: path] = value.isEmpty ? nil : value.lowercased()
        }
    }

    /// One origin (`scheme://host[:port]`); empty: none.
    static func origin(_ name: String, _ path: WritableKeyPath<ServerConfiguration, String?> & Sendable, _ help: String) -> Setting {
        Setting(name: name, help: help, defaultText: "none") { config, value, source in
            guard value.isEmpty || AccessSettings.isOrigin(value) else {
                throw ConfigurationError(message: "\(source) must be scheme://host[:port] (http or https, no path), not '\(value)'")
            }
            config[keyPath: path] = value.isEmpty ? nil : value
        }
    }

    /// A comma-separated list of origins; empty: none.
    static func origins(_ name: String, _ path: WritableKeyPath<ServerConfiguration, [String]> & Sendable, _ help: String,
                        shownDefault: String) -> Setting {
        Setting(name: name, help: help, defaultText: shownDefault) { config, value, source in
            let listed = value.split(separator: ",").map { String($0.filter { $0 != " " }) }.filter { !$0.isEmpty }
            if let bad = listed.first(where: { !AccessSettings.isOrigin($0) }) {
                throw ConfigurationError(message: "\(source): '\(bad)' is not an origin like https://viewer.example.org")
            }
            config[keyPath: path] = listed
        }
    }
}
