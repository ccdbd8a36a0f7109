#!/bin/sh
# Names from a trace shown in a real browser: the SVG with hostile names
# (tests/golden/svg-escape) is loaded by headless Chromium and its live
# DOM is checked: the only script elements are our inert data block and
# the viewer, and each name is present as text, not as markup.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {
	if [ "$2" = yes ]; then echo "PASS browser: $1"; else echo "FAIL browser: $1"; fi
}
"$SM" -o "$tmp/esc.svg" ../golden/svg-escape/input.out 2>/dev/null
timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update \
    --disable-sync --user-data-dir="$tmp/profile" --dump-dom \
    "file://$tmp/esc.svg" > "$tmp/dom" 2>/dev/null
check "the SVG loads" "$(grep -q 'statemap-title' "$tmp/dom" && echo yes)"
check "two script elements, the inert data and the viewer" \
    "$([ "$(grep -o '<script' "$tmp/dom" | wc -l)" = 2 ] && grep -q '<script type="application/json" id="statemap-data"' "$tmp/dom" && grep -q '<script type="text/javascript" id="statemap-viewer"' "$tmp/dom" && echo yes)"
check "no element injected by a name" \
    "$(grep -q -e '<b>' -e '<script>alert' "$tmp/dom" || echo yes)"
check "a name with </script> is text" \
    "$(grep -q '&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;' "$tmp/dom" && echo yes)"
check "a title with markup is text" \
    "$(grep -q 'Statemap of &lt;b&gt;&amp;' "$tmp/dom" && echo yes)"
check "a name with quotes and & is text" \
    "$(grep -q "a\"b'c&amp;d" "$tmp/dom" && echo yes)"
