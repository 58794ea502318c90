package redisstore

import "github.com/redis/go-redis/v9"

// The Lua scripts run atomically in Redis. Each touches only the keys it
// is given, and the keys one script touches share a hash slot, so the
// store works with Redis Cluster too.
//
// A host session's records are one hash: field = session id, value =
// "<ExpiresAt in Unix ms> <subject>". Times are Unix milliseconds,
// computed by the store's clock and passed in.
//
// A host session that holds many records (the store's indexFrom, 16, or
// more) also has an expiry index: a sorted set of the same session ids
// scored by ExpiresAt. It finds the records that expire first without
// reading the hash, so that adding to a key at its bound of records (a
// dashboard left open and reloading all day) costs time that grows with
// the logarithm of its records, not with their number. Smaller keys are
// read whole, which costs less than the index's memory.

// addScript records one session id.
//
//	KEYS[1]  records hash
//	KEYS[2]  its expiry index
//	ARGV     session id, expiry, subject, now, max records, indexFrom
//
// It drops expired records (a value it did not write counts as one), then
// the records that expire first while the
// key holds more than the maximum, and makes the keys expire with the
// last record. It returns the records pushed out for being over the
// maximum, as a flat list of session id and value pairs.
//
// The hash is what counts; the index follows it. A large hash the index
// does not match in size (one that has just grown large, or was written
// by an earlier version of the store, which kept no index) has its index
// built anew from it. An indexed id the hash no longer holds is skipped.
var addScript = redis.NewScript(`
local key, index = KEYS[1], KEYS[2]
local id = ARGV[1]
local now = tonumber(ARGV[4])
local limit = tonumber(ARGV[5])
local function expiry(v)
  local sp = string.find(v, ' ', 1, true)
  return sp and tonumber(string.sub(v, 1, sp - 1)) or 0
end
local evicted = {}
local latest = 0
local n = redis.call('HLEN', key)
if n < tonumber(ARGV[6]) then
  redis.call('DEL', index)
  redis.call('HSET', key, id, ARGV[2] .. ' ' .. ARGV[3])
  local all = redis.call('HGETALL', key)
  local live = {}
  for i = 1, #all, 2 do
    local e = expiry(all[i + 1])
    if e <= now then
      redis.call('HDEL', key, all[i])
    else
      live[#live + 1] = {all[i], e}
    end
  end
  local first = 1
  if #live > limit then
    table.sort(live, function(a, b) return a[2] < b[2] end)
    first = #live - limit + 1
    for i = 1, first - 1 do
      evicted[#evicted + 1] = live[i][1]
      evicted[#evicted + 1] = redis.call('HGET', key, live[i][1])
      redis.call('HDEL', key, live[i][1])
    end
  end
  for i = first, #live do
    if live[i][2] > latest then latest = live[i][2] end
  end
else
  if redis.call('ZCARD', index) ~= n then
    redis.call('DEL', index)
    local all = redis.call('HGETALL', key)
    for i = 1, #all, 2 do
      redis.call('ZADD', index, expiry(all[i + 1]), all[i])
    end
  end
  redis.call('HSET', key, id, ARGV[2] .. ' ' .. ARGV[3])
  redis.call('ZADD', index, ARGV[2], id)
  for _, gone in ipairs(redis.call('ZRANGEBYSCORE', index, '-inf', now)) do
    redis.call('HDEL', key, gone)
  end
  redis.call('ZREMRANGEBYSCORE', index, '-inf', now)
  while redis.call('HLEN', key) > limit do
    local first = redis.call('ZPOPMIN', index)
    if #first == 0 then
      break
    end
    local v = redis.call('HGET', key, first[1])
    if v then
      redis.call('HDEL', key, first[1])
      evicted[#evicted + 1] = first[1]
      evicted[#evicted + 1] = v
    end
  end
  local last = redis.call('ZRANGE', index, -1, -1, 'WITHSCORES')
  if #last == 2 then
    latest = last[2]
    redis.call('PEXPIREAT', index, latest)
  end
end
if latest ~= 0 then
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

// takeOwnedScript deletes the given records of a host session and
// returns those it deleted, as session id, value pairs: the second step of
// a take, after the caller read the records. A record another take
// deleted first is not returned, so no record goes to two takes; one
// added after the read is not named, so it stays. The keys then expire
// with the last record left.
//
//	KEYS[1]  records hash
//	KEYS[2]  its expiry index
//	ARGV     the session ids read
var takeOwnedScript = redis.NewScript(`
local key, index = KEYS[1], KEYS[2]
local out = {}
for i = 1, #ARGV do
  local v = redis.call('HGET', key, ARGV[i])
  if v then
    redis.call('HDEL', key, ARGV[i])
    redis.call('ZREM', index, ARGV[i])
    out[#out + 1] = ARGV[i]
    out[#out + 1] = v
  end
end
local rest = redis.call('HGETALL', key)
if #rest == 0 then
  redis.call('DEL', key, index)
  return out
end
local latest = 0
for i = 2, #rest, 2 do
  local sp = string.find(rest[i], ' ', 1, true)
  local e = sp and tonumber(string.sub(rest[i], 1, sp - 1)) or 0
  if e > latest then latest = e end
end
if latest == 0 then
  return out
end
redis.call('PEXPIREAT', key, latest)
redis.call('PEXPIREAT', index, latest)
return out
`)

// queuePrelude is shared by the revoke queue scripts. The queue is three
// keys in one hash slot:
//
//	KEYS[1]  due: sorted set of session ids scored by due time
//	KEYS[2]  rec: hash session id -> "<expiry> <attempts> <subject>"
//	KEYS[3]  exp: sorted set of session ids scored by expiry
//
// The schedule is the caller's: Defer passes each record's due time and
// attempt count, and Due hands records back with them and forgets them.
// remove forgets one id; prune forgets expired ids; expire makes the keys
// expire with the last id.
const queuePrelude = `
local function remove(id)
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
end
local function prune(now, limit)
  local gone
  if limit then
    gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, limit)
  else
    gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
  end
  for _, id in ipairs(gone) do
    remove(id)
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

// deferScript queues records, replacing a queued record of the same id.
//
//	ARGV  now, then per record: session id, expiry, due, attempts, subject
var deferScript = redis.NewScript(queuePrelude + `
local now = tonumber(ARGV[1])
prune(now, 1000)
for i = 2, #ARGV, 5 do
  local id = ARGV[i]
  local exp = tonumber(ARGV[i + 1])
  if exp > now then
    redis.call('ZADD', KEYS[1], tonumber(ARGV[i + 2]), id)
    redis.call('HSET', KEYS[2], id, ARGV[i + 1] .. ' ' .. ARGV[i + 3] .. ' ' .. ARGV[i + 4])
    redis.call('ZADD', KEYS[3], exp, id)
  end
end
expire()
return 1
`)

// dueScript removes and returns up to n due records as session id, value,
// due time triples, earliest first.
//
//	ARGV  now, n
var dueScript = redis.NewScript(queuePrelude + `
local now = tonumber(ARGV[1])
prune(now, 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for i = 1, #due, 2 do
  local id = due[i]
  local v = redis.call('HGET', KEYS[2], id)
  remove(id)
  if v then
    local e = tonumber(string.sub(v, 1, string.find(v, ' ', 1, true) - 1))
    if e > now then
      out[#out + 1] = id
      out[#out + 1] = v
      out[#out + 1] = due[i + 1]
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
