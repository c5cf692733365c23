import Catalog
import HTTP2

/// The closed loop (`--max`): each lane's streams type sessions back to back, sending the next
/// keystroke the moment the previous answer is in. Everything here runs on the lane's loop.
extension Lane {
    /// Starts `streams` simulated people on this connection, each typing sessions back to back and
    /// sending every keystroke as soon as the previous answer is in.
    func startClosedLoop(streams: Int) {
        for number in 0..<streams {
            var mixer = SplitMix64(seed: context.seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(number) &* 0xD1B5_4A32_D192_ED03))
            users.append(VirtualUser(id: "\(context.runID)-c\(index).\(number)", random: SplitMix64(seed: mixer.next())))
        }
        // Everyone starts at the run's start, like the open loop's first arrival (before it, sends
        // would fall outside the measured time).
        let lane = bound
        let wait = context.clock.start - min(context.clock.start, monotonicNanoseconds())
        _ = loop.scheduleTimer(after: .nanoseconds(Int64(wait))) {
            let me = lane.value
            for user in me.users { me.advance(user) }
            me.tick()
        }
    }

    /// Every 100 ms: lets people parked on a lost connection stop when the run is over.
    private func tick() {
        let lane = bound
        _ = loop.scheduleTimer(after: .milliseconds(100)) {
            let me = lane.value
            guard monotonicNanoseconds() >= me.context.clock.hardEnd || me.stopping else {
                me.tick()
                return
            }
            let waiting = me.parked
            me.parked.removeAll()
            for user in waiting { me.finishUser(user) }
        }
    }

    func advance(_ user: VirtualUser) {
        let now = monotonicNanoseconds()
        guard now < context.clock.hardEnd, !stopping else {
            finishUser(user)
            return
        }
        guard connection?.isAcceptingRequests == true else {
            parked.append(user)
            return
        }
        if user.plan == nil {
            user.begin(context.typing.plan(typing: context.source.pick(&user.random), random: &user.random),
                       measured: context.clock.isMeasured(now))
            context.counters.sessionsStarted.add(1, ordering: .relaxed)
            if user.measured { recorder.value.statistics.sessions.started += 1 }
        }
        guard let call = user.nextCall(at: now) else {
            // An empty plan (nothing to type): take the next text, on the next turn of the loop.
            user.plan = nil
            let lane = bound, person = HTTP2LoopBound(user, eventLoop: loop)
            loop.execute { lane.value.advance(person.value) }
            return
        }
        send(call) { [self] _ in
            if user.isDone {
                if user.measured {
                    recorder.value.statistics.sessions.completed += 1
                    if user.plan?.submits == true { recorder.value.statistics.sessions.submitted += 1 }
                }
                user.plan = nil
            }
            advance(user)
        }
    }

    func finishUser(_ user: VirtualUser) {
        guard !user.finished else { return }
        user.finished = true
        if user.plan != nil && user.measured { recorder.value.statistics.sessions.cut += 1 }
        user.plan = nil
        context.counters.finishedStreams.add(1, ordering: .relaxed)
    }
}

/// A closed-loop stream: one simulated person typing sessions back to back without pauses
/// (loop-confined, owned by its lane).
final class VirtualUser {
    let id: String
    var random: SplitMix64
    var plan: SessionPlan?
    var measured = false
    var finished = false
    private var step = 0
    private var sessions = 0
    private var session = ""

    init(id: String, random: SplitMix64) {
        self.id = id
        self.random = random
    }

    func begin(_ plan: SessionPlan, measured: Bool) {
        self.plan = plan
        self.measured = measured
        step = 0
        sessions += 1
        session = "\(id).\(sessions)"
    }

    /// The plan's next request (keystrokes, then the search if it submits); sent now, so its
    /// intended time is now.
    func nextCall(at now: UInt64) -> PlannedCall? {
        guard let plan, step < plan.requestCount else { return nil }
        step += 1
        if step <= plan.keystrokes.count {
            return PlannedCall(kind: .suggest, session: session, revision: UInt64(step), text: plan.keystrokes[step - 1].text, intended: now)
        }
        return PlannedCall(kind: .search, session: session, revision: UInt64(step), text: plan.text, intended: now)
    }

    /// Whether the last request of the plan has been sent.
    var isDone: Bool { plan.map { step >= $0.requestCount } ?? true }
}
