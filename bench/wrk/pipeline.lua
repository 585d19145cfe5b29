-- POST /pipeline with 100 GETs (restis). TOKEN from the environment.
local token = os.getenv("TOKEN")
local n = tonumber(os.getenv("COMMANDS") or "100")
local parts = {}
for i = 1, n do parts[i] = '["GET","foo"]' end
wrk.method = "POST"
wrk.path = "/pipeline"
wrk.body = "[" .. table.concat(parts, ",") .. "]"
wrk.headers["Content-Type"] = "application/json"
if token and token ~= "" then wrk.headers["Authorization"] = "Bearer " .. token end
