import StoreBenchmarks

// appcore-bench-dispatch: runs the dispatch case and prints `peak <bytes>`, this process's peak
// resident memory. appcore-bench starts it for `memory-dispatch`; it loads the store and the
// Swift runtime only, as an app that only dispatches would.

for _ in 0..<3 { blackHole(dispatchSample(2_000_000)) }
if let peak = ownPeakResidentBytes() {
    print("peak \(peak)")
} else {
    print("peak unknown")
}
