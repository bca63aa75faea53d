-- Kill every cached credential of one user (KEYS[1] = its epoch key) or of everyone (the global
-- epoch): the epoch moves to the Redis time in us, strictly forward.
local t = redis.call('TIME')
local now = tonumber(t[1] .. string.format('%06d', tonumber(t[2])))
local old = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if now <= old then now = old + 1 end
local value = string.format('%d', now)
if ARGV[1] == '' then redis.call('SET', KEYS[1], value) else redis.call('SET', KEYS[1], value, 'EX', ARGV[1]) end
return value
