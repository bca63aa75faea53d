-- Every budget of one request (after gcra_budgets.lua).
-- KEYS[i]: TAT key of check i. ARGV[1]: now in ms, or '' to use the Redis clock shared by every
-- server process; then 6 values per check (see gcra_budgets).
-- Returns {now, allowed, then per check: allowed, remaining, wait_ms, crossed}.
local now = ARGV[1] ~= '' and tonumber(ARGV[1]) or redis_now_ms()
local allowed, results = gcra_budgets(KEYS, {unpack(ARGV, 2)}, now)
local out = {now, allowed and 1 or 0}
for i = 1, #results do out[#out + 1] = results[i] end
return out
