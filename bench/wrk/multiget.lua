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
-- done(): the report line scripts/bench-service reads, shared with the other scripts here.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
