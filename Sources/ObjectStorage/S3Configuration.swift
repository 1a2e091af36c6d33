import POSIXSupport

/// Where object storage is and who we are to it, taken the way AWS tools take them: `AWS_ENDPOINT_URL_S3` or
/// `AWS_ENDPOINT_URL` (else AWS's regional endpoint), `AWS_REGION` or `AWS_DEFAULT_REGION`, keys from
/// `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN` or from `~/.aws/credentials` under
/// `AWS_PROFILE` (region and `endpoint_url` from `~/.aws/config` too).
package struct S3Configuration: Sendable {
    /// How a bucket is named in a request's URL.
    package enum Addressing: String, Sendable, CaseIterable {
        /// Path style for a custom endpoint (what MinIO, SeaweedFS, Ceph RGW and Garage answer by default) and for
        /// bucket names with dots; virtual-host style for AWS itself.
        case auto
        /// `https://endpoint/bucket/key`.
        case path
        /// `https://bucket.endpoint/key`.
        case virtual
    }

    package struct Credentials: Sendable {
        let accessKey: String
        let secretKey: String
        let sessionToken: String?
    }

    /// `scheme://host[:port]`, no trailing slash.
    package let endpoint: String
    package let region: String
    package let addressing: Addressing
    /// Nil: requests go unsigned (a public bucket).
    let credentials: Credentials?
    /// Whether the endpoint is AWS's own (no endpoint was given).
    let isAWS: Bool
    /// The longest one try of a request may take (connecting included); a store that stalls costs at most
    /// `attempts` of these and the backoff between them.
    package var timeoutSeconds = 10.0
    var connectTimeoutMilliseconds: Int { Int(min(3, timeoutSeconds) * 1000) }
    var requestTimeoutMilliseconds: Int { Int(timeoutSeconds * 1000) }
    /// Tries of one request that met an outage (no answer, a timeout, 5xx), with backoff between them.
    var attempts = 3

    package init(endpoint: String?, region: String, addressing: Addressing, accessKey: String?, secretKey: String?,
                sessionToken: String? = nil) {
        let trimmed = endpoint.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.isAWS = trimmed == nil
        self.endpoint = trimmed ?? "https://s3.\(region).amazonaws.com"
        self.region = region
        self.addressing = addressing
        if let accessKey, let secretKey, !accessKey.isEmpty {
            credentials = Credentials(accessKey: accessKey, secretKey: secretKey, sessionToken: sessionToken)
        } else {
            credentials = nil
        }
    }

    /// The configuration in `environment` (and the `~/.aws` files it points to).
    package static func fromEnvironment(_ environment: [String: String], addressing: Addressing) -> S3Configuration {
        let home = environment["HOME"] ?? "/nonexistent"
        let profile = environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        let text = { (path: String) in (try? SmallFile.read(path)).map { String(decoding: $0, as: UTF8.self) } }
        let credentialsFile = text(environment["AWS_SHARED_CREDENTIALS_FILE"] ?? home + "/.aws/credentials")
            .map { AWSProfileFile(text: $0, isConfig: false) }
        let configFile = text(environment["AWS_CONFIG_FILE"] ?? home + "/.aws/config")
            .map { AWSProfileFile(text: $0, isConfig: true) }
        let env = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let endpoint = env("AWS_ENDPOINT_URL_S3") ?? env("AWS_ENDPOINT_URL")
            ?? configFile?.value("endpoint_url", profile: profile)
        let region = env("AWS_REGION") ?? env("AWS_DEFAULT_REGION") ?? configFile?.value("region", profile: profile) ?? "us-east-1"
        if let key = env("AWS_ACCESS_KEY_ID"), let secret = env("AWS_SECRET_ACCESS_KEY") {
            return S3Configuration(endpoint: endpoint, region: region, addressing: addressing, accessKey: key,
                                   secretKey: secret, sessionToken: env("AWS_SESSION_TOKEN"))
        }
        let file = credentialsFile
        return S3Configuration(endpoint: endpoint, region: region, addressing: addressing,
                               accessKey: file?.value("aws_access_key_id", profile: profile),
                               secretKey: file?.value("aws_secret_access_key", profile: profile),
                               sessionToken: file?.value("aws_session_token", profile: profile))
    }

    /// The URL of `key` in `bucket` ("" for the bucket itself), with `query` already escaped.
    func url(bucket: String, key: String, query: String = "") -> String {
        let escapedKey = URIEscape.escape(key, keepSlash: true)
        let tail = query.isEmpty ? "" : "?" + query
        let virtual = switch addressing {
        case .path: false
        case .virtual: true
        case .auto: isAWS && !bucket.contains(".")
        }
        if virtual {
            for scheme in ["https://", "http://"] where endpoint.hasPrefix(scheme) {
                return scheme + bucket + "." + endpoint.dropFirst(scheme.count) + "/" + escapedKey + tail
            }
        }
        return endpoint + "/" + bucket + (key.isEmpty ? "" : "/" + escapedKey) + tail
    }

    /// What `--help` and the docs say about where the settings come from.
    package static let summary = "AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN or ~/.aws/credentials with AWS_PROFILE"
}
