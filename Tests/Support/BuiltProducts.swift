import Foundation

/// The products of the build that made the running test bundle.
public enum BuiltProducts {
    /// The `typeahead` executable. The test bundle lives beside the products of the same build
    /// (`.build/<triple>/debug/`), so this walks up from the bundle until a `typeahead` is there;
    /// tests skip when it is not executable (`swift build --build-tests` makes it).
    public static var typeahead: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("typeahead").path),
              directory.pathComponents.count > 1 {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("typeahead")
    }
}
