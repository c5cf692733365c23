import Index
import Observability

/// Suggest answers computed (answer-cache misses), by the plan that proved them, summed over the
/// node's collections: `typeahead_suggest_plan_total{plan}`. Every plan is exact, so this is how
/// an operator sees keystrokes leave the trie for the exact walks (after updates that the lists
/// cannot see past, say) before the latency does.
final class SuggestPlanCounters: Sendable {
    private let series: [Counter.Series]

    init(registry: MetricsRegistry) {
        let family = registry.counter(name: "typeahead_suggest_plan_total",
                                      help: "Suggest answers computed (not from the answer cache), by the plan that proved them.",
                                      labelNames: ["plan"])
        series = SuggestPlanKind.allCases.map { family.labels(["plan": $0.rawValue]) }
    }

    func count(_ plan: SuggestPlanKind) {
        series[SuggestPlanKind.allCases.firstIndex(of: plan)!].increment()
    }
}
