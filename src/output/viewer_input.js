/*
 * viewer_input.js: what the user does.  The zoom and pan buttons (and
 * the button maker other parts use), the search box over entity names,
 * the mouse (a click sets the time bar and selects the entity under it,
 * shift- or alt-click sets the second bar, a drag pans, the wheel zooms
 * about the pointer or pans) and the keyboard (+ - arrows, shift-arrows
 * to step through transitions and entities, a typed duration and Enter
 * to zoom to it, / to search, Escape to clear).
 *
 *   viewerInput(sv) -> { button, addSearch, search, listen }
 *   The zoom and pan buttons are made at once, the search box by
 *   addSearch() and the listeners on the map by listen(), each where main
 *   calls it (the UI layer's elements stack in the order they are made).
 *   from sv: doc, root, span, maps, X0, W, origWidth, mapsBottom, view,
 *       bars, sel, layer, searchHits, typed, el, text, clear,
 *       parseDuration, offOf, zoomAt, zoomTo, zoomBy, pan, applyView, drawBars;
 *       calls drawPanel, fade
 */
function viewerInput(sv) {
	const XHTMLNS = 'http://www.w3.org/1999/xhtml';
	const doc = sv.doc, root = sv.root, span = sv.span, maps = sv.maps;
	const X0 = sv.X0, W = sv.W, origWidth = sv.origWidth, mapsBottom = sv.mapsBottom;
	const view = sv.view, bars = sv.bars, sel = sv.sel;
	const layer = sv.layer, searchHits = sv.searchHits, typed = sv.typed;
	const el = sv.el, text = sv.text, clear = sv.clear, parseDuration = sv.parseDuration;
	const offOf = sv.offOf, zoomAt = sv.zoomAt, zoomTo = sv.zoomTo, zoomBy = sv.zoomBy, pan = sv.pan;
	const applyView = sv.applyView, drawBars = sv.drawBars;

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

	button(8, 24, 24, '+', 'zoom in (+)', function () { zoomBy(0.5); })
	    .setAttribute('id', 'statemap-zoomin');
	button(34, 24, 24, '−', 'zoom out (-)', function () { zoomBy(2); })
	    .setAttribute('id', 'statemap-zoomout');
	button(60, 24, 24, '◀', 'pan left (←)', function () { pan(-0.25); })
	    .setAttribute('id', 'statemap-panleft');
	button(86, 24, 24, '▶', 'pan right (→)', function () { pan(0.25); })
	    .setAttribute('id', 'statemap-panright');

	/* ---- search: a substring or a regular expression over entity names ---- */

	let input = null, searchCount = null;

	function addSearch() {
		const fo = el('foreignObject', { x: X0 + W + 4, y: 20, width: origWidth - X0 - W - 6,
		    height: 24 }, layer);
		input = doc.createElementNS(XHTMLNS, 'input');
		input.setAttribute('type', 'text');
		input.setAttribute('id', 'statemap-search');
		input.setAttribute('placeholder', 'search entities');
		fo.appendChild(input);
		searchCount = text(layer, X0 + W + 6, 56, '', 'statemap-search-count');
		input.addEventListener('input', search);
	}

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
				if (hit && row.slot >= 0) {
					n++;
					el('rect', { x: X0, y: m.y + row.slot * m.stripH, width: W, height: m.stripH,
					    class: 'statemap-search-hit' }, searchHits);
				}
			});
		});
		searchCount.textContent = q === '' ? '' : n + ' matching' + (re ? '' : ' (as text)');
	}

	/* ---- mouse: click, shift-click, drag to pan, wheel to zoom ---- */

	function userPoint(ev) {
		const pt = root.createSVGPoint();
		pt.x = ev.clientX;
		pt.y = ev.clientY;
		return pt.matrixTransform(root.getScreenCTM().inverse());
	}

	function rowAt(p) {
		for (const m of maps) {
			if (p.y >= m.y && p.y < m.y + m.h && m.stripH > 0) {
				const r = m.bySlot[Math.floor((p.y - m.y) / m.stripH)];
				if (r && r.depthOf)
					return r;	/* a depth row */
				return r && r.map ? r : null;	/* a group's header is no row */
			}
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
			const r = rowAt(p);
			sel.row = r && r.depthOf ? r.depthOf : r;
			sel.depth = r && r.depthOf ? { row: r.depthOf, d: r.d } : null;
		}
		drawBars();
		sv.drawPanel();
	}

	let drag = null;

	function mouseDown(ev) {
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
	}

	function mouseMove(ev) {
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
	}

	function mouseUp() {
		if (!drag)
			return;
		const d = drag;
		drag = null;
		if (!d.moved)
			click(d.p, d.second);
	}

	function wheel(ev) {
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
	}

	/* ---- keyboard ---- */

	let buffer = '';

	/* The time bar to the selected entity's next (or previous) transition. */
	function step(dir) {
		if (!sel.row || bars.length === 0)
			return;
		const m = sel.row.map, own = m.json.begin + bars[0];
		let best = null;
		for (const r of sel.row.rects) {
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
		sv.drawPanel();
	}

	/* The entity below (or above) the selected one. */
	function moveSelection(dir) {
		/* The rows on screen, top to bottom (folded groups' are not). */
		const shown = [];
		maps.forEach(function (m) {
			m.bySlot.forEach(function (r) {
				if (r.map)
					shown.push(r);
			});
		});
		const i = sel.row ? shown.indexOf(sel.row) + dir : 0;
		if (i < 0 || i >= shown.length)
			return;
		sel.row = shown[i];
		drawBars();
		sv.drawPanel();
	}

	function keyDown(ev) {
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
			zoomBy(0.5);
		} else if (k === '-' && buffer === '') {
			zoomBy(2);
		} else if (k === 'Enter' && buffer !== '') {
			const ns = parseDuration(buffer);
			buffer = '';
			if (ns > 0)
				zoomTo(ns);
		} else if (k === 'Escape') {
			buffer = '';
			bars.length = 0;
			sel.row = null;
			sel.event = null;
			if (sel.tag) {
				sel.tag = null;
				sv.fade();
			}
			drawBars();
			sv.drawPanel();
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
	}

	/* The listeners on the map, the window and the document. */
	function listen() {
		root.addEventListener('mousedown', mouseDown);
		window.addEventListener('mousemove', mouseMove);
		window.addEventListener('mouseup', mouseUp);
		root.addEventListener('wheel', wheel, { passive: false });
		doc.addEventListener('keydown', keyDown);
	}

	return { button: button, addSearch: addSearch, search: search, listen: listen };
}
