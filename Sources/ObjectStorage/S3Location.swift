/// An `s3://bucket/prefix` path: the bucket and the key prefix below it (no leading or trailing `/`; "" for the
/// whole bucket). An object's path is `s3://bucket/key`.
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    public let bucket: String
    public let prefix: String

    public static let scheme = "s3://"

    /// True for any path naming object storage rather than a local file.
    public static func isRemote(_ path: String) -> Bool { path.hasPrefix(scheme) }

    /// Nil unless `path` is `s3://` followed by a valid bucket name (3–63 of `a-z 0-9 . -`, as S3 names them).
    public init?(_ path: String) {
        guard path.hasPrefix(Self.scheme) else { return nil }
        let rest = path.dropFirst(Self.scheme.count)
        let bucket = String(rest.prefix { $0 != "/" })
        guard (3...63).contains(bucket.utf8.count),
              bucket.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 })
        else { return nil }
        var prefix = Substring(rest.dropFirst(bucket.count))
        while prefix.hasPrefix("/") { prefix = prefix.dropFirst() }
        while prefix.hasSuffix("/") { prefix = prefix.dropLast() }
        self.bucket = bucket
        self.prefix = String(prefix)
    }

    public init(bucket: String, key: String) {
        self.bucket = bucket
        self.prefix = key
    }

    public var description: String { prefix.isEmpty ? Self.scheme + bucket : Self.scheme + bucket + "/" + prefix }

    /// The path of the object `key` (a full key, not one relative to the prefix).
    public func path(ofKey key: String) -> String { Self.scheme + bucket + "/" + key }

    /// The key below `prefix` that a listing of this location asks for: "" or "prefix/".
    public var listPrefix: String { prefix.isEmpty ? "" : prefix + "/" }
}
