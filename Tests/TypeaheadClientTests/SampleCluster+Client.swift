import Foundation
import TestSupport
import TypeaheadClient

extension SampleCluster {
    /// A client of the cluster's coordinator.
    var client: TypeaheadClient {
        let endpoint = summary.coordinator
        return TypeaheadClient(baseURL: URL(string: "http://\(endpoint.host):\(endpoint.port)")!)
    }
}
