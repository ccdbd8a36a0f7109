-- poke.lua CACHEFILE HOW: damages a cache file the way a test asks (its
-- checksum is left as it was, so each is also a checksum test).
--   flip      one bit of a time in entity 0's column (a flipped bit on disk)
--   badstate  state 65535 for entity 0's first transition
--   backwards times that go backwards
--   offsets   a column offset far past the end;  truncate  half the file
--   meta      one byte of the names changed
-- Offsets are those of src/store/cache_internal.h's header: meta_off at 104,
-- cols_off at 120; a column descriptor is count, time_off, state_off, tag_off.
local path, how = arg[1], arg[2]
local f = assert(io.open(path, "rb"))
local s = f:read("a")
f:close()
local function u64(at) return (string.unpack("<I8", s, at + 1)) end
local function put(at, bytes) s = s:sub(1, at) .. bytes .. s:sub(at + 1 + #bytes) end
local meta_off, cols_off = u64(104), u64(120)
local count, time_off, state_off = u64(cols_off), u64(cols_off + 8), u64(cols_off + 16)
assert(count > 3)
if how == "flip" then
	put(time_off + 24, string.char(s:byte(time_off + 25) ~ 1))
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
else
	error("poke.lua: no such damage: " .. how)
end
f = assert(io.open(path, "wb"))
f:write(s)
f:close()
