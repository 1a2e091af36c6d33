import XCTest
@testable import TileServer

final class ServerConfigurationTests: XCTestCase {
    func testFlagsWinOverEnvironmentWhichWinsOverDefaults() throws {
        let config = try ServerConfiguration.resolve(environment: ["TILESERVER_PORT": "9000", "TILESERVER_QUALITY": "70", "TILESERVER_ACCESS_LOG": "off"],
                                                     flags: ["port": "9001", "store-dir": "/tmp/c"])
        XCTAssertEqual(config.transport.port, 9001)
        XCTAssertEqual(config.quality, 70)
        XCTAssertFalse(config.api.accessLog)
        XCTAssertEqual(config.storeDirectory, "/tmp/c")
        XCTAssertEqual(config.tileSize, 256)
    }

    func testEverySettingHasOneFlagAndVariable() {
        let names = ServerConfiguration.settings.map(\.name)
        XCTAssertEqual(Set(names).count, names.count)
        XCTAssertEqual(ServerConfiguration.settings.first { $0.name == "store-mb" }?.variable, "TILESERVER_STORE_MB")
        XCTAssertEqual(ServerConfiguration.settings.first { $0.name == "access-log" }?.defaultText, "on")
    }

    func testTheTileStoreIsOnByDefaultInTheUsersCacheAndOffSaysNone() throws {
        XCTAssertTrue(ServerConfiguration().storeDirectory?.hasSuffix("/tileserver") ?? false, "\(String(describing: ServerConfiguration().storeDirectory))")
        XCTAssertNil(try ServerConfiguration.resolve(environment: ["TILESERVER_STORE_DIR": "off"], flags: [:]).storeDirectory)
    }

    func testErrorsSayWhatIsAccepted() {
        XCTAssertThrowsError(try ServerConfiguration.resolve(environment: [:], flags: ["tile-size": "8"])) {
            XCTAssertEqual("\($0)", "--tile-size must be an integer from 16 to 4096, not '8'")
        }
        XCTAssertThrowsError(try ServerConfiguration.resolve(environment: ["TILESERVER_MAX_ZOOM": "x"], flags: [:])) {
            XCTAssertEqual("\($0)", "TILESERVER_MAX_ZOOM must be a number from 0.01 to 64.0, not 'x'")
        }
        XCTAssertThrowsError(try ServerConfiguration.resolve(environment: [:], flags: ["nope": "1"])) {
            XCTAssertEqual("\($0)", "unknown option --nope; see tileserver serve --help")
        }
    }

    func testArgumentsSplitIntoPathsAndOptions() throws {
        let (paths, flags) = try ServeCommand.split(["a.jpg", "--port", "0", "dir/", "--access-log=off", "--", "--odd-name.jpg"])
        XCTAssertEqual(paths, ["a.jpg", "dir/", "--odd-name.jpg"])
        XCTAssertEqual(flags, ["port": "0", "access-log": "off"])
        XCTAssertThrowsError(try ServeCommand.split(["--port"]))
    }
}
