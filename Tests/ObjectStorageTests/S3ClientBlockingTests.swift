import Foundation
@testable import ObjectStorage
import POSIXSupport
import XCTest

/// A request to object storage is a wait on the network: the calling thread's pool is told (`BlockingWait`), so a
/// render thread waiting on a GET lets a spare take the next tile instead of holding one of the CPU's places.
final class S3ClientBlockingTests: XCTestCase {
    /// Counts what a pool would be told, and whether the thread was marked as waiting when the request arrived.
    private final class Observer: BlockingObserver, @unchecked Sendable {
        let state = Locked((waiting: 0, told: 0, waitingWhenAnswered: false))
        func willBlock() { state.withLock { $0.waiting += 1; $0.told += 1 } }
        func didUnblock() { state.withLock { $0.waiting -= 1 } }
    }

    func testARequestIsAWaitThePoolIsToldOf() throws {
        let observer = Observer()
        // The store: answers one HEAD, noting first whether the client's thread was marked as waiting.
        let port = oneAnswerStore(Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: \"v1\"\r\nConnection: close\r\n\r\n".utf8)) {
            observer.state.withLock { $0.waitingWhenAnswered = $0.waiting == 1 }
        }

        let client = S3Client(configuration: S3Configuration(endpoint: "http://127.0.0.1:\(port)", region: "us-east-1",
                                                             addressing: .path, accessKey: "KEY", secretKey: "secret"))
        let outcome = Locked<String?>(nil)
        let finished = DispatchSemaphore(value: 0)
        // A thread of its own, as a pool's: the observer is the thread's for its life.
        Thread {
            BlockingWait.install(observer)
            do throws(ObjectStorageError) {
                let head = try client.head(bucket: "masters", key: "photo.tif")
                outcome.withLock { $0 = "size \(head.size) etag \(head.etag)" }
            } catch {
                outcome.withLock { $0 = "failed: \(error)" }
            }
            finished.signal()
        }.start()
        XCTAssertEqual(finished.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(outcome.withLock { $0 }, "size 5 etag \"v1\"")
        let seen = observer.state.withLock { $0 }
        XCTAssertTrue(seen.waitingWhenAnswered, "the pool was not told its thread waited on the store")
        XCTAssertEqual(seen.told, 1)
        XCTAssertEqual(seen.waiting, 0, "the pool was not told the wait had ended")
    }
}
