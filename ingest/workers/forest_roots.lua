-- The root of each id in ARGV, read only (neardup.ingest.workers.forest.RedisGroupForest.roots).
-- KEYS: parent. Returns the roots in the order asked (an id the forest does not know is its own).
local P = KEYS[1]
local out = {}
for i, x in ipairs(ARGV) do
  local r = x
  local p = redis.call('HGET', P, r)
  while p and p ~= r do r = p; p = redis.call('HGET', P, r) end
  out[i] = r
end
return out
