-- Take one in-flight slot (apps/ratelimit/services.py ratelimit_in_flight).
-- KEYS[1]: sorted set of the slots held, member a holder's token, score its expiry in ms.
-- ARGV: limit, hold_ms, token, now in ms or '' to use the Redis clock shared by every process.
-- Returns 1 when the slot was taken, 0 when every slot is held. Expired slots (a holder that
-- died) are dropped first, so they free themselves.
local now = ARGV[4]
if now == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(now)
end
local hold = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + hold, ARGV[3])
-- The set lives as long as its latest slot.
if redis.call('PTTL', KEYS[1]) < hold then
  redis.call('PEXPIRE', KEYS[1], hold)
end
return 1
