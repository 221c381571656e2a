-- Shared by the wrk scripts here (loaded with dofile from their own directory): p99.9 (wrk
-- --latency stops at p99), then one key=value line for scripts/bench-service (times in us).
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("p99.9 latency %.2f ms\n", latency:percentile(99.9) / 1000))
  io.write(string.format("result requests=%d duration_us=%d p50_us=%d p99_us=%d p999_us=%d errors=%d non2xx=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency:percentile(99.9),
    e.connect + e.read + e.write + e.timeout, e.status))
end
