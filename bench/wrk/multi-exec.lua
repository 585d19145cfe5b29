-- POST /multi-exec with 10 INCRs (restis). TOKEN from the environment.
local token = os.getenv("TOKEN")
local n = tonumber(os.getenv("COMMANDS") or "10")
local parts = {}
for i = 1, n do parts[i] = '["INCR","counter"]' end
wrk.method = "POST"
wrk.path = "/multi-exec"
wrk.body = "[" .. table.concat(parts, ",") .. "]"
wrk.headers["Content-Type"] = "application/json"
if token and token ~= "" then wrk.headers["Authorization"] = "Bearer " .. token end
