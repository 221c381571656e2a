-- GET /docs/{id} with ids uniform in [0, N); N from the environment (DOCS).
local n = tonumber(os.getenv("DOCS") or "100000")
function init(args)
  math.randomseed(os.time() * 1000 + math.floor(os.clock() * 1000000))
end
function request()
  return wrk.format("GET", "/docs/" .. math.random(0, n - 1))
end
-- done(): the report line scripts/bench-service reads, shared with the other scripts here.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
