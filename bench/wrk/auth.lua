-- GET with the bearer token (restis); the URL carries the command. TOKEN from the environment.
local token = os.getenv("TOKEN")
if token and token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end
