-- edit.lua TRACE: changes one state digit near the middle of a trace, in
-- place: the same file, the same size, and the first and last 64 KiB
-- untouched.
local f = assert(io.open(arg[1], "r+b"))
local s = f:read("a")
local at = assert(s:find('"state": [0-4]}', #s // 2))
f:seek("set", at + 8)
f:write(string.char(s:byte(at + 9) + 1))
f:close()
