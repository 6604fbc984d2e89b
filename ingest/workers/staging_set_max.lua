-- Raise the number at KEYS[1] to ARGV[1] unless it is larger already
-- (neardup.ingest.workers.staging.BatchStaging: when the last finished refresh started).
local v = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > v then redis.call('SET', KEYS[1], ARGV[1]) end
return 1
