/*
 * viewer_paint.js: colours and the painted strips.  A rectangle's colour
 * as the SVG draws it (its states' colours blended by time, or a value's
 * colour); a canvas under each statemap's rows, and paint(), which fills
 * it from the rows' rectangles over the drawn range, each pixel column
 * the blend of what covers it.
 *
 *   viewerPaint(sv) -> { paint, rgbOf, valueRgb, stringRgb, parseColor,
 *       pixelWord }
 *   from sv: doc, maps, W, drawn, timing, el, firstFrom; calls fadeOf
 */
function viewerPaint(sv) {
	const XHTMLNS = 'http://www.w3.org/1999/xhtml';
	const doc = sv.doc, maps = sv.maps, W = sv.W, drawn = sv.drawn, timing = sv.timing;
	const el = sv.el, firstFrom = sv.firstFrom;

	/* A canvas of no page, to read colours as CSS reads them. */
	const probe = doc.createElementNS(XHTMLNS, 'canvas').getContext('2d');

	/* A colour as #rrggbb or rgb(r, g, b): [r, g, b], or null. */
	function parseColor(c) {
		let m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(c || '');
		if (m)
			return [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)];
		m = /^rgba?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)/.exec(c || '');
		return m ? [+m[1], +m[2], +m[3]] : null;
	}

	/* Each state's colour as the SVG drew it: its legend swatch's fill. */
	function stateColors(m) {
		if (m.rgb)
			return m.rgb;
		m.rgb = m.json.states.map(function (st, s) {
			const sw = doc.getElementById('statemap-legend-' + m.legend + '-' + s);
			let c = sw ? parseColor(sw.style.fill) : null;
			if (c === null && probe) {
				probe.fillStyle = '#808080';
				probe.fillStyle = String(st.color);
				c = parseColor(probe.fillStyle);
			}
			return c || [128, 128, 128];
		});
		return m.rgb;
	}

	/*
	 * A rectangle's colour: its states' colours blended by time, as the
	 * SVG's (color_blend in src/base/color.c: from the state with the most
	 * time, each other mixed in by its share, in state order).
	 */
	function rgbOf(m, r) {
		if (r.rgb_)
			return r.rgb_;
		if (!r.states)
			return (r.rgb_ = valueRgb(r));
		const cols = stateColors(m), idx = [];
		const names = Object.keys(r.states);
		if (names.length === 1 && m.stateIndex.has(names[0]))
			return (r.rgb_ = cols[m.stateIndex.get(names[0])]);
		let total = 0;
		for (const name in r.states) {
			const s = m.stateIndex.get(name);
			if (s !== undefined && r.states[name] > 0) {
				idx.push(s);
				total += r.states[name];
			}
		}
		if (idx.length === 0)
			return (r.rgb_ = [128, 128, 128]);
		idx.sort(function (a, b) { return a - b; });
		const time = function (s) { return r.states[m.json.states[s].name]; };
		let max = 0;
		for (let i = 1; i < idx.length; i++) {
			if (time(idx[i]) > time(idx[max]))
				max = i;
		}
		const c = cols[idx[max]].slice();
		for (let i = 0; i < idx.length; i++) {
			if (i === max)
				continue;
			const ratio = time(idx[i]) / total, o = cols[idx[i]];
			for (let k = 0; k < 3; k++)
				c[k] = c[k] * (1 - ratio) + o[k] * ratio;
		}
		return (r.rgb_ = c.map(function (v) { return Math.min(255, Math.max(0, Math.floor(v + 0.5))); }));
	}

	/* The colour of a rectangle of a value entity, as src/output/valuesvg.c draws it. */
	function valueRgb(r) {
		if (typeof r.min === 'number')
			return r.min === r.max ? [0x3b, 0x6f, 0xb6] : [0x86, 0xa9, 0xda];
		const ss = Object.keys(r.strings || {});
		if (ss.length === 0)
			return [235, 235, 235];
		ss.sort(function (a, b) { return r.strings[b] - r.strings[a]; });
		return stringRgb(ss[0]);
	}

	/* FNV-1a over the string's UTF-8 bytes, its hue from that (valuesvg.c). */
	function stringRgb(s) {
		const bytes = new TextEncoder().encode(s);
		let h = 2166136261;
		for (const b of bytes)
			h = Math.imul(h ^ b, 16777619) >>> 0;
		const hue = (h % 360) / 60, c = 0.55, x = c * (1 - Math.abs(hue % 2 - 1));
		const rgb = [[c, x, 0], [x, c, 0], [0, c, x], [0, x, c], [x, 0, c], [c, 0, x]][Math.min(5, Math.floor(hue))];
		return rgb.map(function (v) { return Math.floor((v + 0.3) * 255); });
	}

	/*
	 * A canvas under each statemap's rows, in the strips' coordinates
	 * (foreignObject), one pixel row per entity stretched to the strip's
	 * height.  The SVG's rectangles go (the canvas paints level 0 too),
	 * but each row keeps an invisible rectangle that brings up its
	 * tooltip.
	 */
	function ensureCanvas(m) {
		if (m.canvas)
			return;
		const fo = el('foreignObject', { x: 0, y: 0, width: W, height: m.h, class: 'statemap-strips' });
		const c = doc.createElementNS(XHTMLNS, 'canvas');
		c.setAttribute('class', 'statemap-strips-canvas');
		fo.appendChild(c);
		m.svg.insertBefore(fo, m.svg.firstChild);
		m.groups.forEach(function (g, k) {
			const keep = Array.prototype.filter.call(g.childNodes, function (c) {
				return c.nodeName !== 'rect';
			});
			keep.push(el('rect', { class: 'statemap-hit', x: 0, y: k * m.h0, width: W,
			    height: m.h0 }));
			g.replaceChildren.apply(g, keep);
		});
		m.svg.classList.add('statemap-canvas');
		m.canvas = c;
		m.ctx = c.getContext('2d');
	}

	/* Pixels as 32-bit words: which byte of one holds red. */
	const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

	function pixelWord(r, g, b, a) {
		return littleEndian ? ((a << 24) | (b << 16) | (g << 8) | r) >>> 0 :
		    ((r << 24) | (g << 16) | (b << 8) | a) >>> 0;
	}

	/*
	 * Paints the rows' rectangles over drawn.range: each pixel column of
	 * a row is the blend of what covers it, weighted by how much of the
	 * column each covers (and by its opacity under a selection), as the
	 * PNG renderer does: no seams, and a column partly without data
	 * fades onto the no-data hatch beneath.  Rectangles come in time
	 * order, so a column is shared only by the ends of neighbours: those
	 * are summed, and the whole columns between are filled at once.
	 */
	function paint() {
		const started = performance.now();
		const range = drawn.range, cw = drawn.px, sc = cw / range.w;
		const lo = range.t0, hi = range.t0 + range.w;
		maps.forEach(function (m) {
			ensureCanvas(m);
			const nrows = Math.max(m.nslots, 1);
			if (m.canvas.width !== cw)
				m.canvas.width = cw;
			if (m.canvas.height !== nrows)
				m.canvas.height = nrows;
			if (!m.img || m.img.width !== cw || m.img.height !== nrows) {
				m.img = m.ctx.createImageData(cw, nrows);
				m.words = new Uint32Array(m.img.data.buffer);
			} else {
				m.words.fill(0);
			}
			const words = m.words, b = m.json.begin;
			m.rows.forEach(function (row, k) {
				if (row.slot < 0)
					return;
				const rs = row.rects, base = row.slot * cw;
				/* The column being summed: its index, colour and cover. */
				let at = -1, sr = 0, sg = 0, sb = 0, sw = 0;
				const flush = function () {
					if (at >= 0 && sw > 0)
						words[base + at] = pixelWord(Math.round(sr / sw), Math.round(sg / sw),
						    Math.round(sb / sw), Math.round(Math.min(sw, 1) * 255));
					at = -1;
					sr = sg = sb = sw = 0;
				};
				const add = function (p, c, w) {
					if (p !== at) {
						flush();
						at = p;
					}
					sr += c[0] * w;
					sg += c[1] * w;
					sb += c[2] * w;
					sw += w;
				};
				for (let i = firstFrom(rs, b + lo); i < rs.length; i++) {
					const r = rs[i], off = r.start - b;
					if (off >= hi)
						break;
					let x0 = (off - lo) * sc, x1 = (off + r.duration - lo) * sc;
					if (x0 < 0)
						x0 = 0;
					if (x1 > cw)
						x1 = cw;
					if (x1 <= x0)
						continue;
					const c = rgbOf(m, r), a = sv.fadeOf(m, r);
					const p0 = Math.floor(x0), p1 = Math.floor(x1);
					if (p0 === p1 || (p1 === p0 + 1 && x1 === p1)) {
						add(p0, c, (x1 - x0) * a);
						continue;
					}
					add(p0, c, (p0 + 1 - x0) * a);
					flush();
					if (p1 > p0 + 1)
						words.fill(pixelWord(c[0], c[1], c[2], Math.round(a * 255)),
						    base + p0 + 1, base + p1);
					if (x1 > p1)
						add(p1, c, (x1 - p1) * a);
				}
				flush();
			});
			m.ctx.putImageData(m.img, 0, 0);
		});
		timing.paint = performance.now() - started;
	}

	return { paint: paint, rgbOf: rgbOf, valueRgb: valueRgb, stringRgb: stringRgb,
	    parseColor: parseColor, pixelWord: pixelWord };
}
