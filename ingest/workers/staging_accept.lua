-- Accept a batch (neardup.ingest.workers.staging.BatchStaging.accept): take a block of seqs,
-- store the payload, make the batch live and its pages pending, all at once.
-- KEYS: seq, batch:<key>, live, pending, batch:<key>:ids. ARGV: payload, n, key, id1 ... idn.
-- Returns the batch's first seq.
local base = redis.call('INCRBY', KEYS[1], tonumber(ARGV[2]))
local first = base - tonumber(ARGV[2]) + 1
redis.call('SET', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], first, ARGV[3])
local ids = {}
for i = 4, #ARGV do
  redis.call('HSET', KEYS[4], ARGV[i], ARGV[3])
  ids[#ids + 1] = ARGV[i]
end
redis.call('SET', KEYS[5], cjson.encode(ids))
return first
