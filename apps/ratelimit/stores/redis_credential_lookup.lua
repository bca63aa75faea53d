-- Find a cached credential and, when it is good for this request, apply the budgets in the same
-- call (after gcra_budgets.lua). One Redis server: the user's keys are derived from the entry.
-- KEYS[1]: the entry (prefix:{e<bucket>}:cred:<digest>); KEYS[2]: the global epoch of its bucket.
-- ARGV[1]: now in ms or ''; ARGV[2]: audience; ARGV[3]: key prefix; ARGV[4]: the caller's ip subject;
-- ARGV[5]: the budgets, 8 space-separated values each (name, dimension, and the 6 of gcra_budgets),
-- one string so the hot path sends few arguments; ARGV[6]: the worker's clock in ms; ARGV[7]: the
-- hash tag of the ip subject.
-- An entry is "<control JSON>\n<payload>"; control holds aud, exp (ms), ge/ue (the global and user
-- epochs it was filled under), re (the server's replication id then), uid, used (the last-use
-- marker key or '') with used_ms (its life), and s_<dimension> values.
-- Returns {0, now_us} on a miss; on a hit {1, now_us, payload, stamped, now_ms, allowed, results...}.
local now_us, now = redis_clock(ARGV[1])
local miss = {0, now_us}

local raw = redis.call('GET', KEYS[1])
if not raw then return miss end
local cut = string.find(raw, '\n', 1, true)
local c = cjson.decode(string.sub(raw, 1, cut - 1))
-- Expired by the Redis clock or by the worker's (ARGV[6]), whichever is later: the database path
-- uses the worker's.
if c.aud ~= ARGV[2] or tonumber(c.exp) <= math.max(now, tonumber(ARGV[6])) then return miss end
-- Any revocation since the fill moved an epoch, and a failover since changed the server: dead.
if redis.call('GET', KEYS[2]) ~= c.ge then return miss end
if redis.call('GET', ARGV[3] .. ':{u:' .. c.uid .. '}:cred-epoch') ~= c.ue then return miss end
if c.re ~= replication_id() then return miss end

local stamped = 0
if c.used ~= '' and redis.call('SET', c.used, '1', 'NX', 'PX', c.used_ms) then stamped = 1 end

local subject = {principal = c.s_principal, user = c.s_user, client = c.s_client, ip = ARGV[4]}
local keys, spec = {}, {}
local pattern = '(%S+) (%S+) (%S+) (%S+) (%S+) (%S+) (%S+) (%S+)'
for name, dimension, a, b, cost, flags, penalty, ttl in string.gmatch(ARGV[5], pattern) do
  local value = subject[dimension]
  if value and value ~= '' then
    keys[#keys + 1] = ARGV[3] .. ':{' .. subject_tag(dimension, value, ARGV[7]) .. '}:' .. name .. ':' .. value
    local n = #spec
    spec[n + 1], spec[n + 2], spec[n + 3], spec[n + 4], spec[n + 5], spec[n + 6] = a, b, cost, flags, penalty, ttl
  end
end
local allowed, results = gcra_budgets(keys, spec, now)
local out = {1, now_us, string.sub(raw, cut + 1), stamped, now, allowed and 1 or 0}
for i = 1, #results do out[#out + 1] = results[i] end
return out
