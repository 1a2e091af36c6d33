import CHTTPClient
import POSIXSupport
#if canImport(Glibc)
import Glibc
#endif

/// Signed requests to one S3-compatible store through libcurl, each on an idle handle of a small pool so its
/// connection is reused. An outage (no answer, a timeout, a 5xx or 429) is tried again with backoff, at most
/// `attempts` times, then reported as `unavailable`, and requests in the next `StorageHealth.quietSeconds` fail at
/// once; every outcome is recorded in `health`. Blocking: call it from worker and background threads, never an
/// event loop.
package final class S3Client: Sendable {
    package let configuration: S3Configuration
    package let health = StorageHealth()
    private let idle = Locked<[OpaquePointer]>([])
    private let sigv4: String

    package init(configuration: S3Configuration) {
        self.configuration = configuration
        sigv4 = "aws:amz:\(configuration.region):s3"
    }

    deinit {
        for handle in idle.withLock({ $0 }) { tsio_http_close(handle) }
    }

    /// An object's size, ETag and modification time.
    package struct ObjectHead: Sendable, Equatable {
        package let size: Int64
        package let etag: String
        package let lastModified: String
    }

    /// A response that is not an outage.
    struct Response {
        let status: Int
        let body: [UInt8]
        /// Bytes of the body: in `body`, or in the buffers the request gave.
        let received: Int
        let etag: String
        let lastModified: String
        let contentLength: Int64?
        let totalSize: Int64
    }

    package func head(bucket: String, key: String) throws(ObjectStorageError) -> ObjectHead {
        let r = try send("HEAD", bucket: bucket, key: key)
        try check(r, bucket: bucket, key: key, expected: [200])
        return ObjectHead(size: r.contentLength ?? 0, etag: r.etag, lastModified: r.lastModified)
    }

    /// `count` bytes at `offset` of the object, only while its ETag is `etag` (a replaced object is
    /// `preconditionFailed`). Fewer bytes only at the object's end.
    package func get(bucket: String, key: String, offset: Int64, count: Int, etag: String?) throws(ObjectStorageError) -> [UInt8] {
        var failure: ObjectStorageError?
        let bytes = [UInt8](unsafeUninitializedCapacity: max(1, count)) { buffer, initialized in
            do throws(ObjectStorageError) {
                initialized = try get(bucket: bucket, key: key, offset: offset,
                                      into: [UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[0 ..< count])],
                                      etag: etag)
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// The bytes at `offset` of the object into `buffers`, each filled before the next (together the range asked
    /// for), only while its ETag is `etag`: the count that came, fewer only at the object's end. Every buffer but
    /// the last is as long as the first. Received straight into them: a GET of 2 MB otherwise grew a buffer to 2 MB
    /// by doubling and was copied twice more (an array, then blocks), memory taken and given back that glibc handed
    /// to the kernel and faulted in again (a cold Mirador trace behind 20 ms: 21,900 page faults instead of
    /// 24,400–25,600 and 124 MB resident at its peak instead of 135 MB; its time within what runs move by).
    package func get(bucket: String, key: String, offset: Int64, into buffers: [UnsafeMutableRawBufferPointer],
                     etag: String?) throws(ObjectStorageError) -> Int {
        let count = buffers.reduce(0) { $0 + $1.count }
        guard count > 0 else { return 0 }
        var headers = "Range: bytes=\(offset)-\(offset + Int64(count) - 1)"
        if let etag, !etag.isEmpty { headers += "\nIf-Match: " + etag }
        let r = try send("GET", bucket: bucket, key: key, headers: headers, maxBody: count, into: buffers)
        if r.status == 416 { return 0 }
        try check(r, bucket: bucket, key: key, expected: [200, 206])
        guard r.status == 200, offset > 0 else { return r.received }
        // A 200 is the whole object (a store that ignores ranges): the part asked for moved to the front.
        let part = Array(buffers.joined().prefix(r.received).dropFirst(Int(min(offset, Int64(r.received)))))
        var at = 0
        for buffer in buffers where at < part.count {
            let n = min(buffer.count, part.count - at)
            part.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!.advanced(by: at), byteCount: n) }
            at += n
        }
        return part.count
    }

    /// The whole object (a small one: a tile, a marker, an index), or nil when there is none.
    package func getObject(bucket: String, key: String, maxBytes: Int) throws(ObjectStorageError) -> [UInt8]? {
        let r = try send("GET", bucket: bucket, key: key, maxBody: maxBytes)
        if r.status == 404 { return nil }
        try check(r, bucket: bucket, key: key, expected: [200])
        return r.body
    }

    /// Writes the object whole. With `ifAbsent`, only when there is no object under `key` yet (`If-None-Match: *`):
    /// returns false when one was there. A store that ignores the condition overwrites, which for tiles cut from
    /// the same version is the same bytes.
    @discardableResult
    package func put(bucket: String, key: String, bytes: [UInt8], contentType: String, ifAbsent: Bool = false) throws(ObjectStorageError) -> Bool {
        var headers = "Content-Type: " + contentType
        if ifAbsent { headers += "\nIf-None-Match: *" }
        let r = try send("PUT", bucket: bucket, key: key, headers: headers, body: bytes)
        if ifAbsent && (r.status == 412 || r.status == 409) { return false }
        try check(r, bucket: bucket, key: key, expected: [200, 201, 204])
        return true
    }

    package func delete(bucket: String, key: String) throws(ObjectStorageError) {
        let r = try send("DELETE", bucket: bucket, key: key)
        if r.status == 404 { return }
        try check(r, bucket: bucket, key: key, expected: [200, 204])
    }

    /// Every object whose key starts with `prefix`, through ListObjectsV2's pages.
    package func list(bucket: String, prefix: String) throws(ObjectStorageError) -> [ObjectListing.Entry] {
        var entries: [ObjectListing.Entry] = []
        var token: String?
        repeat {
            // In the order SigV4 canonicalises a query: by name.
            var query = ""
            if let token { query += "continuation-token=" + URIEscape.escape(token, keepSlash: false) + "&" }
            query += "list-type=2&prefix=" + URIEscape.escape(prefix, keepSlash: false)
            let r = try send("GET", bucket: bucket, key: "", query: query, maxBody: 16 << 20, naming: prefix)
            try check(r, bucket: bucket, key: prefix, expected: [200])
            let page: ObjectListing
            do throws(ObjectListing.ParseError) { page = try ObjectListing(xml: r.body) } catch {
                throw .badListing(bucket: bucket, reason: error.description)
            }
            entries += page.entries
            token = page.isTruncated ? page.nextToken : nil
            if page.isTruncated && token == nil { throw .badListing(bucket: bucket, reason: "a truncated page without a continuation token") }
        } while token != nil
        return entries
    }

    private func check(_ r: Response, bucket: String, key: String, expected: Set<Int>) throws(ObjectStorageError) {
        if expected.contains(r.status) { return }
        switch r.status {
        case 401, 403: throw .denied(bucket: bucket, key: key, status: r.status)
        case 404: throw .notFound(bucket: bucket, key: key)
        case 412: throw .preconditionFailed(bucket: bucket, key: key)
        default: throw .unexpected(bucket: bucket, key: key, status: r.status)
        }
    }

    /// One request, tried again on an outage. Answers other than outages come back whatever their status.
    /// `naming` is the key errors name when it is not `key` (a listing names its prefix).
    private func send(_ method: String, bucket: String, key: String, query: String = "", headers: String = "",
                      body: [UInt8] = [], maxBody: Int = 1 << 20, into buffers: [UnsafeMutableRawBufferPointer] = [],
                      naming: String? = nil) throws(ObjectStorageError) -> Response {
        let url = configuration.url(bucket: bucket, key: key, query: query)
        var allHeaders = headers
        if let credentials = configuration.credentials {
            // The body is not hashed into the signature (S3's UNSIGNED-PAYLOAD): libcurl 7.88 hashes a PUT's body but
            // does not send the header that says so, which stores then refuse.
            allHeaders += (allHeaders.isEmpty ? "" : "\n") + "x-amz-content-sha256: UNSIGNED-PAYLOAD"
            if let token = credentials.sessionToken { allHeaders += "\nx-amz-security-token: " + token }
        }
        if let reason = health.quietReason() {
            throw .unavailable(bucket: bucket, key: naming ?? key, reason: reason)
        }
        // A render thread waiting on the network gives its place in its pool to a spare meanwhile
        // (`BlockingWait`): with a store 20 ms away, two render threads would otherwise keep two GETs in flight.
        return try BlockingWait.during { () throws(ObjectStorageError) -> Response in
            try attempts(method, url: url, headers: allHeaders, body: body, maxBody: maxBody, into: buffers, bucket: bucket,
                         key: naming ?? key)
        }
    }

    /// `configuration.attempts` tries of one request, backing off between them; the response, or the outage.
    private func attempts(_ method: String, url: String, headers allHeaders: String, body: [UInt8], maxBody: Int,
                          into buffers: [UnsafeMutableRawBufferPointer], bucket: String, key: String) throws(ObjectStorageError) -> Response {
        var reason = ""
        for attempt in 0 ..< configuration.attempts {
            if attempt > 0 { usleep(UInt32(100_000 << (attempt - 1))) }    // 0.1 s, 0.2 s, …
            let outcome = perform(method, url: url, headers: allHeaders, body: body, maxBody: maxBody, into: buffers)
            if case let .success(response) = outcome { health.sent(method, received: response.received) } else { health.sent(method, received: 0) }
            switch outcome {
            case let .success(response) where response.status < 500 && response.status != 429:
                health.succeeded()
                return response
            case let .success(response):
                reason = "HTTP \(response.status)"
            case let .failure(message):
                reason = message
            }
        }
        health.failed(reason)
        throw .unavailable(bucket: bucket, key: key, reason: reason)
    }

    private enum Outcome {
        case success(Response)
        case failure(String)
    }

    /// One request through an idle libcurl handle; its body into `buffers` when there are any (each filled before the
    /// next, every one but the last as long as the first), else into `Response.body`.
    private func perform(_ method: String, url: String, headers: String, body: [UInt8], maxBody: Int,
                         into buffers: [UnsafeMutableRawBufferPointer]) -> Outcome {
        guard let handle = idle.withLock({ $0.popLast() }) ?? tsio_http_open() else { return .failure("libcurl could not start") }
        defer { idle.withLock { $0.append(handle) } }
        var response = tsio_http_response()
        defer { tsio_http_response_free(&response) }
        let credentials = configuration.credentials
        let dests: [UnsafeMutablePointer<UInt8>?] = buffers.map { $0.baseAddress?.assumingMemoryBound(to: UInt8.self) }
        let rc: Int32 = method.withCString { m in url.withCString { u in headers.withCString { h in
            sigv4.withCString { s in (credentials?.accessKey ?? "").withCString { a in (credentials?.secretKey ?? "").withCString { k in
                body.withUnsafeBufferPointer { b in dests.withUnsafeBufferPointer { d in
                    var request = tsio_http_request()
                    request.method = m
                    request.url = u
                    request.headers = headers.isEmpty ? nil : h
                    request.sigv4 = credentials == nil ? nil : s
                    request.access_key = a
                    request.secret_key = k
                    request.body = b.baseAddress
                    request.body_size = b.count
                    request.connect_timeout_ms = configuration.connectTimeoutMilliseconds
                    request.timeout_ms = configuration.requestTimeoutMilliseconds
                    request.max_body = UInt64(maxBody)
                    request.dests = d.baseAddress
                    request.dest_count = d.count
                    request.dest_size = buffers.first?.count ?? 0
                    return tsio_http_perform(handle, &request, &response)
                } }
            } } }
        } } }
        guard rc == 0 else {
            return .failure(cText(response.error))
        }
        let bytes = buffers.isEmpty && response.body_size > 0 ? Array(UnsafeBufferPointer(start: response.body, count: response.body_size)) : []
        return .success(Response(status: Int(response.status), body: bytes, received: response.body_size, etag: cText(response.etag),
                                 lastModified: cText(response.last_modified),
                                 contentLength: response.content_length == UInt64.max ? nil : Int64(response.content_length),
                                 totalSize: Int64(response.total_size)))
    }
}
