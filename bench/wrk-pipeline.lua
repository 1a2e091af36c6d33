-- Pipelined requests: DEPTH GETs of one path sent together on each connection, answered in order.
--   wrk -t2 -c64 -d5s -s bench/wrk-pipeline.lua http://127.0.0.1:PORT -- PATH DEPTH
init = function(args)
  local batch = {}
  for i = 1, tonumber(args[2]) do batch[i] = wrk.format("GET", args[1]) end
  pipelined = table.concat(batch)
end

request = function() return pipelined end
