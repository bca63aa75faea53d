-- Cache a credential just read from the database, then apply the budgets (after gcra_budgets.lua).
-- KEYS[1]: the entry; KEYS[2]: the global epoch of its bucket; KEYS[3]: the user's epoch; KEYS[4..]: budget keys.
-- ARGV[1]: now in ms or ''; ARGV[2]: the Redis time (us) of the miss, taken before the database read;
-- ARGV[3]: control JSON; ARGV[4]: payload; ARGV[5]: entry ttl ms (0: cache nothing); ARGV[6]: last-used marker key or '';
-- ARGV[7]: its ttl ms; then 6 values per budget (see gcra_budgets).
-- The entry is written only if both epochs exist and neither moved since the miss: a revocation that
-- committed after the database read moved one, so a stale read can never be cached. Returns {filled, now, allowed, results...}.
local now_us, now = redis_clock(ARGV[1])
local miss = tonumber(ARGV[2])
local filled = 0
local global, user = redis.call('GET', KEYS[2]), redis.call('GET', KEYS[3])
local fresh = tonumber(now_us) - miss < 5000000
-- A missing epoch may be one that a revocation moved after the read and that was then lost
-- (evicted, or a failover): it is created now, and this read is not cached (the next miss fills).
if not global then redis.call('SET', KEYS[2], now_us) end
if not user then redis.call('SET', KEYS[3], now_us, 'EX', 86400) end
if tonumber(ARGV[5]) > 0 and fresh and global and user and tonumber(global) < miss and tonumber(user) < miss then
  -- The user's epoch outlives every entry that names it.
  redis.call('EXPIRE', KEYS[3], 86400)
  local c = cjson.decode(ARGV[3])
  c.ge, c.ue, c.re = global, user, replication_id()
  redis.call('SET', KEYS[1], cjson.encode(c) .. '\n' .. ARGV[4], 'PX', ARGV[5])
  if ARGV[6] ~= '' then redis.call('SET', ARGV[6], '1', 'NX', 'PX', ARGV[7]) end
  filled = 1
end
local budget_keys = {}
for i = 4, #KEYS do budget_keys[#budget_keys + 1] = KEYS[i] end
local allowed, results = gcra_budgets(budget_keys, {unpack(ARGV, 8)}, now)
local out = {filled, now, allowed and 1 or 0}
for i = 1, #results do out[#out + 1] = results[i] end
return out
