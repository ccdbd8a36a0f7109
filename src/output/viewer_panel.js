/*
 * viewer_panel.js: the details panel.  What is selected, in lines of
 * text: the time bars' times, the selected entity and its rectangle (its
 * state or blend, tags, value, stack and depth rows), its events, the
 * hovered or selected event, the highlighted tag value and the selected
 * states' tag fields with their times; controls among the lines select,
 * highlight and expand.  Laid out in one column beside the names when the
 * page is wide, else in a box of columns below the maps, never over
 * them (foldable).
 *
 *   viewerPanel(sv) -> { placePanel, drawPanel, folded }
 *   from sv: doc, maps, X0, W, origWidth, origHeight, mapsBottom, view,
 *       bars, sel, expanded, hasDepths, page, PANEL_WIDTH, layer, el,
 *       text, clear, fmt, fmtAt, epoch, xOf, setHeight, lastStartingBy,
 *       rectAt, mainState; calls selectTag, selectEvent, eventsOf,
 *       eventText, toggleDepths, tagTimes, tagValue, stateName, sameNames,
 *       legendGroup, inStates, drawCounts
 */
function viewerPanel(sv) {
	const LINE = 14;
	const doc = sv.doc, maps = sv.maps, X0 = sv.X0, W = sv.W;
	const origWidth = sv.origWidth, origHeight = sv.origHeight, mapsBottom = sv.mapsBottom;
	const view = sv.view, bars = sv.bars, sel = sv.sel;
	const expanded = sv.expanded, hasDepths = sv.hasDepths;
	const page = sv.page, PANEL_WIDTH = sv.PANEL_WIDTH, layer = sv.layer;
	const el = sv.el, text = sv.text, clear = sv.clear;
	const fmt = sv.fmt, fmtAt = sv.fmtAt, epoch = sv.epoch, xOf = sv.xOf;
	const setHeight = sv.setHeight;
	const lastStartingBy = sv.lastStartingBy, rectAt = sv.rectAt, mainState = sv.mainState;

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
	let folded = false;

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
			if (ln.rows) {
				/* A drawing (depth rows): several lines high. */
				ln.t.setAttribute('transform', 'translate(' + (PAD + col * COLUMN + ln.indent) +
				    ',' + (PAD + row * LINE) + ')');
				row += ln.rows;
				rows = Math.max(rows, row);
				return;
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
		const top = window.scrollY / scale;
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
			/*
			 * Below the maps, never over them: a panel floating over
			 * the window's bottom would hide the rows under it.  A
			 * map taller than the window is scrolled to see it.
			 */
			x = X0;
			const below = mapsBottom + 18;
			y = below;
			need = below + boxH + 10;
		}
		panelBox.setAttribute('transform', 'translate(' + x + ',' + y + ')');
		setHeight(Math.max(content, need));
	}
	window.addEventListener('scroll', placePanel);

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

	/* A control that highlights a tag value (or clears it, if it is the one). */
	function tagPart(label, field, value, state) {
		const on = sel.tag && sel.tag.field === field && sel.tag.value === value &&
		    sel.tag.states.length === 1 && sel.tag.states[0] === state;
		return { text: label, cls: 'statemap-panel-tagval' + (on ? ' statemap-panel-tagval-selected' : ''),
		    click: function () { sv.selectTag(field, value, [state]); } };
	}

	/* The tags of a rectangle, each value a control. */
	function tagLines(m, rect) {
		const ids = Object.keys(rect.tags || {});
		if (ids.length === 0)
			return;
		section();
		line('tags:', 'statemap-panel-head');
		ids.sort(function (a, b) { return rect.tags[b] - rect.tags[a]; });
		ids.slice(0, 12).forEach(function (id) {
			const tag = m.json.tags[+id];
			if (!tag)
				return;
			const state = sv.stateName(m, tag);
			line([state + ' ', tagPart(tag.tag, 'tag', tag.tag, state), ': ' + fmt(rect.tags[id])],
			    'statemap-panel-tag', 10);
			const parts = [];
			for (const k in tag.members) {
				if (parts.length > 0)
					parts.push(', ');
				parts.push(k + '=');
				parts.push(tagPart(JSON.stringify(tag.members[k]), k, sv.tagValue(tag, k), state));
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
		if (row.kind === 'nested')
			depthAtLine(row, own);
		if (i < 0) {
			line('no state at this time', 'statemap-panel-small');
			return;
		}
		const rect = row.rects[i];
		if (row.kind === 'values') {
			valueRectLines(m, rect);
			return;
		}
		if (row.kind === 'nested')
			stackLines(row, own);
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
		if (rect.n > 1)
			line('merged: ' + rect.n + ' transitions', 'statemap-panel-small', 10);
		tagLines(m, rect);
		if (row.kind === 'nested')
			depthLines(row);
	}

	/* ---- value entities and nested entities ---- */

	/*
	 * The clicked rectangle of a value entity: its value, or for a merged
	 * one its min, max and time-weighted mean, and the time per string.
	 */
	function valueRectLines(m, rect) {
		const ss = Object.keys(rect.strings || {});
		const num = typeof rect.min === 'number';
		if (num && rect.min === rect.max && ss.length === 0) {
			line('value: ' + rect.min, 'statemap-panel-state statemap-panel-valueat');
		} else if (!num && ss.length === 1 && rect.strings[ss[0]] === rect.duration) {
			line('value: "' + ss[0] + '"', 'statemap-panel-state statemap-panel-valueat');
		} else if (!num && ss.length === 0) {
			line('no value (null)', 'statemap-panel-state statemap-panel-valueat');
		} else {
			line('merged values:', 'statemap-panel-state');
			if (num)
				line('min ' + rect.min + ', max ' + rect.max + ', mean ' + rect.mean,
				    'statemap-panel-blend statemap-panel-valueat', 10);
			ss.sort(function (a, b) { return rect.strings[b] - rect.strings[a]; });
			ss.slice(0, 12).forEach(function (s) {
				line('"' + s + '" ' + (100 * rect.strings[s] / rect.duration).toFixed(1) + '% (' +
				    fmt(rect.strings[s]) + ')', 'statemap-panel-blend', 10);
			});
		}
		line('from ' + fmtAt(rect.start - m.json.begin) + ' to ' +
		    fmtAt(rect.start + rect.duration - m.json.begin) + ' (' + fmt(rect.duration) + ')',
		    'statemap-panel-rect');
	}

	/* The stack of a nested entity at own time t, bottom first, from its depth rows. */
	function stackLines(row, t) {
		const names = [];
		(row.depths || []).forEach(function (rs) {
			const i = lastStartingBy(rs, t);
			if (i >= 0 && t < rs[i].start + rs[i].duration && mainState(rs[i]) !== null)
				names.push(mainState(rs[i]));
		});
		if (names.length > 1)
			line('stack: ' + names.join(' › '), 'statemap-panel-small statemap-panel-stack', 10);
	}

	/*
	 * The control that expands a nested entity into one row per depth of
	 * its stack under its strip (as the ▸ before its name does).
	 */
	function depthLines(row) {
		if (!hasDepths(row))
			return;
		const open = expanded.has(row);
		line([{ text: (open ? '▾ hide ' : '▸ show ') + row.depths.length + ' depth rows',
		    cls: 'statemap-panel-value statemap-depth-toggle', click: function () {
			sv.toggleDepths(row);
		} }], 'statemap-panel-small', 10);
	}

	/* The state of the clicked depth row of a nested entity at own time t. */
	function depthAtLine(row, t) {
		if (!sel.depth || sel.depth.row !== row || !expanded.has(row) || sel.depth.d >= row.depths.length)
			return;
		const rs = row.depths[sel.depth.d], i = lastStartingBy(rs, t);
		const st = i >= 0 && t < rs[i].start + rs[i].duration ? mainState(rs[i]) : null;
		line('depth ' + (sel.depth.d + 1) + ': ' + (st === null ? 'no frame at this time' : st),
		    'statemap-panel-state statemap-panel-depthat');
	}

	/* ---- events ---- */

	function eventLines(ev, m) {
		line('event ' + ev.event, 'statemap-panel-event');
		line('at ' + fmtAt(ev.time - m.json.begin) + ' on ' + ev.entity, 'statemap-panel-small', 10);
		line(ev.target === null ? 'no target' : 'target ' + ev.target,
		    'statemap-panel-small', 10);
		messageLines(ev, m);
	}

	/*
	 * A message event's id, time received and other members (only in
	 * events that have them): names and values are the trace's, shown as
	 * text.
	 */
	function messageLines(ev, m) {
		if (typeof ev.id === 'string')
			line('id ' + ev.id, 'statemap-panel-small', 10);
		if (typeof ev.end === 'number')
			line('received at ' + fmtAt(ev.end - m.json.begin) + ' (after ' +
			    fmt(ev.end - ev.time) + ')', 'statemap-panel-small', 10);
		if (ev.members !== null && typeof ev.members === 'object')
			Object.keys(ev.members).forEach(function (k) {
				line(k + ': ' + JSON.stringify(ev.members[k]), 'statemap-panel-small', 10);
			});
	}

	/*
	 * The selected entity's events (from it or to it) in view, nearest the
	 * time bar (or the middle of the view) first: each a control that
	 * selects the event, showing its arrow and details.  With many events
	 * on the map this is how one reaches them.
	 */
	function entityEventLines(row) {
		const recs = sv.eventsOf(row).filter(function (rec) {
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
			line([{ text: sv.eventText(rec.ev, rec.map), cls: 'statemap-panel-eventlink' +
			    (rec === sel.event ? ' statemap-panel-eventlink-selected' : ''),
			    click: function () { sv.selectEvent(rec); } }], 'statemap-panel-small', 10);
		});
	}

	/* ---- tag values and selected states ---- */

	/* Where values are timed: at the time bar, or over the visible span. */
	function whereText() {
		return bars.length > 0 ? 'at ' + fmtAt(bars[0]) :
		    'over ' + fmtAt(view.t0) + ' to ' + fmtAt(view.t0 + view.w);
	}

	/* Values with their times, each a control that highlights it. */
	function valueLines(times, field, names, cls) {
		times.slice(0, 25).forEach(function (vt) {
			const on = sel.tag && sel.tag.field === field && sel.tag.value === vt[0] &&
			    sv.sameNames(sel.tag.states, names);
			const t = line([{ text: vt[0], cls: 'statemap-panel-tagval' +
			    (on ? ' statemap-panel-tagval-selected' : ''),
			    click: function () { sv.selectTag(field, vt[0], names); } }, ': ' + fmt(vt[1])],
			    cls + (on ? ' statemap-panel-value-selected' : ''), 10);
			t.addEventListener('click', function (ev) {
				ev.stopPropagation();
				sv.selectTag(field, vt[0], names);
			});
		});
		if (times.length > 25)
			line('(' + (times.length - 25) + ' more)', 'statemap-panel-small', 10);
		if (times.length === 0)
			line('(none)', 'statemap-panel-small', 10);
	}

	/* The selected entity's time by value of a field. */
	function entityBreakdown(field, names) {
		if (!sel.row)
			return;
		section();
		line((sel.row.map.json.entityKind || 'Entity') + ' ' + sel.row.name + ' by ' + field + ' ' +
		    whereText() + ':', 'statemap-panel-head');
		valueLines(sv.tagTimes(null, field, names, [sel.row]), field, names,
		    'statemap-panel-entity-value');
	}

	/* Tag fields of the selected states, or one field's values with times. */
	function stateLines() {
		const group = sv.legendGroup(sel.state.legend);
		const names = sel.state.names;
		line((names.length === 1 ? 'state ' + names[0] : names.length + ' states') + ' selected',
		    'statemap-panel-head');
		if (names.length > 1)
			line(names.join(', '), 'statemap-panel-small', 10);
		line('click again to clear; shift-click to add a state', 'statemap-panel-small', 10);
		const fields = [];
		group.forEach(function (m) {
			m.json.tags.forEach(function (tag) {
				if (!sv.inStates(m, tag, names))
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
			const t = line((f === sel.state.field ? '▾ ' : '▸ ') + f,
			    'statemap-panel-field' + (f === sel.state.field ? ' statemap-panel-field-selected' : ''),
			    10);
			t.addEventListener('click', function (ev) {
				ev.stopPropagation();
				sel.state.field = sel.state.field === f ? null : f;
				drawPanel();
			});
		});
		if (!sel.state.field)
			return;
		section();
		line(sel.state.field + ' ' + whereText() + ':', 'statemap-panel-head');
		valueLines(sv.tagTimes(group, sel.state.field, names), sel.state.field, names,
		    'statemap-panel-value');
		entityBreakdown(sel.state.field, names);
	}

	/* The highlighted tag value: where it is, and how to clear it. */
	function tagSelLines() {
		const st = sel.tag.states.length === 1 ? sel.tag.states[0] + ' ' : '';
		line('highlighted: ' + st + sel.tag.field + ' ' + sel.tag.value, 'statemap-panel-head');
		const s = sel.tag.stats;
		line(s.rects + ' rectangle' + (s.rects === 1 ? '' : 's') + ' on ' + s.rows + ' entit' +
		    (s.rows === 1 ? 'y' : 'ies') + ', ' + fmt(s.time) + ' in all', 'statemap-panel-small', 10);
		line([{ text: '✕ clear the highlight', cls: 'statemap-panel-clear',
		    click: function () { sv.selectTag(sel.tag.field, sel.tag.value, sel.tag.states); } }],
		    'statemap-panel-small', 10);
		if (!(sel.state && sel.state.field === sel.tag.field && sv.sameNames(sel.state.names, sel.tag.states)))
			entityBreakdown(sel.tag.field, sel.tag.states);
	}

	function drawPanel() {
		clear(panel);
		panelLines.length = 0;
		/* Shown while it is built, so that lines can be measured. */
		panel.setAttribute('display', 'inline');
		const m = sel.row ? sel.row.map : maps[0];
		if (sel.row && maps.length > 1) {
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
		if (sel.row) {
			section();
			entityLines(sel.row);
			section();
			entityEventLines(sel.row);
		}
		const ev = sel.hover || sel.event;
		if (ev) {
			section();
			eventLines(ev.ev, ev.map);
		}
		if (sel.tag) {
			section();
			tagSelLines();
		}
		if (sel.state) {
			section();
			stateLines();
		}
		newSection = false;
		if (panelLines.length === 0)
			line('click the map for details; keys: + - ← → ⇧←/→ ⇧↑/↓', 'statemap-panel-small');
		placePanel();
		sv.drawCounts();
	}

	return { placePanel: placePanel, drawPanel: drawPanel,
	    folded: function () { return folded; } };
}
