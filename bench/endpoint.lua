-- wrk script for `make bench`: one request, repeated. The method comes from BENCH_METHOD,
-- the path from the URL given to wrk, a body (if any) from the file BENCH_BODY_FILE with
-- BENCH_CONTENT_TYPE. `done` prints one JSON line with the latency percentiles (ms), the
-- request count, the seconds run and the non-2xx/3xx answers.
local method = os.getenv("BENCH_METHOD") or "GET"
local body_file = os.getenv("BENCH_BODY_FILE")
local content_type = os.getenv("BENCH_CONTENT_TYPE")

wrk.method = method
if body_file and body_file ~= "" then
  local f = assert(io.open(body_file, "rb"))
  wrk.body = f:read("*a")
  f:close()
end
if content_type and content_type ~= "" then
  wrk.headers["Content-Type"] = content_type
end
-- The MCP endpoint (Streamable HTTP) wants both; the others ignore it.
wrk.headers["Accept"] = "application/json, text/event-stream"

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK-RESULT {"requests": %d, "seconds": %.3f, "non_2xx": %d, ' ..
    '"errors": {"connect": %d, "read": %d, "write": %d, "timeout": %d}, ' ..
    '"latency_ms": {"p50": %.2f, "p95": %.2f, "p99": %.2f, "mean": %.2f, "max": %.2f}}\n',
    summary.requests, summary.duration / 1e6, e.status,
    e.connect, e.read, e.write, e.timeout,
    latency:percentile(50) / 1000, latency:percentile(95) / 1000, latency:percentile(99) / 1000,
    latency.mean / 1000, latency.max / 1000))
end
