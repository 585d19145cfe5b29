-- POST /pipeline with COMMANDS GETs of keys k0 … k(COMMANDS-1): on a cluster they spread over
-- every master (the pipeline is split per node). TOKEN from the environment.
local token = os.getenv("TOKEN")
local n = tonumber(os.getenv("COMMANDS") or "100")
local parts = {}
for i = 1, n do parts[i] = '["GET","k' .. (i - 1) .. '"]' end
wrk.method = "POST"
wrk.path = "/pipeline"
wrk.body = "[" .. table.concat(parts, ",") .. "]"
wrk.headers["Content-Type"] = "application/json"
if token and token ~= "" then wrk.headers["Authorization"] = "Bearer " .. token end
