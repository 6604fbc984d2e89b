-- The functions the chrome counts' scripts share (ingest/workers/chrome_counts.py): loaded
-- before chrome_observe.lua and chrome_forget.lua (script(..., "chrome_cells.lua")).

-- Add `by` (1: a page counted, -1: a page taken out) to each cell of `cells` in the sketch at
-- `key`: u32 offsets, as one string of decimal numbers separated by spaces; cells saturate.
local function add_cells(key, cells, by)
  local args = {'OVERFLOW', 'SAT'}
  for c in string.gmatch(cells, '%d+') do
    args[#args + 1] = 'INCRBY'
    args[#args + 1] = 'u32'
    args[#args + 1] = '#' .. c
    args[#args + 1] = by
    if #args >= 4002 then  -- at most 1,000 cells a BITFIELD: Lua's unpack has a limit
      redis.call('BITFIELD', key, unpack(args))
      args = {'OVERFLOW', 'SAT'}
    end
  end
  if #args > 2 then
    redis.call('BITFIELD', key, unpack(args))
  end
end
