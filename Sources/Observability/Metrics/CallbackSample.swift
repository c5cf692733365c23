/// One series of a callback family (``MetricsRegistry/gauge(name:help:labelNames:series:)``):
/// its label values, in the family's label names' order, and its value at this scrape.
public struct CallbackSample: Sendable {
    public var labelValues: [String]
    public var value: Double

    public init(labelValues: [String], value: Double) {
        self.labelValues = labelValues
        self.value = value
    }
}
