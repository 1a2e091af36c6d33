/// An `s3://bucket/prefix` path: the bucket and the key prefix below it (no leading or trailing `/`; "" for the
/// whole bucket). An object's path is `s3://bucket/key`.
package struct S3Location: Sendable, Hashable, CustomStringConvertible {
    package let bucket: String
    package let prefix: String

    package static let scheme = "s3://"

    /// True for any path naming object storage rather than a local file.
    package static func isRemote(_ path: String) -> Bool { path.hasPrefix(scheme) }

    /// Nil unless `path` is `s3://` followed by a valid bucket name (3–63 of `a-z 0-9 . -`, as S3 names them).
    package init?(_ path: String) {
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

    package init(bucket: String, key: String) {
        self.bucket = bucket
        self.prefix = key
    }

    package var description: String { prefix.isEmpty ? Self.scheme + bucket : Self.scheme + bucket + "/" + prefix }

    /// The path of the object `key` (a full key, not one relative to the prefix).
    package func path(ofKey key: String) -> String { Self.scheme + bucket + "/" + key }

    /// The key below `prefix` that a listing of this location asks for: "" or "prefix/".
    package var listPrefix: String { prefix.isEmpty ? "" : prefix + "/" }
}
