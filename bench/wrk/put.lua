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
-- done(): the report line scripts/bench-service reads, shared with the other scripts here.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
