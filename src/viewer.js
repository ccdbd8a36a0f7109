/*
 * viewer.js: the interactive statemap viewer, embedded at the end of the
 * SVG that statemap-lua writes (src/svg.c) and run when the document has
 * been parsed.  The static picture is complete without it; this adds
 * zoom and pan, a time bar with details of the clicked rectangle, state
 * selection (several with shift), tag values highlighted across entities,
 * events (thin ticks when dense), search, and a layout that fits the
 * window.
 *
 * Every string from the trace reaches the page through textContent or
 * setAttribute, never through markup.  Zooming only changes the viewBox
 * of each statemap's <svg>; clicks look rectangles up by binary search in
 * the embedded data, so neither walks the DOM.
 */
(function () {
	'use strict';

	const SVGNS = 'http://www.w3.org/2000/svg';
	const XHTMLNS = 'http://www.w3.org/1999/xhtml';
	const PANEL_WIDTH = 330;
	const MAX_ZOOM = 1e4;	/* float precision of the drawing, see fixRects */
	const LINE = 14;

	const doc = document;
	const root = doc.documentElement;
	const data = JSON.parse(doc.getElementById('statemap-data').textContent);
	const span = Math.max(Number(root.getAttribute('data-span')) || 1, 1);

	/* ---- small helpers ---- */

	function el(name, attrs, parent) {
		const e = doc.createElementNS(SVGNS, name);
		for (const k in attrs)
			e.setAttribute(k, attrs[k]);
		if (parent)
			parent.appendChild(e);
		return e;
	}

	function text(parent, x, y, str, cls) {
		const t = el('text', { x: x, y: y }, parent);
		t.setAttribute('class', 'statemap-viewer-text' + (cls ? ' ' + cls : ''));
		t.textContent = str;
		return t;
	}

	function clear(node) {
		while (node.firstChild)
			node.removeChild(node.firstChild);
	}

	/* A time in ns as the original shows it: 3 decimals in the largest unit. */
	function fmt(ns) {
		const a = Math.abs(ns), sign = ns < 0 ? '-' : '';
		/* Units by the rounded value, so 999999.9996ns is 1.000ms. */
		for (const u of [[1e9, 's'], [1e6, 'ms'], [1e3, 'μs']]) {
			if (a >= u[0] - u[0] / 2e3)
				return sign + (a / u[0]).toFixed(3) + u[1];
		}
		return sign + Math.round(a) + 'ns';
	}

	/*
	 * A point in time, with as many decimals as the view resolves (a
	 * thousandth of the visible span), at least 3: zoomed to 2ms around
	 * 1.075s, times read 1.075016s rather than 1.075s.
	 */
	function fmtAt(ns) {
		const a = Math.abs(ns), sign = ns < 0 ? '-' : '';
		const res = Math.max(view.w / 1e3, 1);
		for (const u of [[1e9, 's'], [1e6, 'ms'], [1e3, 'μs']]) {
			if (a >= u[0] - u[0] / 2e3) {
				const dec = Math.min(Math.max(3, Math.ceil(Math.log10(u[0] / res) - 1e-9)), 9);
				return sign + (a / u[0]).toFixed(dec) + u[1];
			}
		}
		return sign + Math.round(a) + 'ns';
	}

	/* Seconds since the epoch of a time relative to a metadata start. */
	function epoch(start, rel) {
		const ns = start[1] + Math.round(rel);
		const carry = Math.floor(ns / 1e9);
		const frac = String(ns - carry * 1e9);
		return (start[0] + carry) + '.' + '000000000'.slice(frac.length) + frac;
	}

	function parseDuration(s) {
		const m = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ns|us|μs|ms|s|sec)?\s*$/.exec(s);
		if (!m)
			return NaN;
		const unit = { ns: 1, us: 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, sec: 1e9 };
		return parseFloat(m[1]) * unit[m[2] || 'ns'];
	}

	function truncate(s, n) {
		return s.length > n ? s.slice(0, n - 1) + '…' : s;
	}

	/* The state with the most time in a rectangle. */
	function mainState(rect) {
		let best = null, bt = -1;
		for (const s in rect.states) {
			if (rect.states[s] > bt) {
				best = s;
				bt = rect.states[s];
			}
		}
		return best;
	}

	/* ---- the document's layout and the data, per statemap ---- */

	const maps = [];
	let legendOwner = 0;
	data.statemaps.forEach(function (sm, i) {
		const svg = doc.getElementById('statemap-' + i);
		if (!svg)
			return;
		if (doc.getElementById('statemap-legend-' + i + '-0'))
			legendOwner = i;
		const m = {
			index: i, json: sm, svg: svg, legend: legendOwner,
			x: +svg.getAttribute('x'), y: +svg.getAttribute('y'),
			w: +svg.getAttribute('width'), h: +svg.getAttribute('height'),
			rows: [], byName: new Map(), stateIndex: new Map(),
			groups: []
		};
		m.stripH = sm.entities.length > 0 ? m.h / sm.entities.length : 0;
		sm.states.forEach(function (st, k) { m.stateIndex.set(st.name, k); });
		for (const g of svg.children) {
			if (g.tagName === 'g')
				m.groups.push(g);
		}
		sm.entities.forEach(function (e, k) {
			m.rows.push({ map: m, k: k, name: e.name, description: e.description,
			    rects: e.rects });
			m.byName.set(e.name, k);
		});
		svg.setAttribute('preserveAspectRatio', 'none');
		svg.classList.add('statemap-map');
		maps.push(m);
	});
	if (maps.length === 0)
		return;

	const X0 = maps[0].x, W = maps[0].w;
	const lastMap = maps[maps.length - 1];
	const mapsBottom = lastMap.y + lastMap.h;
	const origWidth = root.viewBox.baseVal.width;
	const origHeight = root.viewBox.baseVal.height;
	const allRows = [];
	maps.forEach(function (m) { m.rows.forEach(function (r) { allRows.push(r); }); });

	/* The rectangle of a row holding own time t (binary search), or -1. */
	function rectAt(row, t) {
		const rs = row.rects;
		let lo = 0, hi = rs.length - 1, found = -1;
		while (lo <= hi) {
			const mid = (lo + hi) >> 1;
			if (rs[mid].start <= t) {
				found = mid;
				lo = mid + 1;
			} else {
				hi = mid - 1;
			}
		}
		if (found >= 0 && t < rs[found].start + rs[found].duration)
			return found;
		return -1;
	}

	/* ---- the view: [t0, t0 + w) in ns from the window's begin ---- */

	const view = { t0: 0, w: span };
	const minWidth = Math.max(span / MAX_ZOOM, 1);
	let precise = false;

	function xOf(off) {
		return X0 + (off - view.t0) / view.w * W;
	}

	function offOf(x) {
		return view.t0 + (x - X0) / W * view.w;
	}

	function clampView() {
		view.w = Math.min(Math.max(view.w, minWidth), span);
		view.t0 = Math.min(Math.max(view.t0, 0), span - view.w);
	}

	/* Zooms by factor (< 1 is in) keeping offset `at` where it is. */
	function zoomAt(at, factor) {
		zoomWidth(at, view.w * factor);
	}

	function zoomWidth(at, width) {
		const nw = Math.min(Math.max(width, minWidth), span);
		view.t0 = at - (at - view.t0) * nw / view.w;
		view.w = nw;
		applyView();
	}

	function zoomTo(width) {
		const c = bars.length > 0 ? bars[0] : view.t0 + view.w / 2;
		zoomWidth(c, width);
	}

	function pan(fraction) {
		view.t0 += fraction * view.w;
		applyView();
	}

	/*
	 * The static rectangles have 1/1000 pixel precision and overlap their
	 * right neighbour by 0.4 pixel (against seams), both of which a zoom
	 * magnifies; the first zoom past 8x places them again from the data.
	 * An entity's rectangles are contiguous and drawn left to right, so an
	 * overlap is always painted over by the next one: it can be generous
	 * (half a pixel at 8x), but the last rectangle gets none.
	 */
	function fixRects() {
		precise = true;
		maps.forEach(function (m) {
			m.rows.forEach(function (row, k) {
				const g = m.groups[k];
				if (!g)
					return;
				const rs = g.getElementsByTagName('rect');
				const n = Math.min(rs.length, row.rects.length);
				for (let i = 0; i < n; i++) {
					const r = row.rects[i];
					rs[i].setAttribute('x', (r.start - m.json.begin) / span * W);
					rs[i].setAttribute('width', r.duration / span * W +
					    (i + 1 < n ? 0.06 : 0));
				}
			});
		});
	}

	function applyView() {
		clampView();
		if (!precise && span / view.w > 8)
			fixRects();
		const vx = view.t0 / span * W, vw = view.w / span * W;
		maps.forEach(function (m) {
			m.svg.setAttribute('viewBox', vx + ' 0 ' + vw + ' ' + m.h);
		});
		drawAxis();
		placeEvents();
		drawBars();
		spanLabel();
		/* What the panel says of the visible span, or of events in view. */
		if (selRow || tagSel || (stateSel && stateSel.field && bars.length === 0))
			drawPanel();
	}

	/* ---- time axis and span label ---- */

	const axis = doc.querySelector('.statemap-axis');
	const axisY = axis ? +axis.querySelector('line').getAttribute('y1') : 58;

	function tickStep(w) {
		let step = 1;
		for (;;) {
			for (const k of [1, 2, 5]) {
				if (w / (step * k) <= 10)
					return step * k;
			}
			step *= 10;
		}
	}

	/* Each tick in its own unit, as the static axis: 900ms, 1s, 1.1s. */
	function tickLabel(t, step) {
		const units = [[1e9, 's'], [1e6, 'ms'], [1e3, 'μs'], [1, 'ns']];
		let u = units[3];
		for (const cand of units) {
			if (t >= cand[0]) {
				u = cand;
				break;
			}
		}
		const dec = Math.max(0, Math.ceil(Math.log10(u[0] / step) - 1e-9));
		let s = (t / u[0]).toFixed(dec);
		if (s.indexOf('.') >= 0)
			s = s.replace(/0+$/, '').replace(/\.$/, '');
		return s + u[1];
	}

	function drawAxis() {
		if (!axis)
			return;
		clear(axis);
		el('line', { x1: X0, y1: axisY, x2: X0 + W, y2: axisY, stroke: '#888' }, axis);
		const step = tickStep(view.w);
		const end = view.t0 + view.w;
		/* Ticks by index, so that the float sum never loses the last one. */
		const last = Math.floor(end / step + 1e-9);
		for (let i = Math.ceil(view.t0 / step - 1e-9); i <= last; i++) {
			const t = i * step, x = xOf(t);
			el('line', { x1: x, y1: axisY - 4, x2: x, y2: axisY, stroke: '#888' }, axis);
			const label = text(axis, x, axisY - 6, tickLabel(t, step),
			    'statemap-tick');
			label.setAttribute('text-anchor', 'middle');
		}
	}

	const spanText = doc.getElementById('statemap-timelabel');

	function spanLabel() {
		const first = data.statemaps[0];
		let s = 'span = ' + fmt(view.w);
		if (view.t0 > 0 || view.w < span || first.begin !== 0) {
			const rel = first.begin + view.t0;
			s += '; left edge at ';
			if (first.begin !== 0 && view.t0 > 0)
				s += fmtAt(view.t0) + ' into the window, ';
			s += fmtAt(rel) + ' from start (epoch ' + epoch(first.start, rel) + 's)';
		}
		if (spanText)
			spanText.textContent = s;
	}

	/*
	 * ---- the UI layer and the page's layout ----
	 *
	 * Wide windows get the details panel to the right of the entity
	 * names, following the page as it scrolls.  Narrower ones keep the
	 * drawing's own width (scaled down to fit if the window is narrower
	 * still) and get the panel as a box below the map, in columns; when
	 * the map runs below the window, the box floats over the bottom of the
	 * map instead, and can be folded away.  Nothing ever needs sideways
	 * scrolling.
	 */

	const layer = el('g', { id: 'statemap-viewer' }, root);
	const defs = el('defs', {}, layer);
	const arrow = el('marker', { id: 'statemap-arrow', viewBox: '0 0 6 6', refX: 5,
	    refY: 3, markerWidth: 6, markerHeight: 6, orient: 'auto' }, defs);
	el('path', { d: 'M0,0 L6,3 L0,6 z', class: 'statemap-event-arrowhead' }, arrow);
	const dynStyle = el('style', { type: 'text/css' }, defs);

	const selBox = el('rect', { class: 'statemap-selected-entity', x: X0, width: W,
	    visibility: 'hidden' }, layer);
	const searchHits = el('g', { id: 'statemap-search-hits' }, layer);
	const eventLayer = el('g', { id: 'statemap-events' }, layer);
	const barLayer = el('g', { id: 'statemap-timebars' }, layer);
	const typed = text(layer, X0 + W, 36, '', 'statemap-typed');
	typed.setAttribute('text-anchor', 'end');
	/* The panel's box: a background, a fold control and the lines. */
	const panelBox = el('g', { id: 'statemap-panel-box' }, layer);
	const panelBg = el('rect', { class: 'statemap-panel-bg', rx: 4, x: 0, y: 0 }, panelBox);
	const panelFold = text(panelBox, 0, 0, '', 'statemap-panel-fold');
	panelFold.setAttribute('text-anchor', 'end');
	panelFold.setAttribute('id', 'statemap-panel-fold');
	const panel = el('g', { id: 'statemap-panel', class: 'statemap-panel' }, panelBox);
	/* The map must not take presses or wheels meant for the box over it. */
	panelBox.addEventListener('mousedown', function (ev) { ev.stopPropagation(); });
	panelBox.addEventListener('wheel', function (ev) { ev.stopPropagation(); });
	panelFold.addEventListener('click', function (ev) {
		ev.stopPropagation();
		folded = !folded;
		drawPanel();
	});

	const PAD = 6, COLUMN = 340;
	const TOP = 70;			/* the panel's top when wide */
	const MAXCHARS = 52;		/* characters on a line of the panel */
	const panelLines = [];		/* { t: text element, indent, section } */
	let newSection = false;		/* the next line begins a section */
	const page = { wide: true, scale: 1, width: origWidth + PANEL_WIDTH };
	let folded = false;

	/* The width the page has, without a vertical scroll bar. */
	function available() {
		return doc.documentElement.clientWidth || window.innerWidth || page.width;
	}

	function layout() {
		for (let pass = 0; pass < 2; pass++) {
			const avail = available();
			page.wide = avail >= origWidth + PANEL_WIDTH;
			page.width = page.wide ? origWidth + PANEL_WIDTH : origWidth;
			page.scale = Math.min(1, avail / page.width);
			root.setAttribute('width', page.width * page.scale);
			placePanel();
			/* A scroll bar that came or went changes the width. */
			if (available() === avail)
				break;
		}
	}

	function setHeight(h) {
		const ph = Math.ceil(h);
		if (root.getAttribute('viewBox') !== '0 0 ' + page.width + ' ' + ph)
			root.setAttribute('viewBox', '0 0 ' + page.width + ' ' + ph);
		if (+root.getAttribute('height') !== ph * page.scale)
			root.setAttribute('height', ph * page.scale);
	}

	/*
	 * Lays the panel's lines out (one column when wide, as many as fit
	 * when not) and puts the box where it can be seen.
	 */
	function placePanel() {
		const n = panelLines.length;
		const boxW = page.wide ? PANEL_WIDTH - 12 : origWidth - X0 - 8;
		const cols = page.wide ? 1 : Math.max(1, Math.floor((boxW - PAD) / COLUMN));
		/* Rows per column: enough for the longest section, if not too long. */
		let longest = 0, len = 0;
		panelLines.forEach(function (ln) {
			len = ln.section ? 1 : len + 1;
			longest = Math.max(longest, len);
		});
		const per = page.wide ? n : Math.max(6, Math.ceil(n / cols), Math.min(longest, 14));
		const shown = folded && !page.wide ? 0 : n;
		panel.setAttribute('display', shown > 0 ? 'inline' : 'none');
		/* A section that does not fit the rest of a column starts the next. */
		let col = 0, row = 0, rows = 0;
		panelLines.forEach(function (ln, i) {
			if (ln.section && row > 0 && col < cols - 1) {
				let rest = 1;
				while (i + rest < n && !panelLines[i + rest].section)
					rest++;
				if (row + rest > per) {
					col++;
					row = 0;
				}
			} else if (row >= per && col < cols - 1) {
				col++;
				row = 0;
			}
			ln.t.setAttribute('x', PAD + col * COLUMN + ln.indent);
			ln.t.setAttribute('y', PAD + 11 + row * LINE);
			rows = Math.max(rows, ++row);
		});
		if (shown === 0)
			rows = 0;
		const boxH = 2 * PAD + Math.max(rows, 1) * LINE - (rows > 0 ? 0 : 2);
		panelBg.setAttribute('width', boxW);
		panelBg.setAttribute('height', boxH);
		panelFold.setAttribute('display', page.wide ? 'none' : 'inline');
		panelFold.setAttribute('x', boxW - PAD);
		panelFold.setAttribute('y', PAD + 11);
		panelFold.textContent = folded ? 'show details ▴' : 'hide details ▾';
		panelBox.classList.toggle('statemap-panel-over', !page.wide);

		const scale = page.scale || 1;
		const top = window.scrollY / scale, bottom = (window.scrollY + window.innerHeight) / scale;
		let x, y, need;
		const content = Math.max(origHeight, mapsBottom + 16);
		if (page.wide) {
			/*
			 * Down with the page, but never past the drawing's end: a
			 * canvas that grew with the scroll would scroll further.
			 */
			x = origWidth + 4;
			y = Math.min(TOP + Math.max(0, top - 60), Math.max(TOP, content - boxH - 10));
			need = TOP + boxH + 10;
		} else {
			/* Below the map if it shows there, else over the map's bottom. */
			x = X0;
			const below = mapsBottom + 18;
			y = Math.max(top + 4, Math.min(below, bottom - boxH - 6));
			need = below + boxH + 10;
		}
		panelBox.setAttribute('transform', 'translate(' + x + ',' + y + ')');
		setHeight(Math.max(content, need));
	}
	window.addEventListener('scroll', placePanel);
	window.addEventListener('resize', function () {
		layout();
		drawPanel();
	});

	/* ---- buttons ---- */

	function button(x, y, w, label, title, action) {
		const g = el('g', { class: 'statemap-button', transform: 'translate(' + x + ',' + y + ')' },
		    layer);
		el('rect', { width: w, height: 18, rx: 3 }, g);
		const t = text(g, w / 2, 13, label);
		t.setAttribute('text-anchor', 'middle');
		el('title', {}, g).textContent = title;
		g.addEventListener('click', function (ev) {
			ev.stopPropagation();
			action();
		});
		return g;
	}

	button(8, 24, 24, '+', 'zoom in (+)', function () { zoomAt(view.t0 + view.w / 2, 0.5); })
	    .setAttribute('id', 'statemap-zoomin');
	button(34, 24, 24, '−', 'zoom out (-)', function () { zoomAt(view.t0 + view.w / 2, 2); })
	    .setAttribute('id', 'statemap-zoomout');
	button(60, 24, 24, '◀', 'pan left (←)', function () { pan(-0.25); })
	    .setAttribute('id', 'statemap-panleft');
	button(86, 24, 24, '▶', 'pan right (→)', function () { pan(0.25); })
	    .setAttribute('id', 'statemap-panright');

	/* ---- time bars, entity selection and the details panel ---- */

	const bars = [];		/* offsets in ns; [selected, second] */
	let selRow = null;		/* the selected entity's row */
	let eventSel = null, eventHover = null;
	/* Legend selection: { legend, states: [index], names: [name], field } */
	let stateSel = null;
	/* Tag selection: { field, value, states: [name] } */
	let tagSel = null;

	function drawBars() {
		clear(barLayer);
		bars.forEach(function (off, i) {
			const x = xOf(off);
			if (x < X0 - 0.5 || x > X0 + W + 0.5)
				return;
			el('line', { x1: x, y1: axisY, x2: x, y2: mapsBottom,
			    class: 'statemap-timebar' + (i > 0 ? ' statemap-timebar2' : '') }, barLayer);
			const t = text(barLayer, x, mapsBottom + 11, fmtAt(off),
			    'statemap-timebar-label');
			t.setAttribute('text-anchor', 'middle');
		});
		if (selRow) {
			selBox.setAttribute('y', selRow.map.y + selRow.k * selRow.map.stripH);
			selBox.setAttribute('height', selRow.map.stripH);
			selBox.setAttribute('visibility', 'visible');
		} else {
			selBox.setAttribute('visibility', 'hidden');
		}
		markRelatedEvents();
	}

	/*
	 * A line of the panel: a string, or a list of parts, each a string
	 * or { text, cls, click }: a part with `click` is a control.  A line
	 * too long for the panel (MAXCHARS, or measured) is cut, with the
	 * whole line as its tooltip.  Names reach the page only as text.
	 */
	function line(parts, cls, indent) {
		if (!Array.isArray(parts))
			parts = [parts];
		const t = el('text', { x: 0, y: 0 }, panel);
		t.setAttribute('class', 'statemap-viewer-text' + (cls ? ' ' + cls : ''));
		const whole = parts.map(function (p) { return typeof p === 'string' ? p : p.text; }).join('');
		const width = (page.wide ? PANEL_WIDTH - 12 : COLUMN) - 2 * PAD - (indent || 0);
		let room = MAXCHARS;
		for (;;) {
			fillLine(t, parts, room);
			if (room <= 8 || t.getComputedTextLength() <= width)
				break;
			room -= 3;
		}
		if (whole.length > room)
			el('title', {}, t).textContent = whole;
		panelLines.push({ t: t, indent: indent || 0, section: newSection });
		newSection = false;
		return t;
	}

	/* The next line begins a section, which columns keep together. */
	function section() {
		newSection = true;
	}

	/* The parts of a line in at most room characters. */
	function fillLine(t, parts, room) {
		clear(t);
		for (const p of parts) {
			const s = typeof p === 'string' ? p : p.text;
			if (room <= 0)
				break;
			const shown = s.length > room ? s.slice(0, Math.max(room - 1, 0)) + '…' : s;
			room -= s.length;
			if (typeof p === 'string') {
				t.appendChild(doc.createTextNode(shown));
				continue;
			}
			const span_ = el('tspan', {}, t);
			span_.textContent = shown;
			if (p.cls)
				span_.setAttribute('class', p.cls);
			if (p.click) {
				span_.addEventListener('click', function (ev) {
					ev.stopPropagation();
					p.click();
				});
			}
		}
	}

	function timeLines(label, off, m) {
		const rel = m.json.begin + off;
		line(label + ': ' + fmtAt(off) + (m.json.begin !== 0 ? ' (' + fmtAt(rel) + ' from start)' : ''),
		    'statemap-panel-time');
		line('epoch ' + epoch(m.json.start, rel) + 's', 'statemap-panel-small', 10);
	}

	/*
	 * A tag's value for a field as text, or null if it has none: the tag
	 * itself ("tag"), or a member of its definition.
	 */
	function tagValue(tag, field) {
		if (field === 'tag')
			return tag.tag;
		if (!(field in tag.members))
			return null;
		const v = tag.members[field];
		return typeof v === 'string' ? v : JSON.stringify(v);
	}

	function stateName(m, tag) {
		return m.json.states[tag.state] ? m.json.states[tag.state].name : String(tag.state);
	}

	/* A control that highlights a tag value (or clears it, if it is the one). */
	function tagPart(label, field, value, state) {
		const on = tagSel && tagSel.field === field && tagSel.value === value &&
		    tagSel.states.length === 1 && tagSel.states[0] === state;
		return { text: label, cls: 'statemap-panel-tagval' + (on ? ' statemap-panel-tagval-selected' : ''),
		    click: function () { selectTag(field, value, [state]); } };
	}

	/* The tags of a rectangle, each value a control. */
	function tagLines(m, rect) {
		const ids = Object.keys(rect.tags);
		if (ids.length === 0)
			return;
		section();
		line('tags:', 'statemap-panel-head');
		ids.sort(function (a, b) { return rect.tags[b] - rect.tags[a]; });
		ids.slice(0, 12).forEach(function (id) {
			const tag = m.json.tags[+id];
			if (!tag)
				return;
			const state = stateName(m, tag);
			line([state + ' ', tagPart(tag.tag, 'tag', tag.tag, state), ': ' + fmt(rect.tags[id])],
			    'statemap-panel-tag', 10);
			const parts = [];
			for (const k in tag.members) {
				if (parts.length > 0)
					parts.push(', ');
				parts.push(k + '=');
				parts.push(tagPart(JSON.stringify(tag.members[k]), k, tagValue(tag, k), state));
			}
			if (parts.length > 0)
				line(parts, 'statemap-panel-small', 20);
		});
		if (ids.length > 12)
			line('(' + (ids.length - 12) + ' more)', 'statemap-panel-small', 10);
	}

	function entityLines(row) {
		const m = row.map;
		line((m.json.entityKind || 'Entity') + ' ' + row.name, 'statemap-panel-entity');
		if (row.description !== null && row.description !== undefined)
			line(row.description, 'statemap-panel-small', 10);
		if (bars.length === 0)
			return;
		const own = m.json.begin + bars[0];
		const i = rectAt(row, own);
		if (i < 0) {
			line('no state at this time', 'statemap-panel-small');
			return;
		}
		const rect = row.rects[i];
		const names = Object.keys(rect.states);
		if (names.length === 1) {
			line('state: ' + names[0], 'statemap-panel-state');
		} else {
			line('blend of states:', 'statemap-panel-state');
			names.sort(function (a, b) { return rect.states[b] - rect.states[a]; });
			names.forEach(function (n) {
				line(n + ' ' + (100 * rect.states[n] / rect.duration).toFixed(1) + '% (' +
				    fmt(rect.states[n]) + ')', 'statemap-panel-blend', 10);
			});
		}
		line('from ' + fmtAt(rect.start - m.json.begin) + ' to ' +
		    fmtAt(rect.start + rect.duration - m.json.begin) + ' (' + fmt(rect.duration) + ')',
		    'statemap-panel-rect');
		tagLines(m, rect);
	}

	function eventText(ev, m) {
		return ev.event + ' at ' + fmtAt(ev.time - m.json.begin) + ' on ' + ev.entity +
		    (ev.target === null ? '' : ' → ' + ev.target);
	}

	function eventLines(ev, m) {
		line('event ' + ev.event, 'statemap-panel-event');
		line('at ' + fmtAt(ev.time - m.json.begin) + ' on ' + ev.entity, 'statemap-panel-small', 10);
		line(ev.target === null ? 'no target' : 'target ' + ev.target,
		    'statemap-panel-small', 10);
	}

	/*
	 * The selected entity's events (from it or to it) in view, nearest the
	 * time bar (or the middle of the view) first: each a control that
	 * selects the event, showing its arrow and details.  With many events
	 * on the map this is how one reaches them.
	 */
	function entityEventLines(row) {
		const recs = (eventsByRow.get(row) || []).filter(function (rec) {
			const x = xOf(rec.ev.time - rec.map.json.begin);
			return x >= X0 - 0.5 && x <= X0 + W + 0.5;
		});
		if (recs.length === 0)
			return;
		const at = row.map.json.begin + (bars.length > 0 ? bars[0] : view.t0 + view.w / 2);
		recs.sort(function (a, b) { return Math.abs(a.ev.time - at) - Math.abs(b.ev.time - at); });
		line('events of ' + row.name + ': ' + recs.length + ' in view' +
		    (recs.length > 6 ? ', the 6 nearest:' : ':'), 'statemap-panel-head');
		recs.slice(0, 6).sort(function (a, b) { return a.ev.time - b.ev.time; }).forEach(function (rec) {
			line([{ text: eventText(rec.ev, rec.map), cls: 'statemap-panel-eventlink' +
			    (rec === eventSel ? ' statemap-panel-eventlink-selected' : ''),
			    click: function () { selectEvent(rec); } }], 'statemap-panel-small', 10);
		});
	}

	/* The states a tag must be in to count: the selected ones. */
	function inStates(m, tag, names) {
		return names.indexOf(stateName(m, tag)) >= 0;
	}

	/*
	 * Time in each value of a tag field, over the rectangles under the time
	 * bar if there is one, else over the visible span (prorated), largest
	 * first; of the given rows (all of the group's if none).
	 */
	function tagTimes(group, field, names, rows) {
		const acc = new Map();
		function add(m, rect, frac) {
			for (const id in rect.tags) {
				const tag = m.json.tags[+id];
				if (!tag || !inStates(m, tag, names))
					continue;
				const value = tagValue(tag, field);
				const v = value === null ? '(none)' : value;
				acc.set(v, (acc.get(v) || 0) + rect.tags[id] * frac);
			}
		}
		function addRow(m, row) {
			const b = m.json.begin;
			if (bars.length > 0) {
				const i = rectAt(row, b + bars[0]);
				if (i >= 0)
					add(m, row.rects[i], 1);
				return;
			}
			const lo = b + view.t0, hi = lo + view.w;
			row.rects.forEach(function (r) {
				const ov = Math.min(hi, r.start + r.duration) - Math.max(lo, r.start);
				if (ov > 0)
					add(m, r, ov / r.duration);
			});
		}
		if (rows) {
			rows.forEach(function (row) { addRow(row.map, row); });
		} else {
			group.forEach(function (m) {
				m.rows.forEach(function (row) { addRow(m, row); });
			});
		}
		return Array.from(acc.entries()).sort(function (a, b) {
			return b[1] - a[1] || (a[0] < b[0] ? -1 : 1);
		});
	}

	function whereText() {
		return bars.length > 0 ? 'at ' + fmtAt(bars[0]) :
		    'over ' + fmtAt(view.t0) + ' to ' + fmtAt(view.t0 + view.w);
	}

	/* Values with their times, each a control that highlights it. */
	function valueLines(times, field, names, cls) {
		times.slice(0, 25).forEach(function (vt) {
			const on = tagSel && tagSel.field === field && tagSel.value === vt[0] &&
			    sameNames(tagSel.states, names);
			const t = line([{ text: vt[0], cls: 'statemap-panel-tagval' +
			    (on ? ' statemap-panel-tagval-selected' : ''),
			    click: function () { selectTag(field, vt[0], names); } }, ': ' + fmt(vt[1])],
			    cls + (on ? ' statemap-panel-value-selected' : ''), 10);
			t.addEventListener('click', function (ev) {
				ev.stopPropagation();
				selectTag(field, vt[0], names);
			});
		});
		if (times.length > 25)
			line('(' + (times.length - 25) + ' more)', 'statemap-panel-small', 10);
		if (times.length === 0)
			line('(none)', 'statemap-panel-small', 10);
	}

	/* The selected entity's time by value of a field. */
	function entityBreakdown(field, names) {
		if (!selRow)
			return;
		section();
		line((selRow.map.json.entityKind || 'Entity') + ' ' + selRow.name + ' by ' + field + ' ' +
		    whereText() + ':', 'statemap-panel-head');
		valueLines(tagTimes(null, field, names, [selRow]), field, names,
		    'statemap-panel-entity-value');
	}

	function sameNames(a, b) {
		return a.length === b.length && a.every(function (x) { return b.indexOf(x) >= 0; });
	}

	function legendGroup(owner) {
		return maps.filter(function (m) { return m.legend === owner; });
	}

	/* Tag fields of the selected states, or one field's values with times. */
	function stateLines() {
		const group = legendGroup(stateSel.legend);
		const names = stateSel.names;
		line((names.length === 1 ? 'state ' + names[0] : names.length + ' states') + ' selected',
		    'statemap-panel-head');
		if (names.length > 1)
			line(names.join(', '), 'statemap-panel-small', 10);
		line('click again to clear; shift-click to add a state', 'statemap-panel-small', 10);
		const fields = [];
		group.forEach(function (m) {
			m.json.tags.forEach(function (tag) {
				if (!inStates(m, tag, names))
					return;
				if (fields.indexOf('tag') < 0)
					fields.push('tag');
				for (const k in tag.members) {
					if (fields.indexOf(k) < 0)
						fields.push(k);
				}
			});
		});
		if (fields.length === 0) {
			line('no tags in ' + (names.length === 1 ? 'this state' : 'these states'),
			    'statemap-panel-small', 10);
			return;
		}
		line('tag fields:', 'statemap-panel-small');
		fields.forEach(function (f) {
			const t = line((f === stateSel.field ? '▾ ' : '▸ ') + f,
			    'statemap-panel-field' + (f === stateSel.field ? ' statemap-panel-field-selected' : ''),
			    10);
			t.addEventListener('click', function (ev) {
				ev.stopPropagation();
				stateSel.field = stateSel.field === f ? null : f;
				drawPanel();
			});
		});
		if (!stateSel.field)
			return;
		section();
		line(stateSel.field + ' ' + whereText() + ':', 'statemap-panel-head');
		valueLines(tagTimes(group, stateSel.field, names), stateSel.field, names,
		    'statemap-panel-value');
		entityBreakdown(stateSel.field, names);
	}

	/* The highlighted tag value: where it is, and how to clear it. */
	function tagSelLines() {
		const st = tagSel.states.length === 1 ? tagSel.states[0] + ' ' : '';
		line('highlighted: ' + st + tagSel.field + ' ' + tagSel.value, 'statemap-panel-head');
		const s = tagSel.stats;
		line(s.rects + ' rectangle' + (s.rects === 1 ? '' : 's') + ' on ' + s.rows + ' entit' +
		    (s.rows === 1 ? 'y' : 'ies') + ', ' + fmt(s.time) + ' in all', 'statemap-panel-small', 10);
		line([{ text: '✕ clear the highlight', cls: 'statemap-panel-clear',
		    click: function () { selectTag(tagSel.field, tagSel.value, tagSel.states); } }],
		    'statemap-panel-small', 10);
		if (!(stateSel && stateSel.field === tagSel.field && sameNames(stateSel.names, tagSel.states)))
			entityBreakdown(tagSel.field, tagSel.states);
	}

	function drawPanel() {
		clear(panel);
		panelLines.length = 0;
		/* Shown while it is built, so that lines can be measured. */
		panel.setAttribute('display', 'inline');
		const m = selRow ? selRow.map : maps[0];
		if (selRow && maps.length > 1) {
			const sm = m.json;
			line((sm.title || 'untitled') + (sm.host ? ' on ' + sm.host : ''),
			    'statemap-panel-title');
		}
		if (bars.length > 0)
			timeLines('time', bars[0], m);
		if (bars.length > 1) {
			timeLines('second time', bars[1], m);
			line('delta = ' + fmt(bars[1] - bars[0]), 'statemap-panel-delta');
		}
		if (selRow) {
			section();
			entityLines(selRow);
			section();
			entityEventLines(selRow);
		}
		const ev = eventHover || eventSel;
		if (ev) {
			section();
			eventLines(ev.ev, ev.map);
		}
		if (tagSel) {
			section();
			tagSelLines();
		}
		if (stateSel) {
			section();
			stateLines();
		}
		newSection = false;
		if (panelLines.length === 0)
			line('click the map for details; keys: + - ← → ⇧←/→ ⇧↑/↓', 'statemap-panel-small');
		placePanel();
		drawCounts();
	}

	/* ---- legend: counts at the selected time, state selection ---- */

	const legends = new Map();	/* legend owner -> [{rect, count text}] */
	maps.forEach(function (m) {
		if (m.legend !== m.index)
			return;
		const items = [];
		m.json.states.forEach(function (st, s) {
			const r = doc.getElementById('statemap-legend-' + m.index + '-' + s);
			if (!r)
				return;
			const cx = +r.getAttribute('x') + +r.getAttribute('width') / 2;
			const bg = el('rect', { class: 'statemap-legend-countbg', rx: 2,
			    y: +r.getAttribute('y') + 2, height: 11, visibility: 'hidden' }, layer);
			const c = text(layer, cx, +r.getAttribute('y') + 11, '', 'statemap-legend-count');
			c.setAttribute('text-anchor', 'middle');
			items.push({ rect: r, count: c, bg: bg, name: st.name });
			const pick = function (ev) {
				ev.stopPropagation();
				selectState(m.index, s, ev.shiftKey);
			};
			/* No text selection on a shift-click. */
			const nosel = function (ev) {
				if (ev.shiftKey)
					ev.preventDefault();
			};
			r.addEventListener('click', pick);
			r.addEventListener('mousedown', nosel);
			const label = r.nextElementSibling;
			if (label && label.tagName === 'text') {
				label.addEventListener('click', pick);
				label.addEventListener('mousedown', nosel);
			}
		});
		legends.set(m.index, items);
	});

	function drawCounts() {
		legends.forEach(function (items, owner) {
			const group = legendGroup(owner);
			const counts = new Map();
			let total = 0;
			if (bars.length > 0) {
				group.forEach(function (m) {
					m.rows.forEach(function (row) {
						total++;
						const i = rectAt(row, m.json.begin + bars[0]);
						if (i < 0)
							return;
						const s = mainState(row.rects[i]);
						counts.set(s, (counts.get(s) || 0) + 1);
					});
				});
			}
			items.forEach(function (it) {
				if (bars.length === 0) {
					it.count.textContent = '';
					it.bg.setAttribute('visibility', 'hidden');
					return;
				}
				const n = counts.get(it.name) || 0;
				it.count.textContent = n + ' (' + (total > 0 ? (100 * n / total).toFixed(1) : '0.0') + '%)';
				/* A light pill behind the count keeps it readable on any colour. */
				const w = it.count.getComputedTextLength() + 6;
				it.bg.setAttribute('x', +it.count.getAttribute('x') - w / 2);
				it.bg.setAttribute('width', w);
				it.bg.setAttribute('visibility', 'visible');
			});
		});
	}

	let classified = false;

	/* Classes naming each rectangle's states, so a selection is one CSS rule. */
	function classifyRects() {
		classified = true;
		maps.forEach(function (m) {
			m.rows.forEach(function (row, k) {
				const g = m.groups[k];
				if (!g)
					return;
				const rs = g.getElementsByTagName('rect');
				for (let i = 0; i < rs.length && i < row.rects.length; i++) {
					const cls = [];
					for (const s in row.rects[i].states)
						cls.push('sm-s' + m.stateIndex.get(s));
					rs[i].setAttribute('class', cls.join(' '));
				}
			});
		});
	}

	/*
	 * A click on a legend entry selects its state alone, or clears the
	 * selection if that was it; a shift-click adds the state to the
	 * selection or takes it out, so that several states stay bright.
	 */
	function selectState(owner, s, add) {
		const name = legendGroup(owner)[0].json.states[s].name;
		if (stateSel && stateSel.legend === owner && add) {
			const i = stateSel.states.indexOf(s);
			if (i >= 0) {
				stateSel.states.splice(i, 1);
				stateSel.names.splice(i, 1);
			} else {
				stateSel.states.push(s);
				stateSel.names.push(name);
			}
			if (stateSel.states.length === 0)
				stateSel = null;
		} else if (stateSel && stateSel.legend === owner && stateSel.states.length === 1 &&
		    stateSel.states[0] === s) {
			stateSel = null;
		} else {
			stateSel = { legend: owner, states: [s], names: [name], field: null };
		}
		legends.forEach(function (items, o) {
			items.forEach(function (it, k) {
				it.rect.classList.toggle('statemap-legend-selected',
				    stateSel !== null && stateSel.legend === o && stateSel.states.indexOf(k) >= 0);
			});
		});
		fade();
		drawPanel();
	}

	/*
	 * What fades: with a tag value highlighted, every rectangle without
	 * it; else, with states selected, every rectangle with none of them.
	 * The no-data hatch turns white meanwhile, so faded rectangles do not
	 * look like missing data.
	 */
	function fade() {
		let css = '';
		if (tagSel) {
			maps.forEach(function (m) {
				css += '#statemap-' + m.index + ' g > rect:not(.sm-tag) { opacity: 0.12; }\n';
			});
		} else if (stateSel) {
			if (!classified)
				classifyRects();
			maps.forEach(function (m) {
				if (m.legend !== stateSel.legend)
					return;
				const not = stateSel.names.map(function (n) {
					return ':not(.sm-s' + m.stateIndex.get(n) + ')';
				}).join('');
				css += '#statemap-' + m.index + ' g > rect' + not + ' { opacity: 0.15; }\n';
			});
		}
		dynStyle.textContent = css;
		root.classList.toggle('statemap-fading', css !== '');
	}

	/*
	 * Highlights every rectangle that has time with a tag whose `field` is
	 * `value`, in one of `states`, across entities and statemaps (merged
	 * rectangles count if any of their tags has it); the same again
	 * clears it.
	 */
	function selectTag(field, value, states) {
		if (tagSel && tagSel.field === field && tagSel.value === value &&
		    sameNames(tagSel.states, states)) {
			tagSel = null;
		} else {
			tagSel = { field: field, value: value, states: states.slice(),
			    stats: { rects: 0, rows: 0, time: 0 } };
		}
		const stats = tagSel ? tagSel.stats : null;
		maps.forEach(function (m) {
			const hit = new Set();
			if (tagSel) {
				m.json.tags.forEach(function (tag, id) {
					if (inStates(m, tag, tagSel.states) && tagValue(tag, field) === value)
						hit.add(String(id));
				});
			}
			m.rows.forEach(function (row, k) {
				const g = m.groups[k];
				const rs = g ? g.getElementsByTagName('rect') : [];
				let any = false;
				for (let i = 0; i < row.rects.length; i++) {
					let t = 0;
					if (hit.size > 0) {
						for (const id in row.rects[i].tags) {
							if (hit.has(id))
								t += row.rects[i].tags[id];
						}
					}
					if (t > 0) {
						any = true;
						stats.rects++;
						stats.time += t;
					}
					if (rs[i])
						rs[i].classList.toggle('sm-tag', t > 0);
				}
				if (any)
					stats.rows++;
			});
		});
		fade();
		drawPanel();
	}

	/* ---- events: marks on their entity's strip, arrows to targets ---- */

	/*
	 * Each event is a diamond on its entity's strip, with an arrow to its
	 * target; hovering or clicking one shows it.  When more are in view
	 * than the map can show without being buried (DENSE), they become thin
	 * ticks that let clicks through to the rectangles, and only the
	 * selected entity's events (and the selected event) keep their
	 * diamonds and arrows; the panel lists the selected entity's events,
	 * so every one can still be reached, and zooming in brings the
	 * diamonds back.
	 */
	const eventMarks = [];
	const eventsByRow = new Map();
	const DENSE = Math.max(60, Math.round(allRows.length * 1.5));
	let eventsShown = true, eventsDense = false;
	maps.forEach(function (m) {
		const evs = m.json.events || [];
		if (evs.length === 0)
			return;
		const clip = el('clipPath', { id: 'statemap-clip-' + m.index }, defs);
		el('rect', { x: X0, y: m.y, width: W, height: m.h }, clip);
		const g = el('g', { 'clip-path': 'url(#statemap-clip-' + m.index + ')' }, eventLayer);
		evs.forEach(function (ev) {
			const k = m.byName.get(ev.entity);
			if (k === undefined)
				return;
			const y = m.y + (k + 0.5) * m.stripH;
			const mark = el('g', { class: 'statemap-event' }, g);
			const tk = ev.target === null ? undefined : m.byName.get(ev.target);
			/* A tick on the top of the strip: a comb, not a sliver of state. */
			el('line', { x1: 0, y1: m.y + k * m.stripH, x2: 0,
			    y2: m.y + (k + 0.45) * m.stripH, class: 'statemap-event-tick' }, mark);
			if (tk !== undefined && tk !== k) {
				const yt = m.y + (tk + 0.5) * m.stripH;
				const dy = yt > y ? -3 : 3;
				el('line', { x1: 0, y1: y, x2: 0, y2: yt + dy,
				    class: 'statemap-event-arrow', 'marker-end': 'url(#statemap-arrow)' }, mark);
			}
			const r = Math.max(2, Math.min(4, m.stripH / 2.5));
			el('path', { d: 'M0,' + (y - r) + ' l' + r + ',' + r + ' l' + (-r) + ',' + r +
			    ' l' + (-r) + ',' + (-r) + ' z', class: 'statemap-event-marker' }, mark);
			el('title', {}, mark).textContent = eventText(ev, m);
			const rec = { ev: ev, map: m, mark: mark, rows: [m.rows[k]] };
			if (tk !== undefined)
				rec.rows.push(m.rows[tk]);
			rec.rows.forEach(function (row) {
				if (!eventsByRow.has(row))
					eventsByRow.set(row, []);
				eventsByRow.get(row).push(rec);
			});
			mark.addEventListener('mouseenter', function () { eventHover = rec; drawPanel(); });
			mark.addEventListener('mouseleave', function () { eventHover = null; drawPanel(); });
			mark.addEventListener('mousedown', function (e) { e.stopPropagation(); });
			mark.addEventListener('click', function (e) {
				e.stopPropagation();
				selectEvent(rec);
			});
			eventMarks.push(rec);
		});
	});

	function selectEvent(rec) {
		eventSel = eventSel === rec ? null : rec;
		markRelatedEvents();
		drawPanel();
	}

	/* The selected entity's events and the selected event stand out. */
	function markRelatedEvents() {
		for (const rec of eventMarks) {
			rec.mark.classList.toggle('statemap-event-related', rec === eventSel ||
			    (selRow !== null && rec.rows.indexOf(selRow) >= 0));
		}
	}

	function placeEvents() {
		if (!eventsShown)
			return;
		let visible = 0;
		for (const rec of eventMarks) {
			const x = xOf(rec.ev.time - rec.map.json.begin);
			rec.mark.setAttribute('transform', 'translate(' + x + ',0)');
			if (x >= X0 - 0.5 && x <= X0 + W + 0.5)
				visible++;
		}
		eventsDense = visible > DENSE;
		eventLayer.classList.toggle('statemap-events-dense', eventsDense);
	}

	if (eventMarks.length > 0) {
		const omitted = data.statemaps.reduce(function (a, s) { return a + (s.events_omitted || 0); }, 0);
		const b = button(8, 46, 102, 'hide events', 'show or hide the ' + eventMarks.length +
		    ' events' + (omitted > 0 ? ' (' + omitted + ' more not drawn)' : ''), function () {
			eventsShown = !eventsShown;
			eventLayer.setAttribute('display', eventsShown ? 'inline' : 'none');
			b.querySelector('text').textContent = eventsShown ? 'hide events' : 'show events';
			placeEvents();
		});
		b.setAttribute('id', 'statemap-events-toggle');
	}

	/* ---- search: a substring or a regular expression over entity names ---- */

	const fo = el('foreignObject', { x: X0 + W + 4, y: 20, width: origWidth - X0 - W - 6,
	    height: 24 }, layer);
	const input = doc.createElementNS(XHTMLNS, 'input');
	input.setAttribute('type', 'text');
	input.setAttribute('id', 'statemap-search');
	input.setAttribute('placeholder', 'search entities');
	fo.appendChild(input);
	const searchCount = text(layer, X0 + W + 6, 56, '', 'statemap-search-count');

	function search() {
		const q = input.value;
		clear(searchHits);
		let re = null;
		try {
			re = new RegExp(q);
		} catch (e) {
			re = null;
		}
		const match = function (s) {
			return s !== null && s !== undefined && (re ? re.test(s) : s.indexOf(q) >= 0);
		};
		let n = 0;
		maps.forEach(function (m) {
			const labels = doc.getElementById('statemap-labels-' + m.index);
			const texts = labels ? labels.getElementsByTagName('text') : [];
			m.rows.forEach(function (row, k) {
				const hit = q !== '' && (match(row.name) || match(row.description));
				if (texts[k]) {
					texts[k].classList.toggle('statemap-match', hit);
					texts[k].classList.toggle('statemap-nomatch', q !== '' && !hit);
				}
				if (hit) {
					n++;
					el('rect', { x: X0, y: m.y + k * m.stripH, width: W, height: m.stripH,
					    class: 'statemap-search-hit' }, searchHits);
				}
			});
		});
		searchCount.textContent = q === '' ? '' : n + ' matching' + (re ? '' : ' (as text)');
	}
	input.addEventListener('input', search);

	/* ---- mouse: click, shift-click, drag to pan, wheel to zoom ---- */

	function userPoint(ev) {
		const pt = root.createSVGPoint();
		pt.x = ev.clientX;
		pt.y = ev.clientY;
		return pt.matrixTransform(root.getScreenCTM().inverse());
	}

	function rowAt(p) {
		for (const m of maps) {
			if (p.y >= m.y && p.y < m.y + m.h && m.stripH > 0)
				return m.rows[Math.floor((p.y - m.y) / m.stripH)] || null;
		}
		return null;
	}

	function inMap(p) {
		return p.x >= X0 && p.x <= X0 + W && p.y >= maps[0].y && p.y <= mapsBottom;
	}

	function click(p, second) {
		const off = Math.min(Math.max(offOf(p.x), 0), span);
		if (second && bars.length > 0) {
			bars[1] = off;
		} else {
			bars.length = 0;
			bars.push(off);
			selRow = rowAt(p);
		}
		drawBars();
		drawPanel();
	}

	let drag = null;
	root.addEventListener('mousedown', function (ev) {
		if (ev.button !== 0)
			return;
		const p = userPoint(ev);
		if (!inMap(p))
			return;
		drag = { x: ev.clientX, t0: view.t0, moved: false, p: p,
		    second: ev.shiftKey || ev.altKey };
		/* No text selection while dragging; keys go to the map again. */
		ev.preventDefault();
		input.blur();
	});
	window.addEventListener('mousemove', function (ev) {
		if (!drag)
			return;
		const dx = ev.clientX - drag.x;
		if (Math.abs(dx) > 3)
			drag.moved = true;
		if (drag.moved) {
			const scale = root.getScreenCTM().a || 1;
			view.t0 = drag.t0 - dx / scale / W * view.w;
			applyView();
		}
	});
	window.addEventListener('mouseup', function () {
		if (!drag)
			return;
		const d = drag;
		drag = null;
		if (!d.moved)
			click(d.p, d.second);
	});

	root.addEventListener('wheel', function (ev) {
		const p = userPoint(ev);
		if (!inMap(p))
			return;
		ev.preventDefault();
		const k = ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? 400 : 1;
		if (Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
			pan(ev.deltaX * k / W);
		} else {
			zoomAt(offOf(p.x), Math.exp(ev.deltaY * k * 0.002));
		}
	}, { passive: false });

	/* ---- keyboard ---- */

	let buffer = '';

	function step(dir) {
		if (!selRow || bars.length === 0)
			return;
		const m = selRow.map, own = m.json.begin + bars[0];
		let best = null;
		for (const r of selRow.rects) {
			for (const t of [r.start, r.start + r.duration]) {
				if (dir > 0 ? t > own && (best === null || t < best) :
				    t < own && (best === null || t > best))
					best = t;
			}
		}
		if (best === null)
			return;
		bars[0] = best - m.json.begin;
		if (bars[0] < view.t0 || bars[0] > view.t0 + view.w)
			view.t0 = bars[0] - view.w / 2;
		applyView();
		drawPanel();
	}

	function moveSelection(dir) {
		const i = selRow ? allRows.indexOf(selRow) + dir : 0;
		if (i < 0 || i >= allRows.length)
			return;
		selRow = allRows[i];
		drawBars();
		drawPanel();
	}

	doc.addEventListener('keydown', function (ev) {
		if (ev.target === input) {
			if (ev.key === 'Escape')
				input.blur();
			return;
		}
		if (ev.ctrlKey || ev.metaKey)
			return;
		const k = ev.key;
		let handled = true;
		if (ev.shiftKey && k === 'ArrowLeft') {
			step(-1);
		} else if (ev.shiftKey && k === 'ArrowRight') {
			step(1);
		} else if (ev.shiftKey && k === 'ArrowUp') {
			moveSelection(-1);
		} else if (ev.shiftKey && k === 'ArrowDown') {
			moveSelection(1);
		} else if (k === 'ArrowLeft') {
			pan(-0.1);
		} else if (k === 'ArrowRight') {
			pan(0.1);
		} else if ((k === '+' || k === '=') && buffer === '') {
			zoomAt(bars.length > 0 ? bars[0] : view.t0 + view.w / 2, 0.5);
		} else if (k === '-' && buffer === '') {
			zoomAt(bars.length > 0 ? bars[0] : view.t0 + view.w / 2, 2);
		} else if (k === 'Enter' && buffer !== '') {
			const ns = parseDuration(buffer);
			buffer = '';
			if (ns > 0)
				zoomTo(ns);
		} else if (k === 'Escape') {
			buffer = '';
			bars.length = 0;
			selRow = null;
			eventSel = null;
			if (tagSel) {
				tagSel = null;
				fade();
			}
			drawBars();
			drawPanel();
		} else if (k === 'Backspace' && buffer !== '') {
			buffer = buffer.slice(0, -1);
		} else if (k.length === 1 && (/[0-9.]/.test(k) || (buffer !== '' && /[a-zμ]/.test(k)))) {
			buffer += k;
		} else if (k === '/') {
			input.focus();
		} else {
			handled = false;
		}
		typed.textContent = buffer === '' ? '' : 'zoom to ' + buffer + ' ⏎';
		if (handled)
			ev.preventDefault();
	});

	/*
	 * For tests and the curious: the view, in ns from the window's begin;
	 * the layout; whether events are drawn as ticks.
	 */
	window.statemapViewer = {
		view: function () { return { t0: view.t0, width: view.w, span: span }; },
		bars: function () { return bars.slice(); },
		layout: function () { return { wide: page.wide, scale: page.scale, folded: folded }; },
		eventsDense: function () { return eventsDense; }
	};

	layout();
	applyView();
	drawPanel();
})();
