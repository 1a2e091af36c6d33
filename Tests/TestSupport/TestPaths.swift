import Foundation

/// Where the tests find the repository and the generated fixture images (scripts/make-fixtures.sh).
public enum TestPaths {
    public static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The `formats/` fixtures: `$TILESERVER_FIXTURES/formats`, or `.build-fixtures/formats` in the repository.
    public static var fixtures: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.environment["TILESERVER_FIXTURES"] ?? repoRoot.appendingPathComponent(".build-fixtures").path)
            .appendingPathComponent("formats")
    }
}
