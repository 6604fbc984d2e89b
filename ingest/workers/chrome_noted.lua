-- Note that pages of these sites are being masked with the counts as they are now
-- (ingest/workers/chrome_counts.py, SharedChromeCounts.note_masking): each site's low mark
-- becomes the lowest count version any of its pages was masked at since its last sweep.
-- KEYS[1] the count versions (hash), KEYS[2] the low marks (hash). ARGV: the sites.
for _, site in ipairs(ARGV) do
  local v = tonumber(redis.call('HGET', KEYS[1], site) or '0')
  local low = redis.call('HGET', KEYS[2], site)
  if not low or tonumber(low) > v then
    redis.call('HSET', KEYS[2], site, v)
  end
end
return #ARGV
