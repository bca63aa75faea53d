-- Redis Cluster, second of a cached credential's calls, in the user's slot (after gcra_budgets.lua):
-- the user's epoch and server still those the entry was filled under, then the budgets.
-- KEYS[1]: the user's epoch; KEYS[2]: the last-use marker (KEYS[1] again when there is none);
-- KEYS[3..]: the blocking budget keys.
-- ARGV[1]: now in ms or ''; ARGV[2]: the user epoch the entry names; ARGV[3]: the replication id
-- of the user's server then; ARGV[4]: the marker's life in ms, or '' for none; then 6 values per
-- budget (see gcra_budgets).
-- Returns {0} when the entry is dead, else {1, stamped, now_ms, allowed, results...}.
if redis.call('GET', KEYS[1]) ~= ARGV[2] or replication_id() ~= ARGV[3] then return {0} end
local now = ARGV[1] ~= '' and tonumber(ARGV[1]) or redis_now_ms()
local stamped = 0
if ARGV[4] ~= '' and redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[4]) then stamped = 1 end
local budget_keys = {}
for i = 3, #KEYS do budget_keys[#budget_keys + 1] = KEYS[i] end
local allowed, results = gcra_budgets(budget_keys, {unpack(ARGV, 5)}, now)
local out = {1, stamped, now, allowed and 1 or 0}
for i = 1, #results do out[#out + 1] = results[i] end
return out
