import POSIXSupport

/// The API's settings. Defaults here; the executable declares the flags that change them.
package struct APIOptions: Sendable {
    /// Largest zoom, in screen pixels per image pixel (1: native); also IIIF's upscaling limit.
    package var maxZoom = 1.0
    /// `Cache-Control` max-age of tiles whose URL names no version, in seconds.
    package var tileMaxAge = 86_400
    /// One access-log line per request on standard output.
    package var accessLog = true
    /// Threads of the render pool.
    package var workers = System.coreCount
    /// Threads of the I/O pool (listings, documents, headers).
    package var ioWorkers = 2
    /// Publish where photos were taken (EXIF GPS) in `/api/images/{id}`, manifests (`navPlace`) and the viewer.
    /// Off by default: a photographer rarely means to tell the world where they live.
    package var publishLocation = false
    /// The address clients reach the server at (`scheme://host[:port]`): the start of every absolute URL in IIIF
    /// documents. Nil: as each request addresses the server (its `Host`, or a proxy's `X-Forwarded-Host`), which
    /// behind a shared cache lets one request's `Host` reach every later client.
    package var publicURL: String?
    /// Serve whole-slide images' labels and macros, which often carry a patient's name or number, when there is
    /// no access file (with one, its folders' `slide_labels` decide). Off by default.
    package var slideLabels = false
    /// Prefetch jobs waiting beyond this many are dropped.
    package var prefetchQueue = 256

    package init() {}
}
