/// How long these tests let an intent's work run before calling it stuck: far beyond what any
/// of it takes. The whole suite's tests start together on a concurrency pool as wide as the
/// machine has cores; on a loaded two-core CI machine, the first seconds of a run can keep every
/// pool thread busy for several seconds, and a wait that began then would time out although
/// nothing is stuck. Tests of timing out give their own, short, timeouts.
let patience: Duration = .seconds(60)
