-- wrk script of bench/writes.py: BENCH_MODE "rate", "quote" or "flow" (a quote, its placement, its end).
-- BENCH_LINES holds one account a line: its key's secret, a TAB, the number it calls. Each thread
-- owns the accounts offset, offset + BENCH_THREADS, ... and has one connection (wrk -t N -c N), so an
-- account's next quote is sent only after its callback ended: one live callback per account.
local thread_count = 0

function setup(thread)
  thread:set("offset", thread_count)
  thread_count = thread_count + 1
end

function init(args)
  mode = os.getenv("BENCH_MODE")
  step = tonumber(os.getenv("BENCH_THREADS") or "1")
  accounts = {}
  for line in io.lines(os.getenv("BENCH_LINES")) do
    local secret, to = string.match(line, "^(.-)\t(.*)$")
    accounts[#accounts + 1] = {auth = "Bearer " .. secret, to = to}
  end
  index, state, made, sent = offset, 0, nil, 0
end

local function account()
  return accounts[(index % #accounts) + 1]
end

local function json(method, path, body, extra)
  local headers = {["Authorization"] = account().auth, ["Content-Type"] = "application/json"}
  for k, v in pairs(extra or {}) do headers[k] = v end
  return wrk.format(method, path, headers, body)
end

request = function()
  local a = account()
  if mode == "rate" then
    index = index + step
    return wrk.format("GET", "/v1/rates?to=%2B" .. string.sub(a.to, 2), {["Authorization"] = a.auth})
  end
  if mode == "quote" or state == 0 then
    if mode == "quote" then index = index + step end
    return json("POST", "/v1/quotes", '{"to": "' .. a.to .. '"}')
  end
  if state == 1 then
    sent = sent + 1
    local key = string.format("%s-%d-%d", os.getenv("BENCH_ROUND"), offset, sent)  -- new every round
    return json("POST", "/v1/calls", '{"quote": "' .. made .. '"}', {["Idempotency-Key"] = key})
  end
  return json("POST", "/v1/calls/" .. made .. "/end", "")
end

response = function(status, headers, body)
  if mode ~= "flow" then return end
  if status >= 300 then
    state = 0  -- start the account over: its quote is placed or its call ended, or neither
    index = index + step
    return
  end
  if state == 0 then
    made, state = string.match(body, '"id":%s*"(quo_[^"]+)"'), 1
  elseif state == 1 then
    made, state = string.match(body, '"id":%s*"(call_[^"]+)"'), 2
  else
    state = 0
    index = index + step
  end
end
