// truth.js: what a trace says, for the browser tests to hold the viewer's
// drawing against.  A trace here is one file of the statemap format with
// one datum per line (as the tests write them); a datum holds its state
// until the entity's next one, and the last until the trace's end (its
// last datum's time).
'use strict';

// Reads a trace's text: { begin, end, states: [{name, color}], entities:
// Map name -> [[time, state], ...] }.
function parse(text) {
	const t = { end: 0, states: [], entities: new Map() };
	for (const line of text.split('\n')) {
		if (line.trim() === '')
			continue;
		const r = JSON.parse(line);
		if (r.states) {
			for (const name in r.states)
				t.states[r.states[name].value] = { name: name, color: r.states[name].color };
		}
		if (r.time === undefined || r.state === undefined)
			continue;
		const time = Number(r.time);
		if (!t.entities.has(r.entity))
			t.entities.set(r.entity, []);
		t.entities.get(r.entity).push([time, r.state]);
		t.end = Math.max(t.end, time);
	}
	return t;
}

// An entity's intervals with time inside [a, b), clipped to it: [start,
// duration, state name].
function intervals(t, name, a, b) {
	const ds = t.entities.get(name) || [], out = [];
	for (let i = 0; i < ds.length; i++) {
		const s = Math.max(ds[i][0], a);
		const e = Math.min(i + 1 < ds.length ? ds[i + 1][0] : t.end, b);
		if (e > s)
			out.push([s, e - s, t.states[ds[i][1]].name]);
	}
	return out;
}

// How many intervals with time lie in [a, b), over every entity.
function count(t, a, b) {
	let n = 0;
	for (const name of t.entities.keys())
		n += intervals(t, name, a, b).length;
	return n;
}

// What the viewer draws (window.statemapViewer.drawn()) against the trace:
// every row's rectangles in view must be the trace's intervals in the
// answer's range, clipped to it, single transitions (n = 1) in one state.
// rows: the entity names, top to bottom; begin: the statemap's own begin
// (ns).  Returns a list of what differs (empty when all agree).
function compare(t, drawn, rows, begin, view) {
	const bad = [];
	const a = begin + drawn.from, b = begin + drawn.to;
	const lo = begin + view.t0, hi = lo + view.width;
	rows.forEach(function (name, k) {
		const want = intervals(t, name, a, b).filter((iv) => iv[0] < hi && iv[0] + iv[1] > lo)
		    .map((iv) => [iv[0], iv[1], iv[2], 1]);
		const got = drawn.statemaps[0][k].map((r) => [r.start, r.duration,
		    Object.keys(r.states).join('+'), r.n]);
		if (JSON.stringify(got) !== JSON.stringify(want))
			bad.push(name + ': drawn ' + JSON.stringify(got).slice(0, 300) + ', the trace has ' +
			    JSON.stringify(want).slice(0, 300));
	});
	return bad;
}

// The painted pixels against the rectangles: the colour at the middle of
// each rectangle at least 3 pixels wide must be its state's, opaque.
// colors: state name -> [r, g, b].  Returns what differs, and how many
// rectangles were sampled.
async function pixels(page, map, colors) {
	return page.evaluate(([mi, colors]) => {
		const v = window.statemapViewer, d = v.drawn();
		const canvas = document.querySelector('#statemap-' + mi + ' canvas');
		const bad = [];
		let sampled = 0;
		if (!canvas)
			return { bad: ['no canvas'], sampled: 0 };
		const img = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
		const begin = JSON.parse(document.getElementById('statemap-data').textContent).statemaps[mi].begin;
		const sc = canvas.width / d.range.width;
		d.statemaps[mi].forEach((rects, k) => {
			for (const r of rects) {
				const x0 = (r.start - begin - d.range.t0) * sc, x1 = x0 + r.duration * sc;
				if (Math.min(x1, canvas.width) - Math.max(x0, 0) < 3)
					continue;
				const x = Math.floor((Math.max(x0, 0) + Math.min(x1, canvas.width)) / 2);
				const q = 4 * (k * canvas.width + x);
				const want = colors[Object.keys(r.states)[0]];
				const got = [img[q], img[q + 1], img[q + 2], img[q + 3]];
				sampled++;
				if (Object.keys(r.states).length === 1 &&
				    JSON.stringify(got) !== JSON.stringify(want.concat([255])))
					bad.push('row ' + k + ' at ' + r.start + ': ' + got + ' for ' + want);
			}
		});
		return { bad: bad.slice(0, 5), sampled: sampled };
	}, [map, colors]);
}

// The legend's colours, as the page drew them: state name -> [r, g, b].
async function legendColors(page) {
	return page.evaluate(() => {
		const out = {};
		const sm = JSON.parse(document.getElementById('statemap-data').textContent).statemaps[0];
		sm.states.forEach((st, s) => {
			const sw = document.getElementById('statemap-legend-0-' + s);
			const m = /rgb\((\d+), (\d+), (\d+)\)/.exec(getComputedStyle(sw).fill);
			out[st.name] = m ? [+m[1], +m[2], +m[3]] : null;
		});
		return out;
	});
}

// Resolves once the viewer has settled: nothing asked or awaited, and (if
// given) more than `after` answers drawn.
function settled(page, after, timeout) {
	return page.waitForFunction((n) => {
		const v = window.statemapViewer;
		return v !== undefined && !v.pending() && (n === null || v.timing().answers > n);
	}, after === undefined ? null : after, { timeout: timeout || 30000 });
}

module.exports = { parse, intervals, count, compare, pixels, legendColors, settled };
