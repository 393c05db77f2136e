-- wrk script: mixed traffic over pages, API search, similar cases, MCP calls and log matching.
-- Counts every status and every 429 that lacks Retry-After; `done` prints one JSON line.
-- Requests are formatted in init(): only then does wrk know the Host header to send.
local requests = {}
local function add(method, path, body, content_type)
  local headers = {Host = wrk.host .. ":" .. wrk.port}
  if content_type then headers["Content-Type"] = content_type end
  if path == "/mcp" then headers["Accept"] = "application/json, text/event-stream" end
  table.insert(requests, wrk.format(method, path, headers, body))
end

local counter = 0
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  statuses = {}
  missing_retry_after = 0
  add("GET", "/")
  add("GET", "/cases/?q=nccl+timeout")
  add("GET", "/cases/IL-0428")
  add("GET", "/cases/?symptom=nccl-timeout&topic=training")
  add("GET", "/api/cases/?q=watchdog+timeout+after+node+replacement")
  add("GET", "/api/cases/IL-0428")
  add("GET", "/api/cases/IL-0430/similar")
  add("GET", "/api/vocab/")
  add("GET", "/stats")
  add("GET", "/healthz")
  add("POST", "/mcp",
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_incidents","arguments":{"query":"allreduce hangs after adding nodes"}}}',
      "application/json")
  add("POST", "/mcp",
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_incident","arguments":{"id":"IL-0428"}}}',
      "application/json")
  add("POST", "/api/match",
      '{"text":"[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 1800000 milliseconds before timing out.\\nNVRM: Xid (PCI:0000:87:00): 79, GPU has fallen off the bus."}',
      "application/json")
end

function request()
  counter = counter + 1
  return requests[(counter % #requests) + 1]
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if status == 429 and headers["Retry-After"] == nil and headers["retry-after"] == nil then
    missing_retry_after = missing_retry_after + 1
  end
end

function done(summary, latency, requests)
  local total = {}
  local missing = 0
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("statuses")) do
      total[tostring(status)] = (total[tostring(status)] or 0) + n
    end
    missing = missing + thread:get("missing_retry_after")
  end
  local parts = {}
  for status, n in pairs(total) do table.insert(parts, string.format('"%s": %d', status, n)) end
  local e = summary.errors
  io.write(string.format(
    'WRK-RESULT {"requests": %d, "statuses": {%s}, "missing_retry_after": %d, ' ..
    '"errors": {"connect": %d, "read": %d, "write": %d, "timeout": %d}, ' ..
    '"latency_ms": {"p50": %.1f, "p99": %.1f}}\n',
    summary.requests, table.concat(parts, ", "), missing,
    e.connect, e.read, e.write, e.timeout,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
