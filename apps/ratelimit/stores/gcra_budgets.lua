-- GCRA over every budget of one request, all or nothing (mirrors apps/ratelimit/gcra.py).
-- Shared by the scripts of this folder: each is this file followed by its own body.
-- keys[i]: TAT key of check i (its alert flag is keys[i] .. ':alerted').
-- spec: flat list, 6 values per check: interval_ms, capacity_ms, cost, flags ('a' alert-only, 'p' peek),
-- penalty_ms, alert_ttl_ms.
-- Returns allowed (boolean) and a flat list of 4 values per check: allowed, remaining, wait_ms, crossed.
-- The replication id of the server running the script. A replica promoted by a failover takes a
-- new one, so a credential entry that names the id it was filled under dies with the old primary.
local function replication_id()
  return string.match(redis.call('INFO', 'replication'), 'master_replid:(%w+)')
end

-- The hash tag of a budget key of a cached credential's subject (apps/ratelimit/budgets.py slot).
local function subject_tag(dimension, value, ip_tag)
  if dimension == 'principal' or dimension == 'user' or dimension == 'number' then
    return 'u:' .. string.match(value, '^[^:]*')
  end
  if dimension == 'ip' then return ip_tag end
  return dimension .. ':' .. value
end

local function redis_now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The Redis clock in microseconds (a string), and now in ms: ``fixed_ms`` when the caller fixed the
-- clock (a non-empty ARGV), else the Redis clock; one TIME call for both.
local function redis_clock(fixed_ms)
  local t = redis.call('TIME')
  local now_us = t[1] .. string.format('%06d', tonumber(t[2]))
  local now = fixed_ms ~= '' and tonumber(fixed_ms) or (tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
  return now_us, now
end

local function gcra_budgets(keys, spec, now)
  local n = #keys
  local base, new, ok = {}, {}, {}
  local allowed = true
  for i = 1, n do
    local o = (i - 1) * 6
    local interval, capacity, cost = tonumber(spec[o + 1]), tonumber(spec[o + 2]), tonumber(spec[o + 3])
    local tat = tonumber(redis.call('GET', keys[i]) or '') or now
    if tat < now then tat = now end
    base[i] = tat
    new[i] = tat + cost * interval
    ok[i] = (new[i] - now) <= capacity
    if not ok[i] and not string.find(spec[o + 4], 'a', 1, true) then allowed = false end
  end

  local out = {}
  for i = 1, n do
    local o = (i - 1) * 6
    local interval, capacity = tonumber(spec[o + 1]), tonumber(spec[o + 2])
    local alert = string.find(spec[o + 4], 'a', 1, true) ~= nil
    local peek = string.find(spec[o + 4], 'p', 1, true) ~= nil
    local penalty, alert_ttl = tonumber(spec[o + 5]), tonumber(spec[o + 6])
    local state = base[i]
    if ok[i] and not peek and (alert or allowed) then
      state = new[i]
      if penalty > 0 and capacity - (state - now) < interval then
        state = now + penalty + capacity - interval
      end
      redis.call('SET', keys[i], string.format('%d', state), 'PX', math.max(1, state - now))
    end
    local remaining = math.floor((capacity - (state - now)) / interval)
    if remaining < 0 then remaining = 0 end
    local wait = (state - now) - (capacity - interval)
    if not ok[i] then wait = math.max(wait, new[i] - now - capacity) end
    if wait < 0 then wait = 0 end
    local crossed = 0
    if alert and not ok[i] then
      -- The flag holds its own expiry so an injected clock (tests) sees the same window.
      local flag = tonumber(redis.call('GET', keys[i] .. ':alerted') or '')
      if not flag or flag <= now then
        redis.call('SET', keys[i] .. ':alerted', string.format('%d', now + alert_ttl), 'PX', alert_ttl)
        crossed = 1
      end
    end
    out[#out + 1] = ok[i] and 1 or 0
    out[#out + 1] = remaining
    out[#out + 1] = wait
    out[#out + 1] = crossed
  end
  return allowed, out
end
