/// A header field: as parsed (names lower-cased), or as a handler sets it on a response.
struct HTTPHeader: Equatable, Sendable {
    var name: String
    var value: String
}
