import Foundation

func printError(_ message: String) {
    var line = message
    if !line.hasSuffix("\n") { line += "\n" }
    FileHandle.standardError.write(Data(line.utf8))
}

/// Pads or cuts to a display width (counting characters, which is close enough for a table).
func column(_ text: String, _ width: Int) -> String {
    if text.count > width { return String(text.prefix(width - 1)) + "…" }
    return text + String(repeating: " ", count: width - text.count)
}
