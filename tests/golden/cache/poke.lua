-- poke.lua CACHEFILE HOW: damages a cache file the way a test asks.
--   state     a valid but different state for entity 0's first transition
--   badstate  state 65535 there;  backwards  times that go backwards
--   offsets   a column offset far past the end;  truncate  half the file
--   meta      one byte of the names changed (the hash no longer matches)
local path, how = arg[1], arg[2]
local f = assert(io.open(path, "rb"))
local s = f:read("a")
f:close()
local function u64(at) return (string.unpack("<I8", s, at + 1)) end
local function put(at, bytes) s = s:sub(1, at) .. bytes .. s:sub(at + 1 + #bytes) end
local meta_off, cols_off = u64(64), u64(88)
local count, time_off, state_off = u64(cols_off), u64(cols_off + 8), u64(cols_off + 16)
if how == "state" then
	local st = string.unpack("<I2", s, state_off + 1)
	put(state_off, string.pack("<I2", (st + 1) % 2))
elseif how == "badstate" then
	put(state_off, string.pack("<I2", 65535))
elseif how == "backwards" then
	put(time_off + 8, string.pack("<I8", 0))
	put(time_off, string.pack("<I8", 1 << 40))
elseif how == "offsets" then
	put(cols_off + 8, string.pack("<I8", 1 << 60))
elseif how == "truncate" then
	s = s:sub(1, #s // 2)
elseif how == "meta" then
	put(meta_off + 8, "X")
end
assert(count > 1)
f = assert(io.open(path, "wb"))
f:write(s)
f:close()
