-- Zipf-distributed ids (s = 1.0) over N, shared by zipf.lua and multiget.lua (loaded with dofile
-- from their own directory): zipf_init(n) once per thread (in init()), then zipf_id() per id.
-- Rank r (1 = the most asked for) maps to id (r * 7919) % n, so hot documents are not neighbours;
-- 7907 when n is a multiple of 7919 (both prime: the map stays one to one).
local cdf, size, step = {}, 0, 7919
function zipf_init(n)
  size = n
  step = (n % 7919 == 0) and 7907 or 7919
  local total = 0
  for r = 1, n do total = total + 1 / r end
  local acc = 0
  for r = 1, n do
    acc = acc + (1 / r) / total
    cdf[r] = acc
  end
end
function zipf_id()
  local u = math.random()
  local lo, hi = 1, size
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if cdf[mid] < u then lo = mid + 1 else hi = mid end
  end
  return (lo * step) % size
end
