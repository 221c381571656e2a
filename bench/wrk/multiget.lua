-- GET /docs?ids=a,b,... with BATCH distinct ids (default 50) uniform in [0, N); N from DOCS.
local n = tonumber(os.getenv("DOCS") or "100000")
local batch = math.min(tonumber(os.getenv("BATCH") or "50"), n)
function init(args)
  math.randomseed(os.time() * 1000 + math.floor(os.clock() * 1000000))
end
function request()
  local seen, ids = {}, {}
  while #ids < batch do
    local id = math.random(0, n - 1)
    if not seen[id] then
      seen[id] = true
      ids[#ids + 1] = id
    end
  end
  return wrk.format("GET", "/docs?ids=" .. table.concat(ids, ","))
end
-- p99.9 (wrk --latency stops at p99), then one key=value line for scripts/bench-service (times in us).
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("p99.9 latency %.2f ms\n", latency:percentile(99.9) / 1000))
  io.write(string.format("result requests=%d duration_us=%d p50_us=%d p99_us=%d p999_us=%d errors=%d non2xx=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency:percentile(99.9),
    e.connect + e.read + e.write + e.timeout, e.status))
end
