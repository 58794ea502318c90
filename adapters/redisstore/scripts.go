package redisstore

import "github.com/redis/go-redis/v9"

// The Lua scripts run atomically in Redis. Each touches only the keys it
// is given, and the keys one script touches share a hash slot, so the
// store works with Redis Cluster too.
//
// A host session's records are one hash: field = session id, value =
// "<ExpiresAt in Unix ms> <subject>". Times are Unix milliseconds,
// computed by the store's clock and passed in.

// addScript records one session id.
//
//	KEYS[1]  records hash
//	ARGV     session id, expiry, subject, now, max records
//
// It drops expired records, then the records that expire first while the
// key holds more than the maximum, and makes the key expire with its last
// record. It returns the records pushed out for being over the maximum,
// as a flat list of session id and value pairs.
var addScript = redis.NewScript(`
local key = KEYS[1]
local exp = tonumber(ARGV[2])
local now = tonumber(ARGV[4])
local limit = tonumber(ARGV[5])
redis.call('HSET', key, ARGV[1], ARGV[2] .. ' ' .. ARGV[3])
local all = redis.call('HGETALL', key)
local live = {}
for i = 1, #all, 2 do
  local v = all[i + 1]
  local e = tonumber(string.sub(v, 1, string.find(v, ' ', 1, true) - 1))
  if e <= now then
    redis.call('HDEL', key, all[i])
  else
    live[#live + 1] = {all[i], e}
  end
end
local first = 1
local evicted = {}
if #live > limit then
  table.sort(live, function(a, b) return a[2] < b[2] end)
  first = #live - limit + 1
  for i = 1, first - 1 do
    evicted[#evicted + 1] = live[i][1]
    evicted[#evicted + 1] = redis.call('HGET', key, live[i][1])
    redis.call('HDEL', key, live[i][1])
  end
end
local latest = 0
for i = first, #live do
  if live[i][2] > latest then latest = live[i][2] end
end
if latest > 0 then
  redis.call('PEXPIREAT', key, latest)
end
return evicted
`)

// indexScript notes that a host session holds records of a subject.
//
//	KEYS[1]  the subject's index, a sorted set of host session key hashes
//	         scored by the latest expiry of the subject's records there
//	ARGV     host session key hash, expiry, now
var indexScript = redis.NewScript(`
local key = KEYS[1]
redis.call('ZADD', key, 'GT', ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[3])
local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
if #last == 2 then
  redis.call('PEXPIREAT', key, last[2])
end
return 1
`)

// takeSubjectScript removes the records of one subject from a host
// session and returns the live ones as session id, value pairs.
//
//	KEYS[1]  records hash
//	ARGV     subject, now
var takeSubjectScript = redis.NewScript(`
local key = KEYS[1]
local subject = ARGV[1]
local now = tonumber(ARGV[2])
local all = redis.call('HGETALL', key)
local out = {}
local latest = 0
for i = 1, #all, 2 do
  local v = all[i + 1]
  local sp = string.find(v, ' ', 1, true)
  local e = tonumber(string.sub(v, 1, sp - 1))
  if string.sub(v, sp + 1) == subject then
    redis.call('HDEL', key, all[i])
    if e > now then
      out[#out + 1] = all[i]
      out[#out + 1] = v
    end
  elseif e <= now then
    redis.call('HDEL', key, all[i])
  elseif e > latest then
    latest = e
  end
end
if latest > 0 then
  redis.call('PEXPIREAT', key, latest)
end
return out
`)

// queuePrelude is shared by the revoke queue scripts. The queue is three
// keys in one hash slot:
//
//	KEYS[1]  due: sorted set of session ids scored by next attempt time
//	KEYS[2]  rec: hash session id -> "<expiry> <attempts> <subject>"
//	KEYS[3]  exp: sorted set of session ids scored by expiry
//
// An id stays in rec and exp after Due hands it out, until it expires, so
// that a further Defer of it knows how many attempts were made. prune
// forgets expired ids; expire makes the keys expire with the last id.
const queuePrelude = `
local function prune(now, limit)
  local gone
  if limit then
    gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, limit)
  else
    gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
  end
  for _, id in ipairs(gone) do
    redis.call('ZREM', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
  end
end
local function expire()
  local last = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
  if #last == 2 then
    for i = 1, 3 do
      redis.call('PEXPIREAT', KEYS[i], last[2])
    end
  end
end
`

// deferScript queues records.
//
//	ARGV  now, first backoff, backoff limit, then per record: session id,
//	      expiry, subject
var deferScript = redis.NewScript(queuePrelude + `
local now = tonumber(ARGV[1])
local first = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
prune(now, 1000)
for i = 4, #ARGV, 3 do
  local id = ARGV[i]
  local exp = tonumber(ARGV[i + 1])
  if exp > now then
    local attempts = 1
    local prev = redis.call('HGET', KEYS[2], id)
    if prev then
      local s1 = string.find(prev, ' ', 1, true)
      local s2 = string.find(prev, ' ', s1 + 1, true)
      attempts = tonumber(string.sub(prev, s1 + 1, s2 - 1)) + 1
    end
    local wait = first
    for _ = 2, attempts do
      if wait >= limit then break end
      wait = wait * 2
    end
    if wait > limit then wait = limit end
    redis.call('ZADD', KEYS[1], now + wait, id)
    redis.call('HSET', KEYS[2], id, ARGV[i + 1] .. ' ' .. attempts .. ' ' .. ARGV[i + 2])
    redis.call('ZADD', KEYS[3], exp, id)
  end
end
expire()
return 1
`)

// dueScript removes and returns up to n due records as session id, value
// pairs, earliest first.
//
//	ARGV  now, n
var dueScript = redis.NewScript(queuePrelude + `
local now = tonumber(ARGV[1])
prune(now, 1000)
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[1], id)
  local v = redis.call('HGET', KEYS[2], id)
  if v then
    local e = tonumber(string.sub(v, 1, string.find(v, ' ', 1, true) - 1))
    if e > now then
      out[#out + 1] = id
      out[#out + 1] = v
    end
  end
end
return out
`)

// pendingScript returns how many live records are queued.
//
//	ARGV  now
var pendingScript = redis.NewScript(queuePrelude + `
prune(tonumber(ARGV[1]), nil)
return redis.call('ZCARD', KEYS[1])
`)
