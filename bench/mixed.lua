-- wrk script: mixed traffic over pages, API search, similar cases, log matching and MCP calls
-- (search, get, similar, match_log), from two kinds of client:
--   * one noisy client (no X-Forwarded-For: 127.0.0.1 itself), which the per-client limits
--     must stop with 429 + Retry-After, its MCP calls as its API requests;
--   * many light clients, each request from an address of its own (X-Forwarded-For, which
--     the app takes as from one proxy in front only when told: API_NUM_PROXIES=1 in the load
--     test), which the limits let through, so that real search, similar and match work runs
--     under the load.
-- Counts every status, every 429 that lacks Retry-After, and each MCP call's answers by its
-- JSON-RPC id: "ok", "refused" (429: over the client's rate, as the API's 429s) or "error"
-- (any other answer with "isError": true or an "error" object);
-- `done` prints one JSON line. A thread's first good answer of each MCP call is also printed
-- at once ("WRK-MCP-OK 13"), so that a caller can end the load (SIGINT: wrk then reports as
-- at its set end) once every call has been answered, however slowly a busy machine answers. Requests are formatted per call: only then does wrk know the
-- Host header, and each light client needs its own address.
local kinds = {}
local function add(method, path, body, content_type)
  table.insert(kinds, {method = method, path = path, body = body, content_type = content_type})
end

local function mcp_call(id, name, arguments)
  add("POST", "/mcp", string.format(
    '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s}}',
    id, name, arguments), "application/json")
end

local counter = 0
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_id", #threads)
end

function init(args)
  statuses = {}
  missing_retry_after = 0
  mcp = {}
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
  mcp_call(11, "search_incidents", '{"query":"allreduce hangs after adding nodes"}')
  mcp_call(12, "get_incident", '{"id":"IL-0428"}')
  mcp_call(13, "similar_incidents", '{"id":"IL-0430","limit":5}')
  mcp_call(14, "match_log", '{"text":"NCCL WARN Timeout: watchdog caught collective operation timeout\\nNVRM: Xid (PCI:0000:87:00): 79, GPU has fallen off the bus."}')
  add("POST", "/api/match",
      '{"text":"[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 1800000 milliseconds before timing out.\\nNVRM: Xid (PCI:0000:87:00): 79, GPU has fallen off the bus."}',
      "application/json")
end

function request()
  counter = counter + 1
  local kind = kinds[(counter % #kinds) + 1]
  local headers = {Host = wrk.host .. ":" .. wrk.port}
  if kind.content_type then headers["Content-Type"] = kind.content_type end
  if kind.path == "/mcp" then headers["Accept"] = "application/json, text/event-stream" end
  -- Every other round of the kinds comes from light clients, one address per request.
  if math.floor(counter / #kinds) % 2 == 1 then
    headers["X-Forwarded-For"] = string.format("10.%d.%d.%d", thread_id, math.floor(counter / 250) % 250,
      counter % 250 + 1)
  end
  return wrk.format(kind.method, kind.path, headers, kind.body)
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if status == 429 and headers["Retry-After"] == nil and headers["retry-after"] == nil then
    missing_retry_after = missing_retry_after + 1
  end
  if body and body:find('"jsonrpc"', 1, true) then
    -- Flat keys ("13 ok"): wrk's thread:get copies only flat tables (nested ones crash it).
    local id = body:match('"id"%s*:%s*(%d+)') or "none"
    local failed = status ~= 200 or body:find('"isError"%s*:%s*true') or body:find('"error"%s*:%s*{')
    local outcome = (status == 429 and "refused") or (failed and "error") or "ok"
    local key = id .. " " .. outcome
    if outcome == "ok" and mcp[key] == nil then
      io.write("WRK-MCP-OK " .. id .. "\n")
      io.flush()
    end
    mcp[key] = (mcp[key] or 0) + 1
  end
end

function done(summary, latency, requests)
  local total = {}
  local missing = 0
  local calls = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("statuses")) do
      total[tostring(status)] = (total[tostring(status)] or 0) + n
    end
    missing = missing + thread:get("missing_retry_after")
    for key, n in pairs(thread:get("mcp")) do
      local id, outcome = key:match("^(%S+) (%a+)$")
      local sum = calls[id] or {ok = 0, refused = 0, error = 0}
      sum[outcome] = sum[outcome] + n
      calls[id] = sum
    end
  end
  local parts = {}
  for status, n in pairs(total) do table.insert(parts, string.format('"%s": %d', status, n)) end
  local mcp_parts = {}
  for id, sum in pairs(calls) do
    table.insert(mcp_parts, string.format('"%s": {"ok": %d, "refused": %d, "error": %d}', id, sum.ok,
      sum.refused, sum.error))
  end
  local e = summary.errors
  io.write(string.format(
    'WRK-RESULT {"requests": %d, "statuses": {%s}, "missing_retry_after": %d, "mcp": {%s}, ' ..
    '"errors": {"connect": %d, "read": %d, "write": %d, "timeout": %d}, ' ..
    '"latency_ms": {"p50": %.1f, "p99": %.1f}}\n',
    summary.requests, table.concat(parts, ", "), missing, table.concat(mcp_parts, ", "),
    e.connect, e.read, e.write, e.timeout,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
