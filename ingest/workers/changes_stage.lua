-- Stage changes (neardup.ingest.workers.changes.ChangeLog.stage): each takes the next seq of the
-- sequencer the batches take theirs from, so changes and batches have one arrival order.
-- KEYS: seq, changes. ARGV: the change payload prefix, then per change: its id, its JSON.
-- Returns the seqs, in order.
local out = {}
for i = 2, #ARGV, 2 do
  local seq = redis.call('INCR', KEYS[1])
  redis.call('SET', ARGV[1] .. ARGV[i], ARGV[i + 1])
  redis.call('ZADD', KEYS[2], seq, ARGV[i])
  out[#out + 1] = seq
end
return out
