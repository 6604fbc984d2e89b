-- Count pages into an index's site-chrome counts, each page once (ingest/workers/chrome_counts.py).
-- KEYS[1] the cells (a plain count-min sketch read with BITFIELD), KEYS[2] pages per site (a
-- hash), KEYS[3] the ids counted (a set), KEYS[4] each counted page's site (a hash), KEYS[5]
-- the sites whose counts changed since their pages were last masked (a set), KEYS[6] the
-- prefix of each site's set of counted pages, KEYS[7] the rules counted in this index (a set),
-- KEYS[8] each site's count version (a hash: +1 each page counted or taken out),
-- ARGV[1] the number of pages, ARGV[2] this rule's identity, then per page: id, site, and its
-- cells (u32 offsets, as one string of decimal numbers separated by spaces: one argument a
-- page, not one a cell).
-- Atomic: a page is added to the set only with its counts, so a call retried after a lost
-- reply counts nothing twice. Returns how many pages were new. Uses chrome_cells.lua.
local n = tonumber(ARGV[1])
local i = 3
local new = 0
for _ = 1, n do
  local id, site, cells = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  i = i + 3
  if redis.call('SADD', KEYS[3], id) == 1 then
    new = new + 1
    redis.call('HINCRBY', KEYS[2], site, 1)
    redis.call('HSET', KEYS[4], id, site)
    redis.call('SADD', KEYS[6] .. site, id)
    redis.call('SADD', KEYS[5], site)
    redis.call('HINCRBY', KEYS[8], site, 1)
    add_cells(KEYS[1], cells, 1)
  end
end
if new > 0 then
  redis.call('SADD', KEYS[7], ARGV[2])
end
return new
