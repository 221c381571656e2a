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
-- done(): the report line scripts/bench-service reads, shared with the other scripts here.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
