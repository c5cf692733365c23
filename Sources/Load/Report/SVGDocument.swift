import Foundation

/// A minimal SVG writer: elements appended as text, every attribute value and text node escaped,
/// so the result is always well-formed XML (the tests parse it with `XMLParser`).
struct SVGDocument {
    let width: Double
    let height: Double
    private var body: [String] = []

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: String, title: String? = nil) {
        let tooltip = title.map { "<title>\(Self.escape($0))</title>" } ?? ""
        body.append("<rect x=\"\(Self.n(x))\" y=\"\(Self.n(y))\" width=\"\(Self.n(max(0, width)))\" height=\"\(Self.n(max(0, height)))\" "
                    + "fill=\"\(Self.escape(fill))\">\(tooltip)</rect>")
    }

    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1, dash: String? = nil) {
        body.append("<line x1=\"\(Self.n(x1))\" y1=\"\(Self.n(y1))\" x2=\"\(Self.n(x2))\" y2=\"\(Self.n(y2))\" stroke=\"\(Self.escape(stroke))\" "
                    + "stroke-width=\"\(Self.n(width))\"" + (dash.map { " stroke-dasharray=\"\(Self.escape($0))\"" } ?? "") + "/>")
    }

    mutating func polyline(_ points: [(Double, Double)], stroke: String, width: Double = 1.5, dash: String? = nil) {
        guard !points.isEmpty else { return }
        let coordinates = points.map { "\(Self.n($0.0)),\(Self.n($0.1))" }.joined(separator: " ")
        body.append("<polyline points=\"\(coordinates)\" fill=\"none\" stroke=\"\(Self.escape(stroke))\" stroke-width=\"\(Self.n(width))\""
                    + (dash.map { " stroke-dasharray=\"\(Self.escape($0))\"" } ?? "") + "/>")
    }

    mutating func circle(x: Double, y: Double, radius: Double, fill: String) {
        body.append("<circle cx=\"\(Self.n(x))\" cy=\"\(Self.n(y))\" r=\"\(Self.n(radius))\" fill=\"\(Self.escape(fill))\"/>")
    }

    mutating func text(_ text: String, x: Double, y: Double, size: Double = 12, anchor: String = "start", weight: String = "normal",
                       fill: String = "#222") {
        body.append("<text x=\"\(Self.n(x))\" y=\"\(Self.n(y))\" font-size=\"\(Self.n(size))\" text-anchor=\"\(anchor)\" "
                    + "font-weight=\"\(weight)\" fill=\"\(Self.escape(fill))\">\(Self.escape(text))</text>")
    }

    /// The document, with an XML declaration and the SVG namespace.
    var xml: String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Self.n(width))\" height=\"\(Self.n(height))\" "
            + "viewBox=\"0 0 \(Self.n(width)) \(Self.n(height))\" font-family=\"Helvetica, Arial, sans-serif\">\n"
            + "<rect x=\"0\" y=\"0\" width=\"\(Self.n(width))\" height=\"\(Self.n(height))\" fill=\"#ffffff\"/>\n"
            + body.joined(separator: "\n") + "\n</svg>\n"
    }

    /// XML escaping for attribute values and text (both quote kinds, so either delimiter is safe);
    /// characters XML 1.0 forbids (most C0 controls) are dropped.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value >= 0x20 && scalar.value != 0xFFFE && scalar.value != 0xFFFF { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// A coordinate with at most one decimal (the chart needs no more; the file stays small).
    static func n(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
    }
}
