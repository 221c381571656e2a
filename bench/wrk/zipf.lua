-- GET /docs/{id} with Zipf-distributed ranks (s = 1.0) over N ids; rank r maps to a scattered id.
local n = tonumber(os.getenv("DOCS") or "100000")
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(dir .. "zipf-ids.lua")
function init(args)
  math.randomseed(os.time() * 1000 + math.floor(os.clock() * 1000000))
  zipf_init(n)
end
function request()
  return wrk.format("GET", "/docs/" .. zipf_id())
end
-- done(): the report line scripts/bench-service reads, shared with the other scripts here.
dofile(dir .. "report.lua")
