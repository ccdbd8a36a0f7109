local function inner(t)
	return t.field.subfield
end
inner({})
