-- PUT /docs/{id} of a ~1 KB JSON document to the admin port; ids uniform in [0, N).
local n = tonumber(os.getenv("DOCS") or "100000")
local body = '{"title":"Line Cook","company":"Initech","location":"Austin, TX","description":"'
  .. string.rep("we are looking for a motivated experienced team player ", 17) .. '"}'
function init(args)
  math.randomseed(os.time() * 1000 + math.floor(os.clock() * 1000000))
end
function request()
  return wrk.format("PUT", "/docs/" .. math.random(0, n - 1), {["Content-Type"] = "application/json"}, body)
end
-- p99.9 (wrk --latency stops at p99), then one key=value line for scripts/bench-service (times in us).
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("p99.9 latency %.2f ms\n", latency:percentile(99.9) / 1000))
  io.write(string.format("result requests=%d duration_us=%d p50_us=%d p99_us=%d p999_us=%d errors=%d non2xx=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency:percentile(99.9),
    e.connect + e.read + e.write + e.timeout, e.status))
end
