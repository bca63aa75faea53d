-- Redis Cluster, last of the calls that cache a credential read from the database, in the entry's
-- slot (after gcra_budgets.lua): written only if its bucket's global epoch has not moved since the
-- miss. The user's epoch was checked by cluster_user_fill.lua and is named in the control; a
-- revocation that moves it between the two calls kills the entry at its next lookup.
-- KEYS[1]: the entry; KEYS[2]: the global epoch of its bucket.
-- ARGV[1]: the miss time (us, less the allowed skew); ARGV[2]: control JSON (with ue and ru);
-- ARGV[3]: payload; ARGV[4]: entry ttl ms. Returns 1 when written.
local t = redis.call('TIME')
local now_us = tonumber(t[1] .. string.format('%06d', tonumber(t[2])))
local miss = tonumber(ARGV[1])
local global = redis.call('GET', KEYS[2])
if not global then
  redis.call('SET', KEYS[2], string.format('%d', now_us))
  return 0
end
if tonumber(ARGV[4]) <= 0 or now_us - miss >= 10000000 or tonumber(global) >= miss then return 0 end
local c = cjson.decode(ARGV[2])
c.ge, c.re = global, replication_id()
redis.call('SET', KEYS[1], cjson.encode(c) .. '\n' .. ARGV[3], 'PX', ARGV[4])
return 1
