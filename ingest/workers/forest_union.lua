-- Join components of the group forest, atomically (neardup.ingest.workers.forest.RedisGroupForest.union).
-- KEYS: parent, pseq, best, merged (the roots merged away whose members are not rewritten
-- yet). ARGV[1]: JSON {"seq": {id: seq}, "edges": [[a, b, resemble, contain], ...], "ask":
-- [ids]}. Returns JSON {"roots": {id: root} for ask, "best": {id: [other, resemble, contain]}
-- for ask, "merged": [[loser, root], ...]} (every root merged away and not rewritten yet: this
-- call's, and those a decision that failed before its rewrite left; the rewrite takes them out
-- of ``merged``). ``best`` keeps, for every page, the joined page it resembles most so far
-- (either side of the pair may have been the one verifying).
local P, S, B, M = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local a = cjson.decode(ARGV[1])
local given = a.seq
local function seqof(x)
  local s = redis.call('HGET', S, x)
  if s then return tonumber(s) end
  return tonumber(given[x])
end
local function find(x)
  local r = x
  local p = redis.call('HGET', P, r)
  while p and p ~= r do r = p; p = redis.call('HGET', P, r) end
  local y = x
  while y ~= r do
    local nx = redis.call('HGET', P, y)
    redis.call('HSET', P, y, r)
    y = nx
  end
  return r
end
local function before(x, y)
  local sx, sy = seqof(x), seqof(y)
  if sx ~= sy then return sx < sy end
  return x < y
end
local function keep(x, y, res, con)
  local old = redis.call('HGET', B, x)
  if old then
    local o = cjson.decode(old)
    if o[2] >= res then return end
  end
  redis.call('HSET', B, x, cjson.encode({y, res, con}))
end
for _, e in ipairs(a.edges) do
  keep(e[1], e[2], e[3], e[4])
  keep(e[2], e[1], e[3], e[4])
  local ra, rb = find(e[1]), find(e[2])
  if ra ~= rb then
    for _, r in ipairs({ra, rb}) do
      if redis.call('HSETNX', P, r, r) == 1 then redis.call('HSET', S, r, given[r]) end
    end
    local win, lose = ra, rb
    if before(rb, ra) then win, lose = rb, ra end
    redis.call('HSET', P, lose, win)
    redis.call('SADD', M, lose)
  end
end
local roots = {}
local best = {}
for _, x in ipairs(a.ask) do
  roots[x] = find(x)
  local b = redis.call('HGET', B, x)
  if b then best[x] = cjson.decode(b) end
end
local merged = {}
for _, l in ipairs(redis.call('SMEMBERS', M)) do table.insert(merged, {l, find(l)}) end
return cjson.encode({roots = roots, best = best, merged = merged})
