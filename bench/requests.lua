-- wrk script: each request is the next line of the file BENCH_LINES, formatted
--   METHOD <TAB> PATH <TAB> Header: value|Header: value <TAB> body
-- Threads interleave through the lines, so with enough lines none is sent twice
-- (refresh tokens and codes are single use; credentials spread the per-principal budgets).
local lines = {}
local thread_count = 0

function setup(thread)
  thread:set("offset", thread_count)
  thread_count = thread_count + 1
end

local function split(s, sep)
  local out = {}
  for piece in string.gmatch(s .. sep, "(.-)" .. sep) do out[#out + 1] = piece end
  return out
end

function init(args)
  step = tonumber(os.getenv("BENCH_THREADS") or "1")
  index = offset
  for line in io.lines(os.getenv("BENCH_LINES")) do
    local f = split(line, "\t")
    local headers = {}
    if f[3] ~= "" then
      for _, h in ipairs(split(f[3], "|")) do
        local k, v = string.match(h, "^(.-):%s*(.*)$")
        headers[k] = v
      end
    end
    lines[#lines + 1] = wrk.format(f[1], f[2], headers, f[4] ~= "" and f[4] or nil)
  end
end

request = function()
  local r = lines[(index % #lines) + 1]
  index = index + step
  return r
end
