-- Expressions print their values; statements print nothing.
6 * 7
1, "two", nil, {3}
x = 5
x
_
-- Traces and entities in one line; durations in human units.
t
traces[2]
t:entity("4007")
t:time_in()
t:entity("4007"):time_in("0.5s", "1s")
t:entity("4007"):at("1s")
t.states[1]
t:intervals{entities = {"4007"}, from = "1s", to = "1.1s"}()
-- Nesting and length caps.
{a = {b = {c = {d = {e = 1}}}}}
(function() local r = {} for i = 1, 45 do r[i] = i end return r end)()
(function() local r = {} r.self = r return r end)()
"quote\"d\n"
-- Several lines make one statement when the first is incomplete.
for i = 1, 3 do
  io.write(i, " ")
end
print()
function f(a,
           b)
  return a + b
end
f(2, 3)
-- An error prints on stderr; the session goes on.
error("boom")
nil + 1
y = = 1
x + 1
-- help() and help(name) come from lua/help.lua.
help(t.count_at)
help("json.encode")
help("nothing")
help
statemap.format_ns
