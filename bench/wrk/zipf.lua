-- GET /docs/{id} with Zipf-distributed ranks (s = 1.0) over N ids; rank r maps to a scattered id.
local n = tonumber(os.getenv("DOCS") or "100000")
local cdf = {}
function init(args)
  math.randomseed(os.time() * 1000 + math.floor(os.clock() * 1000000))
  local total = 0
  for r = 1, n do total = total + 1 / r end
  local acc = 0
  for r = 1, n do
    acc = acc + (1 / r) / total
    cdf[r] = acc
  end
end
function request()
  local u = math.random()
  local lo, hi = 1, n
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if cdf[mid] < u then lo = mid + 1 else hi = mid end
  end
  -- scatter ranks over the id space so hot documents are not neighbours
  local id = (lo * 7919) % n
  return wrk.format("GET", "/docs/" .. id)
end
-- p99.9 (wrk --latency stops at p99), then one key=value line for scripts/bench-service (times in us).
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("p99.9 latency %.2f ms\n", latency:percentile(99.9) / 1000))
  io.write(string.format("result requests=%d duration_us=%d p50_us=%d p99_us=%d p999_us=%d errors=%d non2xx=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency:percentile(99.9),
    e.connect + e.read + e.write + e.timeout, e.status))
end
