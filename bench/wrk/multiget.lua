-- GET /docs?ids=a,b,... with BATCH distinct ids (default 50) in [0, N); N from DOCS. IDS=zipf draws
-- them Zipf-distributed (s = 1.0, zipf-ids.lua; repeats within a request are drawn again), else
-- uniform. GROUP=NAME asks for field group NAME's projections (&group=NAME) instead of documents.
local n = tonumber(os.getenv("DOCS") or "100000")
local batch = math.min(tonumber(os.getenv("BATCH") or "50"), n)
local zipf = (os.getenv("IDS") or "uniform") == "zipf"
local group = os.getenv("GROUP") or ""
local suffix = group ~= "" and ("&group=" .. group) or ""
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
if zipf then dofile(dir .. "zipf-ids.lua") end
function init(args)
  math.randomseed(os.time() * 1000 + math.floor(os.clock() * 1000000))
  if zipf then zipf_init(n) end
end
function request()
  local seen, ids = {}, {}
  while #ids < batch do
    local id = zipf and zipf_id() or math.random(0, n - 1)
    if not seen[id] then
      seen[id] = true
      ids[#ids + 1] = id
    end
  end
  return wrk.format("GET", "/docs?ids=" .. table.concat(ids, ",") .. suffix)
end
-- done(): the report line scripts/bench-service reads, shared with the other scripts here.
dofile(dir .. "report.lua")
