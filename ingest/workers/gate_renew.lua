-- A holder of the gate renews its hold (neardup.ingest.workers.gate.Gate): a decision's entry
-- in gate:deciders, a repair's gate:repair while it still holds its own token.
-- KEYS: gate:repair, gate:deciders. ARGV: token, expiry (epoch seconds), hold (ms), role.
if ARGV[4] == 'repair' then
  if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[3])
  end
  return 0
end
return redis.call('ZADD', KEYS[2], 'XX', 'CH', ARGV[2], ARGV[1])
