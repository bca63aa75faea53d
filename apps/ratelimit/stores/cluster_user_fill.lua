-- Redis Cluster, first of the calls that cache a credential read from the database, in the user's
-- slot (after gcra_budgets.lua): the user's epoch, then the budgets.
-- KEYS[1]: the user's epoch; KEYS[2]: the last-use marker (KEYS[1] again when there is none);
-- KEYS[3..]: the blocking budget keys.
-- ARGV[1]: now in ms or ''; ARGV[2]: the miss time (us, already less the allowed clock skew between
-- servers); ARGV[3]: the marker's life in ms, or ''; then 6 values per budget (see gcra_budgets).
-- Returns {usable, user epoch or '', replication id, now_ms, allowed, results...}: usable is 1 when the
-- epoch existed and has not moved since the miss (the entry may then be written, naming it).
local now_us, now = redis_clock(ARGV[1])
local user = redis.call('GET', KEYS[1])
local usable = 0
if not user then
  -- Lost (evicted, a failover) or never made: made now, and this read is not cached.
  redis.call('SET', KEYS[1], now_us, 'EX', 86400)
elseif tonumber(user) < tonumber(ARGV[2]) then
  usable = 1
  redis.call('EXPIRE', KEYS[1], 86400)
  if ARGV[3] ~= '' then redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[3]) end
end
local budget_keys = {}
for i = 3, #KEYS do budget_keys[#budget_keys + 1] = KEYS[i] end
local allowed, results = gcra_budgets(budget_keys, {unpack(ARGV, 4)}, now)
local out = {usable, user or '', replication_id(), now, allowed and 1 or 0}
for i = 1, #results do out[#out + 1] = results[i] end
return out
