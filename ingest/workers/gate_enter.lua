-- A decision enters the gate (neardup.ingest.workers.gate.Gate.deciding) unless a repair holds it.
-- KEYS: gate:repair, gate:deciders. ARGV: token, expiry (epoch seconds). Returns 1 or 0.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
