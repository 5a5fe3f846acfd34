-- wrk script for `npm run bench`: sets `x-api-key` per request by the
-- scenario's key pattern (bench/lib/keys.mjs is the same in JavaScript
-- for autocannon), counts responses by outcome, and prints one JSON line.
--
-- Arguments after `--`: a cap on responses (the run stops there even if its
-- duration has not passed), the pattern, a nonce, then pattern parameters:
--   recurring <nonce> <keys>
--   scan      <nonce>
--   hot       <nonce>
--   fixed     <nonce> <key>
--   zipf      <nonce> <keys> <exponent> <overRanks>

local threads = {}

-- request.cf of the three simulated regions (bench/workers/planet.ts: A, B, C).
CF = {
  '{"colo":"IAD","continent":"NA","country":"US"}',
  '{"colo":"FRA","continent":"EU","country":"DE"}',
  '{"colo":"SIN","continent":"AS","country":"SG"}',
}

function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_id", #threads)
end

function init(args)
  max_responses = tonumber(table.remove(args, 1))
  pattern = args[1]
  nonce = args[2]
  -- Deterministic per thread, different across threads and rounds.
  local seed = thread_id * 7919
  for i = 1, #nonce do seed = (seed * 31 + string.byte(nonce, i)) % 2147483647 end
  math.randomseed(seed)
  seq = 0
  ok, limited, failopen, other = 0, 0, 0, 0
  if pattern == "recurring" then
    keys = tonumber(args[3])
  elseif pattern == "fixed" then
    fixed_key = args[3]
  elseif pattern == "zipf" then
    keys = tonumber(args[3])
    local exponent = tonumber(args[4])
    over_ranks = tonumber(args[5])
    -- Cumulative distribution over ranks 1..keys, sampled by bisection.
    cdf = {}
    local total = 0
    for r = 1, keys do total = total + r ^ -exponent; cdf[r] = total end
    for r = 1, keys do cdf[r] = cdf[r] / total end
  end
end

local function zipf_rank()
  local u = math.random()
  local lo, hi = 1, keys
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if cdf[mid] < u then lo = mid + 1 else hi = mid end
  end
  return lo
end

function request()
  seq = seq + 1
  local key
  if pattern == "recurring" then
    key = "r-" .. math.random(keys)
  elseif pattern == "scan" then
    key = "scan-" .. nonce .. "-" .. thread_id .. "-" .. seq
  elseif pattern == "hot" then
    key = "hot-" .. nonce
  elseif pattern == "fixed" then
    key = fixed_key
  else
    local rank = zipf_rank()
    key = (rank <= over_ranks and "over-" or "user-") .. rank
  end
  -- Production's shape: every request carries request.cf, from one of three colos in three regions in turn (the planet of
  -- bench/workers/planet.ts; floodgate's workerd reads it from this header, BENCH_REGION=cf adds the distances).
  return wrk.format("GET", nil, { ["x-api-key"] = key, ["cf-blob"] = CF[(seq % 3) + 1] })
end

function response(status, headers, body)
  if status == 200 then
    -- floodgate marks requests it let through unchecked (FAILURE_MODE=open).
    if headers["x-ratelimit-decision"] or headers["X-RateLimit-Decision"] then
      failopen = failopen + 1
    else
      ok = ok + 1
    end
  elseif status == 429 then
    limited = limited + 1
  else
    other = other + 1
  end
  if ok + limited + failopen + other >= max_responses then wrk.thread:stop() end
end

function done(summary, latency, requests)
  local counts = { ok = 0, limited = 0, failopen = 0, other = 0 }
  for _, thread in ipairs(threads) do
    for name, _ in pairs(counts) do counts[name] = counts[name] + thread:get(name) end
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"ok":%d,"limited":%d,"failopen":%d,"other":%d,"socket_errors":%d,"timeouts":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    counts.ok, counts.limited, counts.failopen, counts.other,
    e.connect + e.read + e.write, e.timeout))
end
