-- A repair masked a site's pages with the counts of version ARGV[2] (or found them masked with
-- them already): that version becomes the site's base, its low mark goes unless a page was
-- noted since the repair read it, and the site is unmarked unless its counts moved since
-- (ingest/workers/chrome_counts.py, SharedChromeCounts.swept).
-- KEYS[1] the bases (hash), KEYS[2] the low marks (hash), KEYS[3] the marked sites (set),
-- KEYS[4] the count versions (hash). ARGV: site, version, low mark read ('' when none).
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local low = redis.call('HGET', KEYS[2], ARGV[1])
if low and low == ARGV[3] then
  redis.call('HDEL', KEYS[2], ARGV[1])
end
if tonumber(redis.call('HGET', KEYS[4], ARGV[1]) or '0') == tonumber(ARGV[2]) then
  redis.call('SREM', KEYS[3], ARGV[1])
end
return 1
