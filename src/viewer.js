/*
 * viewer.js: the interactive statemap viewer, embedded at the end of the
 * SVG that statemap-lua writes (src/svg.c) and run when the document has
 * been parsed.  The static picture is complete without it; this adds
 * zoom and pan, a time bar with details of the clicked rectangle, state
 * and tag selection, events, and search.
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
		drawBars();
		placeEvents();
		spanLabel();
		if (stateSel && stateSel.field && bars.length === 0)
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

	/* ---- the UI layer: a wider canvas with a details panel ---- */

	root.setAttribute('width', origWidth + PANEL_WIDTH);
	root.setAttribute('viewBox', '0 0 ' + (origWidth + PANEL_WIDTH) + ' ' + origHeight);
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
	const panel = el('g', { id: 'statemap-panel', class: 'statemap-panel' }, layer);
	const panelX = origWidth + 8;
	const typed = text(layer, X0 + W, 36, '', 'statemap-typed');
	typed.setAttribute('text-anchor', 'end');

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
	let stateSel = null;		/* { legend, state (index), name, field } */

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
	}

	let panelY;

	function line(str, cls, indent) {
		const t = text(panel, panelX + (indent || 0), panelY, truncate(str, 52), cls);
		if (str.length > 52)
			el('title', {}, t).textContent = str;
		panelY += LINE;
		return t;
	}

	function timeLines(label, off, m) {
		const rel = m.json.begin + off;
		line(label + ': ' + fmtAt(off) + (m.json.begin !== 0 ? ' (' + fmtAt(rel) + ' from start)' : ''),
		    'statemap-panel-time');
		line('epoch ' + epoch(m.json.start, rel) + 's', 'statemap-panel-small', 10);
	}

	function tagLines(m, rect) {
		const ids = Object.keys(rect.tags);
		if (ids.length === 0)
			return;
		line('tags:', 'statemap-panel-head');
		ids.sort(function (a, b) { return rect.tags[b] - rect.tags[a]; });
		ids.slice(0, 12).forEach(function (id) {
			const tag = m.json.tags[+id];
			if (!tag)
				return;
			const state = m.json.states[tag.state] ? m.json.states[tag.state].name : tag.state;
			line(state + ' ' + tag.tag + ': ' + fmt(rect.tags[id]), 'statemap-panel-tag', 10);
			const members = [];
			for (const k in tag) {
				if (k !== 'id' && k !== 'state' && k !== 'tag')
					members.push(k + '=' + JSON.stringify(tag[k]));
			}
			if (members.length > 0)
				line(members.join(', '), 'statemap-panel-small', 20);
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

	function eventLines(ev, m) {
		line('event ' + ev.event, 'statemap-panel-event');
		line('at ' + fmtAt(ev.time - m.json.begin) + ' on ' + ev.entity, 'statemap-panel-small', 10);
		line(ev.target === null ? 'no target' : 'target ' + ev.target,
		    'statemap-panel-small', 10);
	}

	/* Tag fields of the selected state, or one field's values with times. */
	function stateLines() {
		const group = maps.filter(function (m) { return m.legend === stateSel.legend; });
		line('state ' + stateSel.name + ' selected (click again to clear)',
		    'statemap-panel-head');
		const fields = [];
		group.forEach(function (m) {
			m.json.tags.forEach(function (tag) {
				if (m.json.states[tag.state].name !== stateSel.name)
					return;
				for (const k in tag) {
					if (k !== 'id' && k !== 'state' && fields.indexOf(k) < 0)
						fields.push(k);
				}
			});
		});
		if (fields.length === 0) {
			line('no tags in this state', 'statemap-panel-small', 10);
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
		const times = tagTimes(group, stateSel.field);
		line(stateSel.field + ' ' + (bars.length > 0 ? 'at ' + fmtAt(bars[0]) :
		    'over ' + fmtAt(view.t0) + ' to ' + fmtAt(view.t0 + view.w)) + ':',
		    'statemap-panel-head');
		times.slice(0, 25).forEach(function (vt) {
			line(vt[0] + ': ' + fmt(vt[1]), 'statemap-panel-value', 10);
		});
		if (times.length > 25)
			line('(' + (times.length - 25) + ' more)', 'statemap-panel-small', 10);
		if (times.length === 0)
			line('(none)', 'statemap-panel-small', 10);
	}

	/*
	 * Time in each value of a tag field, over the rectangles under the time
	 * bar if there is one, else over the visible span (prorated), largest
	 * first.
	 */
	function tagTimes(group, field) {
		const acc = new Map();
		function add(m, rect, frac) {
			for (const id in rect.tags) {
				const tag = m.json.tags[+id];
				if (!tag || m.json.states[tag.state].name !== stateSel.name)
					continue;
				const v = field in tag ? (typeof tag[field] === 'string' ? tag[field] :
				    JSON.stringify(tag[field])) : '(none)';
				acc.set(v, (acc.get(v) || 0) + rect.tags[id] * frac);
			}
		}
		group.forEach(function (m) {
			const b = m.json.begin;
			m.rows.forEach(function (row) {
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
			});
		});
		return Array.from(acc.entries()).sort(function (a, b) {
			return b[1] - a[1] || (a[0] < b[0] ? -1 : 1);
		});
	}

	function drawPanel() {
		clear(panel);
		panelY = 82;
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
		if (selRow)
			entityLines(selRow);
		const ev = eventHover || eventSel;
		if (ev) {
			panelY += 4;
			eventLines(ev.ev, ev.map);
		}
		if (stateSel) {
			panelY += 4;
			stateLines();
		}
		if (panelY === 82)
			line('click the map for details; keys: + - ← → ⇧←/→ ⇧↑/↓', 'statemap-panel-small');
		stickPanel();
		drawCounts();
	}

	/*
	 * The panel follows the page as it scrolls, like a fixed sidebar; the
	 * canvas grows when the panel reaches below it, or its lines would
	 * be cut off (and could not be clicked).
	 */
	function stickPanel() {
		const ctm = root.getScreenCTM();
		const scale = ctm ? ctm.d : 1;
		const shift = Math.max(0, window.scrollY / (scale || 1) - 60);
		panel.setAttribute('transform', 'translate(0,' + shift + ')');
		const h = Math.max(origHeight, mapsBottom + 16, Math.ceil(panelY + shift + 10));
		if (h !== +root.getAttribute('height')) {
			root.setAttribute('height', h);
			root.setAttribute('viewBox', '0 0 ' + (origWidth + PANEL_WIDTH) + ' ' + h);
		}
	}
	window.addEventListener('scroll', stickPanel);

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
			r.addEventListener('click', function (ev) {
				ev.stopPropagation();
				selectState(m.index, s, st.name);
			});
			const label = r.nextElementSibling;
			if (label && label.tagName === 'text') {
				label.addEventListener('click', function (ev) {
					ev.stopPropagation();
					selectState(m.index, s, st.name);
				});
			}
		});
		legends.set(m.index, items);
	});

	function drawCounts() {
		legends.forEach(function (items, owner) {
			const group = maps.filter(function (m) { return m.legend === owner; });
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

	function selectState(owner, s, name) {
		if (stateSel && stateSel.legend === owner && stateSel.state === s) {
			stateSel = null;
		} else {
			if (!classified)
				classifyRects();
			stateSel = { legend: owner, state: s, name: name, field: null };
		}
		let css = '';
		legends.forEach(function (items) {
			items.forEach(function (it) { it.rect.classList.remove('statemap-legend-selected'); });
		});
		if (stateSel) {
			legends.get(owner)[s].rect.classList.add('statemap-legend-selected');
			maps.forEach(function (m) {
				if (m.legend !== owner)
					return;
				const k = m.stateIndex.get(name);
				css += '#statemap-' + m.index + ' g > rect:not(.sm-s' + k +
				    ') { opacity: 0.15; }\n';
			});
		}
		dynStyle.textContent = css;
		drawPanel();
	}

	/* ---- events: markers on their entity's strip, arrows to targets ---- */

	const eventMarks = [];
	let eventsShown = true;
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
			if (tk !== undefined && tk !== k) {
				const yt = m.y + (tk + 0.5) * m.stripH;
				const dy = yt > y ? -3 : 3;
				el('line', { x1: 0, y1: y, x2: 0, y2: yt + dy,
				    class: 'statemap-event-arrow', 'marker-end': 'url(#statemap-arrow)' }, mark);
			}
			const r = Math.max(2, Math.min(4, m.stripH / 2.5));
			el('path', { d: 'M0,' + (y - r) + ' l' + r + ',' + r + ' l' + (-r) + ',' + r +
			    ' l' + (-r) + ',' + (-r) + ' z', class: 'statemap-event-marker' }, mark);
			el('title', {}, mark).textContent = ev.event + ' at ' + fmt(ev.time - m.json.begin) +
			    ' on ' + ev.entity + (ev.target === null ? '' : ' → ' + ev.target);
			const rec = { ev: ev, map: m, mark: mark };
			mark.addEventListener('mouseenter', function () { eventHover = rec; drawPanel(); });
			mark.addEventListener('mouseleave', function () { eventHover = null; drawPanel(); });
			mark.addEventListener('mousedown', function (e) { e.stopPropagation(); });
			mark.addEventListener('click', function (e) {
				e.stopPropagation();
				eventSel = eventSel === rec ? null : rec;
				drawPanel();
			});
			eventMarks.push(rec);
		});
	});

	function placeEvents() {
		if (!eventsShown)
			return;
		for (const rec of eventMarks) {
			const x = xOf(rec.ev.time - rec.map.json.begin);
			rec.mark.setAttribute('transform', 'translate(' + x + ',0)');
		}
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

	/* For tests and the curious: the view, in ns from the window's begin. */
	window.statemapViewer = {
		view: function () { return { t0: view.t0, width: view.w, span: span }; },
		bars: function () { return bars.slice(); }
	};

	applyView();
	drawPanel();
})();
