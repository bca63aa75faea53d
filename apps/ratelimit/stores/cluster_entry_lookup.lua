-- Redis Cluster, first of a cached credential's calls: find the entry (after gcra_budgets.lua).
-- The user's keys live in the user's slot, unknown until the entry is read, so the user's epoch
-- and the budgets are the second call (cluster_user_lookup.lua).
-- KEYS[1]: the entry (prefix:{e<bucket>}:cred:<digest>); KEYS[2]: the global epoch of its bucket.
-- ARGV[1]: now in ms or ''; ARGV[2]: audience; ARGV[3]: the worker's clock in ms.
-- Returns {0, now_us} on a miss, {1, now_us, control JSON, payload} on a hit.
local now_us, now = redis_clock(ARGV[1])
local miss = {0, now_us}

local raw = redis.call('GET', KEYS[1])
if not raw then return miss end
local cut = string.find(raw, '\n', 1, true)
local control = string.sub(raw, 1, cut - 1)
local c = cjson.decode(control)
if c.aud ~= ARGV[2] or tonumber(c.exp) <= math.max(now, tonumber(ARGV[3])) then return miss end
if redis.call('GET', KEYS[2]) ~= c.ge then return miss end
if c.re ~= replication_id() then return miss end
return {1, now_us, control, string.sub(raw, cut + 1)}
