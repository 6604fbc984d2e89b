-- Take pages back out of an index's site-chrome counts (a page deleted, or the old version of a
-- page that changed): the counts become those of the pages present (ingest/workers/chrome_counts.py).
-- KEYS as chrome_observe.lua's first six, KEYS[7] its count versions (KEYS[8] there). ARGV[1] the number of pages, then per page: id and
-- the cells of the text it was counted with (as chrome_observe.lua takes them).
-- Atomic, each page once: a page not counted is skipped. Returns how many pages were taken out.
-- Uses chrome_cells.lua.
local n = tonumber(ARGV[1])
local i = 2
local gone = 0
for _ = 1, n do
  local id, cells = ARGV[i], ARGV[i + 1]
  i = i + 2
  local site = redis.call('HGET', KEYS[4], id)
  if site and redis.call('SREM', KEYS[3], id) == 1 then
    gone = gone + 1
    if redis.call('HINCRBY', KEYS[2], site, -1) <= 0 then
      redis.call('HDEL', KEYS[2], site)
    end
    redis.call('HDEL', KEYS[4], id)
    redis.call('SREM', KEYS[6] .. site, id)
    redis.call('SADD', KEYS[5], site)
    redis.call('HINCRBY', KEYS[7], site, 1)
    add_cells(KEYS[1], cells, -1)
  end
end
return gone
