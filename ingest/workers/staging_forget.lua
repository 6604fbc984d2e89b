-- Forget a batch (neardup.ingest.workers.staging.BatchStaging): the page ids still pointing at
-- batch ARGV[1] in pending, and the batch itself (its ids are read from the ids key, or from
-- the payload for a batch accepted without one).
-- KEYS: pending, batch:<key>, batch:<key>:ids. ARGV: key.
local ids = redis.call('GET', KEYS[3])
if ids then
  ids = cjson.decode(ids)
else
  ids = {}
  local blob = redis.call('GET', KEYS[2])
  if blob then
    for _, page in ipairs(cjson.decode(blob)['pages']) do ids[#ids + 1] = tostring(page['id']) end
  end
end
for _, id in ipairs(ids) do
  if redis.call('HGET', KEYS[1], id) == ARGV[1] then redis.call('HDEL', KEYS[1], id) end
end
redis.call('DEL', KEYS[2], KEYS[3])
return 1
