import Catalog
import Launcher
import XCTest

/// The sample's departments: one entry per distinct category, weighted by its entry count, ids
/// from the name, in order of first appearance.
final class SampleCollectionsTests: XCTestCase {
    func testOneDepartmentPerCategory() {
        let entries = [
            CatalogEntry(id: "1", title: "Torch", categories: ["Kitchen", "Garden & Patio"]),
            CatalogEntry(id: "2", title: "Hose", categories: ["Garden & Patio", "Garden & Patio"]),
            CatalogEntry(id: "3", title: "Pan", categories: ["Kitchen"]),
            CatalogEntry(id: "4", title: "Rake", categories: ["garden patio"]),
            CatalogEntry(id: "5", title: "Book", categories: ["Bücher"]),
            CatalogEntry(id: "6", title: "None"),
        ]
        XCTAssertEqual(SampleCollections.departments(of: entries), [
            CatalogEntry(id: "dept-kitchen", title: "Kitchen", weight: 2),
            CatalogEntry(id: "dept-garden-patio", title: "Garden & Patio", weight: 2),
            CatalogEntry(id: "dept-garden-patio-2", title: "garden patio", weight: 1),
            CatalogEntry(id: "dept-b-cher", title: "Bücher", weight: 1),
        ])
        XCTAssertEqual(SampleCollections.scope.collections, ["departments", "products"])
        XCTAssertEqual(SampleCollections.scope.prompt, "Departments and products")
    }
}
