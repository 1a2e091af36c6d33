import XCTest
@testable import TileGeometry

/// The scroll-view maths against numbers worked by hand.
final class ScrollViewModelTests: XCTestCase {
    let photo = PyramidGeometry(width: 5640, height: 3172)

    func testFitViewOfAPhoto() throws {
        let m = try ScrollViewModel(geometry: photo, viewWidth: 1280, viewHeight: 800)
        XCTAssertEqual(m.fitZoom, 1280.0 / 5640, accuracy: 1e-12)
        XCTAssertEqual(m.minZoom, m.fitZoom)
        XCTAssertEqual(m.maxZoom, 1)
        let v = m.layout(zoom: .fit)
        XCTAssertEqual(v.zoom, 0.22695035460992907, accuracy: 1e-12)
        XCTAssertEqual(v.level, 11)                            // 13 + log2(0.22695) = 10.86
        XCTAssertEqual(v.levelScale, 0.25)
        XCTAssertEqual(v.visible, ViewRect(x: 0, y: 0, width: 5640, height: 3172))
        XCTAssertEqual(v.inset.left, 0)
        XCTAssertEqual(v.inset.top, (800 - 3172 * 1280.0 / 5640) / 2, accuracy: 1e-9) // 40.0567
        XCTAssertEqual(v.tiles.count, 24)                       // level 11 is 1410 × 793: 6 × 4 tiles
        XCTAssertEqual(v.tiles[0].screen.y, 40.05673758865248, accuracy: 1e-9)
        XCTAssertEqual(v.tiles[0].screen.width, 1024 * v.zoom, accuracy: 1e-9)
        let last = try XCTUnwrap(v.tiles.last)
        XCTAssertEqual(last.tile, TileCoordinate(level: 11, x: 5, y: 3))
        XCTAssertEqual(last.screen.width, (5640 - 5120) * v.zoom, accuracy: 1e-9)   // edge tile cut to the image
        XCTAssertEqual(last.screen.height, (3172 - 3072) * v.zoom, accuracy: 1e-9)
        XCTAssertEqual(v.prefetch.count, 84)                    // nothing around; level 12 is 12 × 7 tiles
        XCTAssertTrue(v.prefetch.allSatisfy { $0.level == 12 })
    }

    func testZoomsOutsideTheBoundsAreClamped() throws {
        let m = try ScrollViewModel(geometry: photo, viewWidth: 1280, viewHeight: 800)
        XCTAssertEqual(m.layout(zoom: .value(5)).zoom, 1)
        XCTAssertEqual(m.layout(zoom: .value(0.01)).zoom, m.fitZoom)
        XCTAssertEqual(m.layout(zoom: .max).zoom, 1)
        let wide = try ScrollViewModel(geometry: photo, viewWidth: 1280, viewHeight: 800, maxZoom: 4)
        XCTAssertEqual(wide.layout(zoom: .value(5)).zoom, 4)
        XCTAssertEqual(wide.layout(zoom: .value(3)).level, 13, "past native resolution the top level serves")
        XCTAssertNil(ZoomRequest("0"))
        XCTAssertNil(ZoomRequest("-1"))
        XCTAssertNil(ZoomRequest("nan"))
        XCTAssertEqual(ZoomRequest("0.5"), .value(0.5))
    }

    func testNativeZoomNearTheTopLeftWithItsPrefetchRing() throws {
        let m = try ScrollViewModel(geometry: photo, viewWidth: 1280, viewHeight: 800)
        let v = m.layout(zoom: .value(1), centerX: 100, centerY: 100)
        XCTAssertEqual(v.visible, ViewRect(x: 0, y: 0, width: 1280, height: 800))
        XCTAssertEqual(v.level, 13)
        XCTAssertEqual(v.tiles.count, 20)                       // columns 0…4, rows 0…3
        XCTAssertEqual(v.tiles[6].tile, TileCoordinate(level: 13, x: 1, y: 1))
        XCTAssertEqual(v.tiles[6].screen, ViewRect(x: 256, y: 256, width: 256, height: 256))
        XCTAssertEqual(v.prefetch.count, 10)                    // 6 × 5 ring minus 5 × 4 visible; no level above 13
        XCTAssertTrue(v.prefetch.contains(TileCoordinate(level: 13, x: 5, y: 4)))
        let center = m.layout(zoom: .value(0.5), centerX: 2820, centerY: 1586)
        XCTAssertEqual(center.visible, ViewRect(x: 1540, y: 786, width: 2560, height: 1600))
        XCTAssertEqual(center.level, 12)
    }

    func testImageSmallerThanTheView() throws {
        let m = try ScrollViewModel(geometry: PyramidGeometry(width: 300, height: 200), viewWidth: 1280, viewHeight: 800)
        XCTAssertEqual(m.fitZoom, 4)
        XCTAssertEqual(m.minZoom, 1, "never below native when the image already fits")
        let v = m.layout(zoom: .fit)
        XCTAssertEqual(v.zoom, 1)
        XCTAssertEqual(v.inset, EdgeInsets(top: 300, left: 490, bottom: 300, right: 490))
        XCTAssertEqual(v.visible, ViewRect(x: 0, y: 0, width: 300, height: 200))
        XCTAssertEqual(v.level, 9)
        XCTAssertEqual(v.tiles.map(\.screen), [ViewRect(x: 490, y: 300, width: 256, height: 200),
                                               ViewRect(x: 746, y: 300, width: 44, height: 200)])
    }

    func testStripAndSinglePixel() throws {
        let strip = try ScrollViewModel(geometry: PyramidGeometry(width: 9024, height: 3), viewWidth: 1280, viewHeight: 800)
        let s = strip.layout(zoom: .fit)
        XCTAssertEqual(s.zoom, 1280.0 / 9024, accuracy: 1e-12)
        XCTAssertEqual(s.level, 12)                             // 14 + log2(0.1418) = 11.18
        XCTAssertEqual(s.tiles.count, 9)                        // level 12 is 2256 × 1
        XCTAssertEqual(s.inset.top, (800 - 3 * s.zoom) / 2, accuracy: 1e-9)
        let dot = try ScrollViewModel(geometry: PyramidGeometry(width: 1, height: 1), viewWidth: 1280, viewHeight: 800)
        let d = dot.layout(zoom: .fit)
        XCTAssertEqual(d.zoom, 1)
        XCTAssertEqual(d.level, 0)
        XCTAssertEqual(d.tiles.map(\.screen), [ViewRect(x: 639.5, y: 399.5, width: 1, height: 1)])
        XCTAssertEqual(d.prefetch, [])
    }

    func testDoubleTapStepFromFit() throws {
        let m = try ScrollViewModel(geometry: photo, viewWidth: 1280, viewHeight: 800)
        let r = m.doubleTap(zoom: m.fitZoom, x: 1000, y: 500)
        XCTAssertEqual(r.mode, .step)
        XCTAssertEqual(r.fromZoom, m.fitZoom)
        XCTAssertEqual(r.zoom, m.fitZoom * 1.5, accuracy: 1e-12)
        XCTAssertEqual(r.rect.width, 3760, accuracy: 1e-9)
        XCTAssertEqual(r.rect.height, 2350, accuracy: 1e-9)
        XCTAssertEqual(r.rect.x, -880, accuracy: 1e-9)          // unclamped, as the seed computes it
        XCTAssertEqual(r.rect.y, -675, accuracy: 1e-9)
        XCTAssertEqual(r.layout.visible.x, 0, accuracy: 1e-9)   // the view itself stops at the edge
        XCTAssertEqual(r.layout.visible.y, 0, accuracy: 1e-9)
        XCTAssertEqual(r.layout.visible.width, 3760, accuracy: 1e-9)
    }

    func testDoubleTapAtCornersAndAtTheMaximum() throws {
        let m = try ScrollViewModel(geometry: photo, viewWidth: 1280, viewHeight: 800)
        let topLeft = m.doubleTap(zoom: 0.5, x: 0, y: 0)
        XCTAssertEqual(topLeft.zoom, 0.75)
        XCTAssertEqual(topLeft.rect.x, -1280 / 0.75 / 2, accuracy: 1e-9)
        XCTAssertEqual(topLeft.layout.visible.x, 0)
        let bottomRight = m.doubleTap(zoom: 0.5, x: 5640, y: 3172)
        XCTAssertEqual(bottomRight.layout.visible.x, 5640 - 1280 / 0.75, accuracy: 1e-9)
        XCTAssertEqual(bottomRight.layout.visible.y, 3172 - 800 / 0.75, accuracy: 1e-9)
        let capped = m.doubleTap(zoom: 0.9, x: 2000, y: 1000)
        XCTAssertEqual(capped.zoom, 1, "1.35 is clamped to maxZoom")
        XCTAssertEqual(capped.layout.visible, ViewRect(x: 1360, y: 600, width: 1280, height: 800))
        let back = m.doubleTap(zoom: 1, x: 2000, y: 1000)
        XCTAssertEqual(back.zoom, m.minZoom, "a step in from the largest zoom goes back to fit")
        XCTAssertEqual(back.rect.midX, 2820, accuracy: 1e-9, "centred on the image")
        XCTAssertEqual(m.doubleTap(zoom: 1, x: 2000, y: 1000, factor: 1 / 1.5).zoom, 1 / 1.5, accuracy: 1e-9, "a step out still steps")
    }

    func testDoubleTapToggle() throws {
        let m = try ScrollViewModel(geometry: photo, viewWidth: 1280, viewHeight: 800)
        let inward = m.doubleTap(zoom: m.fitZoom, x: 1000, y: 500, mode: .toggle)
        XCTAssertEqual(inward.zoom, 1)
        XCTAssertEqual(inward.layout.visible, ViewRect(x: 360, y: 100, width: 1280, height: 800))
        let outward = m.doubleTap(zoom: 0.5, x: 1000, y: 500, mode: .toggle)
        XCTAssertEqual(outward.zoom, m.fitZoom)
        XCTAssertEqual(outward.rect.midX, 2820, accuracy: 1e-9)
        XCTAssertEqual(outward.rect.midY, 1586, accuracy: 1e-9)
        let withinTolerance = m.doubleTap(zoom: m.fitZoom + 1e-7, x: 10, y: 10, mode: .toggle)
        XCTAssertEqual(withinTolerance.zoom, 1, "a zoom within 1e-6 of the minimum counts as the minimum")
    }

    func testZoomToRect() throws {
        let m = try ScrollViewModel(geometry: photo, viewWidth: 1280, viewHeight: 800)
        let r = m.zoom(to: ViewRect(x: 1000, y: 1000, width: 2560, height: 800))
        XCTAssertEqual(r.mode, .rect)
        XCTAssertNil(r.fromZoom)
        XCTAssertEqual(r.zoom, 0.5)                             // min(1280/2560, 800/800)
        XCTAssertEqual(r.layout.visible, ViewRect(x: 1000, y: 600, width: 2560, height: 1600))
        XCTAssertEqual(m.zoom(to: ViewRect(x: 1000, y: 1000, width: 640, height: 400)).zoom, 1, "2 is clamped to 1")
        XCTAssertEqual(m.zoom(to: ViewRect(x: 0, y: 0, width: 5640, height: 3172)).zoom, m.fitZoom)
    }

    func testInvalidViewSizesAreTypedErrors() {
        XCTAssertThrowsError(try ScrollViewModel(geometry: photo, viewWidth: 0, viewHeight: 800)) { error in
            XCTAssertEqual("\(error)", "width must be a positive number")
        }
        XCTAssertThrowsError(try ScrollViewModel(geometry: photo, viewWidth: 10, viewHeight: .nan))
    }
}

/// Fit as a state and tiles for device pixels.
final class ScrollViewModelFitAndPixelRatioTests: XCTestCase {
    let photo = PyramidGeometry(width: 5640, height: 3172)

    func testAFitZoomWrittenWithSixDecimalsIsStillFit() throws {
        let m = try ScrollViewModel(geometry: photo, viewWidth: 1366, viewHeight: 768)
        let written = (m.fitZoom * 1e6).rounded() / 1e6               // 0.242119 for 0.2421185…
        XCTAssertNotEqual(written, m.fitZoom)
        let v = m.layout(zoom: .value(written))
        XCTAssertTrue(v.isFit)
        XCTAssertEqual(v.zoom, m.minZoom, "snapped to the fit zoom exactly")
        XCTAssertTrue(m.layout(zoom: .fit).isFit)
        XCTAssertTrue(m.layout(zoom: .value(0.01)).isFit, "below fit clamps to fit")
        XCTAssertFalse(m.layout(zoom: .value(m.fitZoom * 1.001)).isFit, "a tenth of a percent in is zoomed in")
        XCTAssertFalse(m.layout(zoom: .max).isFit)
    }

    func testTilesAreChosenForDevicePixels() throws {
        let css = try ScrollViewModel(geometry: photo, viewWidth: 390, viewHeight: 844)
        let phone = try ScrollViewModel(geometry: photo, viewWidth: 390, viewHeight: 844, pixelRatio: 3)
        XCTAssertEqual(phone.fitZoom, css.fitZoom, "zooms stay in CSS pixels")
        XCTAssertEqual(phone.maxZoom, 1, "native size in CSS pixels, as before")
        let a = css.layout(zoom: .fit), b = phone.layout(zoom: .fit)
        XCTAssertEqual(a.zoom, b.zoom)
        XCTAssertEqual(a.level, 10)                             // 13 + log2(0.0691) = 9.1: level 10 (1/8)
        XCTAssertEqual(b.level, 11)                             // 13 + log2(3 × 0.0691) = 10.7: level 11 (1/4)
        XCTAssertGreaterThanOrEqual(b.levelScale, b.zoom * 3, "a level with at least one pixel per device pixel")
        XCTAssertLessThan(b.levelScale / 2, b.zoom * 3, "and the smallest such")
        XCTAssertEqual(b.visible, a.visible)
        XCTAssertEqual(phone.layout(zoom: .max).level, 13, "past native the top level serves")
    }

    func testPixelRatiosAreClamped() throws {
        XCTAssertEqual(try ScrollViewModel(geometry: photo, viewWidth: 100, viewHeight: 100, pixelRatio: 0.25).pixelRatio, 1)
        XCTAssertEqual(try ScrollViewModel(geometry: photo, viewWidth: 100, viewHeight: 100, pixelRatio: 9).pixelRatio, 4)
        XCTAssertEqual(try ScrollViewModel(geometry: photo, viewWidth: 100, viewHeight: 100, pixelRatio: 1.5).pixelRatio, 1.5)
        XCTAssertThrowsError(try ScrollViewModel(geometry: photo, viewWidth: 100, viewHeight: 100, pixelRatio: .nan))
    }
}
