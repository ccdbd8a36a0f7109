/*
 * viewer_events.js: the trace's events on the map.  Each is a mark on its
 * entity's strip with an arrow to its target (a message's arrow ends
 * where and when it was received, in another statemap too; a send's
 * "received" lists the receives matched with it by id); hovering or
 * clicking one shows it in the panel; the selected entity's events stand
 * out.  Rebuilt from each document that brings events (the data block,
 * or a live answer).
 *
 *   viewerEvents(sv) -> { buildEvents, rebuildEvents, eventsOf,
 *       eventText, selectEvent, markRelatedEvents, placeEvents,
 *       eventsDense }
 *   from sv: doc, maps, X0, W, mapsBottom, allRows, sel, defs,
 *       eventLayer, el, clear, fmtAt, xOf; calls drawPanel, button
 */
function viewerEvents(sv) {
	const doc = sv.doc, maps = sv.maps, X0 = sv.X0, W = sv.W, mapsBottom = sv.mapsBottom;
	const allRows = sv.allRows, sel = sv.sel, defs = sv.defs, eventLayer = sv.eventLayer;
	const el = sv.el, clear = sv.clear, fmtAt = sv.fmtAt, xOf = sv.xOf;

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
	let eventsShown = true, eventsDense = false, eventsButton = null;

	/* What tells one event from another across documents. */
	function eventKey(rec) {
		const ev = rec.ev;
		return [rec.map.index, ev.time, ev.entity, ev.event, ev.target].join('\u0000');
	}

	/*
	 * The marks of the events in docs[i], the document of statemap i
	 * (the data block's, or an answer's), replacing any before; the
	 * selected event stays selected if it is among them.
	 */
	let eventDocs = null;	/* what buildEvents last drew, for a refold */

	function buildEvents(docs) {
		eventDocs = docs;
		const key = sel.event ? eventKey(sel.event) : null;
		let omitted = 0;
		eventMarks.length = 0;
		eventsByRow.clear();
		clear(eventLayer);
		sel.hover = null;
		sel.event = null;
		maps.forEach(function (m) {
			const sm = docs[m.index] || {};
			const evs = Array.isArray(sm.events) ? sm.events : [];
			omitted += sm.events_omitted || 0;
			if (evs.length === 0)
				return;
			if (!doc.getElementById('statemap-clip-' + m.index)) {
				const clip = el('clipPath', { id: 'statemap-clip-' + m.index }, defs);
				el('rect', { x: X0, y: m.y, width: W, height: m.h }, clip);
			}
			const g = el('g', { 'clip-path': 'url(#statemap-clip-' + m.index + ')' }, eventLayer);
			evs.forEach(function (ev) {
				const k = m.byName.get(ev.entity);
				if (k === undefined || m.rows[k].slot < 0)
					return;
				const sk = m.rows[k].slot;
				const y = m.y + (sk + 0.5) * m.stripH;
				const mark = el('g', { class: 'statemap-event' }, g);
				let tk = ev.target === null ? undefined : m.byName.get(ev.target);
				if (tk !== undefined && m.rows[tk].slot < 0)
					tk = undefined;	/* folded away */
				const st = tk === undefined ? -1 : m.rows[tk].slot;
				/* A tick on the top of the strip: a comb, not a sliver of state. */
				el('line', { x1: 0, y1: m.y + sk * m.stripH, x2: 0,
				    y2: m.y + (sk + 0.45) * m.stripH, class: 'statemap-event-tick' }, mark);
				const messages = [];
				/* A message: from the sender when sent to the receiver
				 * when received (placeEvents sets its far end). */
				const message = function (slot, end) {
					messages.push({ end: end, line: el('line', { x1: 0, y1: y, x2: 0,
					    y2: m.y + (slot + 0.5) * m.stripH,
					    class: 'statemap-event-arrow statemap-event-message',
					    'marker-end': 'url(#statemap-arrow)' }, mark) });
				};
				/* A send's receives matched by id (a merged trace's, on its clock). */
				const received = Array.isArray(ev.received) ? ev.received : [];
				received.forEach(function (r) {
					const rk = m.byName.get(r.entity);
					if (rk !== undefined && rk !== k && m.rows[rk].slot >= 0 &&
					    typeof r.time === 'number')
						message(m.rows[rk].slot, r.time);
				});
				if (tk !== undefined && tk !== k && typeof ev.end === 'number') {
					message(st, ev.end);
				} else if (received.length > 0) {
					/* Its arrows are its messages'. */
				} else if (tk !== undefined && tk !== k) {
					const yt = m.y + (st + 0.5) * m.stripH;
					const dy = yt > y ? -3 : 3;
					el('line', { x1: 0, y1: y, x2: 0, y2: yt + dy,
					    class: 'statemap-event-arrow', 'marker-end': 'url(#statemap-arrow)' }, mark);
				}
				const r = Math.max(2, Math.min(4, m.stripH / 2.5));
				el('path', { d: 'M0,' + (y - r) + ' l' + r + ',' + r + ' l' + (-r) + ',' + r +
				    ' l' + (-r) + ',' + (-r) + ' z', class: 'statemap-event-marker' }, mark);
				el('title', {}, mark).textContent = eventText(ev, m);
				const rec = { ev: ev, map: m, mark: mark, rows: [m.rows[k]], messages: messages };
				if (tk !== undefined)
					rec.rows.push(m.rows[tk]);
				rec.rows.forEach(function (row) {
					if (!eventsByRow.has(row))
						eventsByRow.set(row, []);
					eventsByRow.get(row).push(rec);
				});
				mark.addEventListener('mouseenter', function () { sel.hover = rec; sv.drawPanel(); });
				mark.addEventListener('mouseleave', function () { sel.hover = null; sv.drawPanel(); });
				mark.addEventListener('mousedown', function (e) { e.stopPropagation(); });
				mark.addEventListener('click', function (e) {
					e.stopPropagation();
					selectEvent(rec);
				});
				if (key !== null && eventKey(rec) === key)
					sel.event = rec;
				eventMarks.push(rec);
			});
		});
		if (eventMarks.length > 0 && eventsButton === null) {
			const b = sv.button(8, 46, 102, 'hide events', '', function () {
				eventsShown = !eventsShown;
				eventLayer.setAttribute('display', eventsShown ? 'inline' : 'none');
				b.querySelector('text').textContent = eventsShown ? 'hide events' : 'show events';
				placeEvents();
			});
			b.setAttribute('id', 'statemap-events-toggle');
			eventsButton = b;
		}
		if (eventsButton !== null)
			eventsButton.querySelector('title').textContent = 'show or hide the ' +
			    eventMarks.length + ' events' + (omitted > 0 ? ' (' + omitted + ' more not drawn)' : '');
		buildCrossMessages(docs);
		markRelatedEvents();
		placeEvents();
	}

	/* ---- messages between statemaps (stacked files) ---- */

	const crossMessages = [];

	function usableQualifier(s) {
		return typeof s === 'string' && s !== '' && s.indexOf('/') < 0 && s[0] !== '#';
	}

	/*
	 * Each statemap's qualifier, by statemap.merge's rule: its host if no
	 * other statemap has it; else its title if no other has that title
	 * and no host above took it; else "#N", N its place from 1.
	 */
	function qualifiers() {
		const host = maps.map(function (m) { return usableQualifier(m.json.host) ? m.json.host : null; });
		const title = maps.map(function (m) { return usableQualifier(m.json.title) ? m.json.title : null; });
		const times = function (list, s) { return list.filter(function (x) { return x === s; }).length; };
		const name = maps.map(function (m, i) {
			return host[i] !== null && times(host, host[i]) === 1 ? host[i] : null;
		});
		maps.forEach(function (m, i) {
			if (name[i] === null && title[i] !== null && times(title, title[i]) === 1 &&
			    name.indexOf(title[i]) < 0)
				name[i] = title[i];
		});
		const byName = new Map();
		maps.forEach(function (m, i) { byName.set(name[i] !== null ? name[i] : '#' + (m.index + 1), m); });
		return byName;
	}

	/*
	 * Arrows for messages whose ends are in different statemaps: an event
	 * with an "end" whose target is "Q/name", Q another statemap's
	 * qualifier, ends at that entity when received (in the sender's
	 * time); a send with an "id" ends at each receive of that id (an
	 * event with that id and no target) in the statemap its target names
	 * ("Q/name": that entity's receives, "Q": any of Q's), or in every
	 * other statemap if its target names none (a group).  Only message
	 * events draw them, so traces without any look as they always did.
	 */
	function buildCrossMessages(docs) {
		crossMessages.length = 0;
		if (maps.length < 2)
			return;
		const quals = qualifiers();
		const receives = new Map();
		maps.forEach(function (m) {
			const evs = (docs[m.index] || {}).events;
			(Array.isArray(evs) ? evs : []).forEach(function (ev) {
				const k = m.byName.get(ev.entity);
				if (k === undefined || typeof ev.id !== 'string' || ev.target !== null)
					return;
				if (!receives.has(ev.id))
					receives.set(ev.id, []);
				receives.get(ev.id).push({ map: m, k: k, time: ev.time });
			});
		});
		const target = function (t, own) {
			if (typeof t !== 'string')
				return null;
			const slash = t.indexOf('/');
			const m = quals.get(slash < 0 ? t : t.slice(0, slash));
			if (m === undefined || m === own)
				return null;
			if (slash < 0)
				return { map: m, k: undefined };
			const k = m.byName.get(t.slice(slash + 1));
			return k === undefined ? null : { map: m, k: k };
		};
		let layer = null;
		const add = function (m, k, t, m2, k2, t2) {
			if (layer === null) {
				if (!doc.getElementById('statemap-clip-all')) {
					const clip = el('clipPath', { id: 'statemap-clip-all' }, defs);
					el('rect', { x: X0, y: maps[0].y, width: W, height: mapsBottom - maps[0].y }, clip);
				}
				layer = el('g', { 'clip-path': 'url(#statemap-clip-all)' }, eventLayer);
			}
			if (m.rows[k].slot < 0 || m2.rows[k2].slot < 0)
				return;	/* an end folded away */
			const line = el('line', { y1: m.y + (m.rows[k].slot + 0.5) * m.stripH,
			    y2: m2.y + (m2.rows[k2].slot + 0.5) * m2.stripH,
			    class: 'statemap-event-arrow statemap-event-message statemap-event-cross',
			    'marker-end': 'url(#statemap-arrow)' }, layer);
			crossMessages.push({ line: line, x1: t - m.json.begin, x2: t2 - m2.json.begin });
		};
		maps.forEach(function (m) {
			const evs = (docs[m.index] || {}).events;
			(Array.isArray(evs) ? evs : []).forEach(function (ev) {
				const k = m.byName.get(ev.entity);
				if (k === undefined || ev.target === null || m.byName.has(ev.target))
					return;
				const to = target(ev.target, m);
				if (typeof ev.end === 'number') {
					if (to !== null && to.k !== undefined)
						add(m, k, ev.time, to.map, to.k, ev.end - m.json.begin + to.map.json.begin);
				} else if (typeof ev.id === 'string') {
					(receives.get(ev.id) || []).forEach(function (r) {
						if (to === null ? r.map !== m :
						    r.map === to.map && (to.k === undefined || r.k === to.k))
							add(m, k, ev.time, r.map, r.k, r.time);
					});
				}
			});
		});
	}

	function selectEvent(rec) {
		sel.event = sel.event === rec ? null : rec;
		markRelatedEvents();
		sv.drawPanel();
	}

	/* The selected entity's events and the selected event stand out. */
	function markRelatedEvents() {
		for (const rec of eventMarks) {
			rec.mark.classList.toggle('statemap-event-related', rec === sel.event ||
			    (sel.row !== null && rec.rows.indexOf(sel.row) >= 0));
		}
	}

	function placeEvents() {
		if (!eventsShown)
			return;
		let visible = 0;
		for (const rec of eventMarks) {
			const x = xOf(rec.ev.time - rec.map.json.begin);
			rec.mark.setAttribute('transform', 'translate(' + x + ',0)');
			for (const msg of rec.messages)
				msg.line.setAttribute('x2', xOf(msg.end - rec.map.json.begin) - x);
			if (x >= X0 - 0.5 && x <= X0 + W + 0.5)
				visible++;
		}
		for (const c of crossMessages) {
			c.line.setAttribute('x1', xOf(c.x1));
			c.line.setAttribute('x2', xOf(c.x2));
		}
		eventsDense = visible > DENSE;
		eventLayer.classList.toggle('statemap-events-dense', eventsDense);
	}

	/* An event in a line: its tooltip, and its link in the panel. */
	function eventText(ev, m) {
		return ev.event + ' at ' + fmtAt(ev.time - m.json.begin) + ' on ' + ev.entity +
		    (ev.target === null ? '' : ' → ' + ev.target);
	}

	/* The marks again, from the documents they were last built from (after a refold). */
	function rebuildEvents() {
		buildEvents(eventDocs);
	}

	/* The events from or to a row. */
	function eventsOf(row) {
		return eventsByRow.get(row) || [];
	}

	return { buildEvents: buildEvents, rebuildEvents: rebuildEvents, eventsOf: eventsOf,
	    eventText: eventText, selectEvent: selectEvent, markRelatedEvents: markRelatedEvents,
	    placeEvents: placeEvents, eventsDense: function () { return eventsDense; } };
}
