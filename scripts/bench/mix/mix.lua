-- wrk's side of `npm run bench -- --mix` (scripts/bench/mix/): GET requests over the URLs of the
-- file named by BENCH_MIX_TABLE, picked by popularity with the alias method (one line per URL:
-- "probability alias path"). Requests are formatted once, so a pick costs two random numbers.
local requests = {}
local probability = {}
local alias = {}
local count = 0

function init(args)
  math.randomseed(42)
  -- The answers vary on Accept: the same one as the bench's first reading of every URL.
  wrk.headers["Accept"] = "application/json"
  for line in io.lines(os.getenv("BENCH_MIX_TABLE")) do
    local p, a, path = line:match("^(%S+) (%S+) (.+)$")
    count = count + 1
    probability[count] = tonumber(p)
    alias[count] = tonumber(a)
    requests[count] = wrk.format("GET", path)
  end
end

function request()
  local i = math.random(count)
  if math.random() >= probability[i] then
    i = alias[i]
  end
  return requests[i]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('BENCH {"requests":%d,"rps":%.1f,"p50":%.3f,"p99":%.3f,"non2xx":%d,"errors":%d,"bytes":%d}\n',
    summary.requests, summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, e.status, e.connect + e.read + e.write + e.timeout, summary.bytes))
end
