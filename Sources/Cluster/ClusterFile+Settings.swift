import Foundation

extension ClusterFile.Settings {
    static let keys: Set<String> = ["suggestDeadlineMs", "searchDeadlineMs", "deadlineMarginMs", "hedgeDelayMs", "hedgeFloorMs",
                                    "hedgeBudgetPercent", "healthIntervalMs", "healthTimeoutMs", "failuresToMarkDown",
                                    "connectTimeoutMs", "reconnectInitialMs", "reconnectMaximumMs", "tokenFile", "readTokenFile",
                                    "nodeCertificateAuthorityFile", "nodeCertificateFile", "nodeKeyFile"]

    init(_ object: [String: Any], _ fail: (String, String) -> ClusterFileError) throws(ClusterFileError) {
        self.init()
        for key in object.keys.sorted() where !Self.keys.contains(key) {
            throw fail("settings.\(key)", "is not a known setting (known: \(Self.keys.sorted().joined(separator: ", ")))")
        }
        func milliseconds(_ key: String, _ range: ClosedRange<Int>) throws(ClusterFileError) -> Duration? {
            guard let value = object[key] else { return nil }
            guard let number = value as? NSNumber, String(cString: number.objCType) != "c",
                  number.doubleValue.rounded() == number.doubleValue, range.contains(number.intValue) else {
                throw fail("settings.\(key)", "must be a whole number of milliseconds from \(range.lowerBound) to \(range.upperBound)")
            }
            return .milliseconds(number.intValue)
        }
        func path(_ key: String) throws(ClusterFileError) -> String? {
            guard let value = object[key] else { return nil }
            guard let text = value as? String, !text.isEmpty else { throw fail("settings.\(key)", "must be a file path") }
            return text
        }
        if let value = try milliseconds("suggestDeadlineMs", 1...60_000) { suggestDeadline = value }
        if let value = try milliseconds("searchDeadlineMs", 1...600_000) { searchDeadline = value }
        if let value = try milliseconds("deadlineMarginMs", 0...10_000) { deadlineMargin = value }
        if let value = object["hedgeDelayMs"] {
            if let text = value as? String {
                guard text == "p95" else { throw fail("settings.hedgeDelayMs", "must be \"p95\" or a whole number of milliseconds") }
                hedgeDelay = nil
            } else {
                hedgeDelay = try milliseconds("hedgeDelayMs", 0...60_000)
            }
        }
        if let value = try milliseconds("hedgeFloorMs", 0...60_000) { hedgeFloor = value }
        if let value = object["hedgeBudgetPercent"] {
            guard let number = value as? NSNumber, String(cString: number.objCType) != "c", (0...100).contains(number.doubleValue) else {
                throw fail("settings.hedgeBudgetPercent", "must be a number from 0 to 100")
            }
            hedgeBudget = number.doubleValue / 100
        }
        if let value = try milliseconds("healthIntervalMs", 10...600_000) { healthInterval = value }
        if let value = try milliseconds("healthTimeoutMs", 1...60_000) { healthTimeout = value }
        if let value = object["failuresToMarkDown"] {
            guard let number = value as? NSNumber, String(cString: number.objCType) != "c", (1...100).contains(number.intValue),
                  number.doubleValue.rounded() == number.doubleValue else {
                throw fail("settings.failuresToMarkDown", "must be a whole number from 1 to 100")
            }
            failuresToMarkDown = number.intValue
        }
        if let value = try milliseconds("connectTimeoutMs", 1...60_000) { connectTimeout = value }
        let initial = try milliseconds("reconnectInitialMs", 1...600_000) ?? reconnectBackoff.lowerBound
        let maximum = try milliseconds("reconnectMaximumMs", 1...600_000) ?? max(initial, reconnectBackoff.upperBound)
        guard initial <= maximum else { throw fail("settings.reconnectMaximumMs", "must not be below reconnectInitialMs") }
        reconnectBackoff = initial ... maximum
        tokenFile = try path("tokenFile")
        readTokenFile = try path("readTokenFile")
        nodeCertificateAuthorityFile = try path("nodeCertificateAuthorityFile")
        nodeCertificateFile = try path("nodeCertificateFile")
        nodeKeyFile = try path("nodeKeyFile")
        guard (nodeCertificateFile == nil) == (nodeKeyFile == nil) else {
            throw fail("settings.nodeCertificateFile", "and settings.nodeKeyFile go together (a certificate needs its key)")
        }
        guard nodeCertificateFile == nil || nodeCertificateAuthorityFile != nil else {
            throw fail("settings.nodeCertificateFile", "needs settings.nodeCertificateAuthorityFile (the CA that signed the nodes)")
        }
    }
}
