-- Read keys' counts from an index's site-chrome counts (ingest/workers/chrome_counts.py).
-- KEYS[1] the cells (a plain count-min sketch, u32 cells read with BITFIELD_RO).
-- ARGV[1] the depth d (cells a key), ARGV[2] the keys' cells: u32 offsets, d a key in order,
-- as one string of decimal numbers separated by spaces (one argument, not one a cell).
-- Returns each key's count, the least of its d cells, as one such string.
local d = tonumber(ARGV[1])
local out = {}
local args = {}
local function flush()
  if #args == 0 then return end
  local values = redis.call('BITFIELD_RO', KEYS[1], unpack(args))
  for j = 1, #values, d do
    local least = values[j]
    for r = j + 1, j + d - 1 do
      if values[r] < least then least = values[r] end
    end
    out[#out + 1] = least
  end
  args = {}
end
local n = 0
for c in string.gmatch(ARGV[2], '%d+') do
  args[#args + 1] = 'GET'
  args[#args + 1] = 'u32'
  args[#args + 1] = '#' .. c
  n = n + 1
  if n % d == 0 and #args >= 3000 then  -- at most 1,000 cells a call: Lua's unpack has a limit
    flush()
  end
end
flush()
return table.concat(out, ' ')
