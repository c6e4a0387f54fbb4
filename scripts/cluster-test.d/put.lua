-- wrk: each connection PUTs new documents back to back (scripts/cluster-test.d/throughput.py).
-- Arguments: an id prefix of this wrk process, the write key.
local counter = 0
local prefix, key

function init(args)
  prefix, key = args[1], args[2]
end

function request()
  counter = counter + 1
  local id = prefix .. "-" .. counter
  return wrk.format("PUT", "/documents/" .. id,
    { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" },
    '{"name":"Throughput ' .. id .. '","attributes":{"countryCode":"FR"}}')
end
