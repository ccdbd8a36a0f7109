// modules.test.js: the viewer's modules that draw, each made alone in
// headless Chromium (through playwright-core) on an SVG statemap-lua drew
// without the viewer: the parts below it real (viewer_data, dom, format,
// rows: what every part stands on), the UI layer and the other parts
// stood in for (their calls recorded), and what it draws or does checked:
// viewer_dom, viewer_layout, viewer_panel, viewer_legend, viewer_events,
// viewer_input, viewer_paint.
//
//   node modules.test.js DIR
//
// DIR holds test_modules.sh's bare SVGs (plain.out, tagged.out, the
// state-system-draw trace and the stacked messages, each without the
// viewer's script).  Prints "PASS name" or "FAIL name: why" lines.
'use strict';
const path = require('path');
const { chromium } = require('playwright-core');
const { wrap, standOn, standIns, layerStandIn } = require('./modules.js');

const [dir] = process.argv.slice(2);
const { check, eq, failures } = require('./report.js')('modules');

const BELOW = ['data', 'dom', 'format', 'rows'];
const HELPERS = '({ standOn: ' + standOn + ', standIns: ' + standIns + ', layerStandIn: ' + layerStandIn + ' })';

// A page on a bare SVG with the named modules loaded (window.P, their
// factories) and the test helpers (window.T).
async function open(browser, file, names, viewport) {
	const page = await browser.newPage({ viewport: viewport || { width: 1500, height: 700 } });
	page.errors = [];
	page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
	page.on('pageerror', (e) => page.errors.push(e.message));
	await page.goto('file://' + path.join(dir, file));
	await page.evaluate(([code, helpers]) => {
		window.P = (0, eval)(code)(window);
		window.T = (0, eval)(helpers);
	}, [wrap(BELOW.concat(names)), HELPERS]);
	return page;
}

// Runs a module's checks on a page, which it closes.
async function run(name, page, fn) {
	try {
		await fn(page);
	} catch (e) {
		check(name + ': runs', false, e.message.split('\n')[0]);
	}
	eq(name + ': no console errors', page.errors, []);
	await page.close();
}

const texts = (page, sel) => page.$$eval(sel, (ts) => ts.map((t) => t.textContent));
// The text of each, but a tooltip's (a <title> in it).
const ownTexts = (page, sel) => page.$$eval(sel, (ts) => ts.map((t) =>
    Array.from(t.childNodes).filter((c) => c.nodeName !== 'title').map((c) => c.textContent).join('')));
// The names of the stand-ins called since the last look, and forgets them.
const called = (page) => page.evaluate(() => window.calls.splice(0).map((c) => c[0]));
// Page coordinates of offset off on row k of statemap 0 (as the view maps it).
const pointFor = (page, k, off) => page.evaluate(([k, off]) => {
	const svg = document.getElementById('statemap-0'), root = document.documentElement;
	const m = sv.maps[0];
	const pt = root.createSVGPoint();
	pt.x = sv.X0 + (off - sv.view.t0) / sv.view.w * sv.W;
	pt.y = +svg.getAttribute('y') + (k + 0.5) * m.stripH;
	const q = pt.matrixTransform(root.getScreenCTM());
	return { x: q.x, y: q.y };
}, [k, off]);

// ---- viewer_dom ----

function dom(page) {
	return page.evaluate(() => {
		const D = P.viewerDom(document);
		const g = D.el('g', { id: 'dom-test', class: 'c' }, document.documentElement);
		const t = D.text(g, 1, 2, '<b>&</b>', 'k');
		const got = [g.namespaceURI, g.id, g.getAttribute('class'), t.tagName, t.getAttribute('class'),
		    t.textContent, g.getElementsByTagName('b').length, t.getAttribute('y')];
		D.clear(g);
		return got.concat([g.childNodes.length]);
	}).then((got) => eq('dom: elements, text as text, cleared', got, ['http://www.w3.org/2000/svg', 'dom-test', 'c',
	    'text', 'statemap-viewer-text k', '<b>&</b>', 0, '2', 0]));
}

// ---- viewer_layout ----

const LAYOUT_CALLS = ['placePanel', 'drawPanel', 'schedule', 'indicator', 'placeEvents', 'markRelatedEvents',
    'rebuildEvents', 'search', 'rgbOf', 'paint'];

async function layout(page) {
	await page.evaluate((names) => {
		window.sv = T.standOn(P, document);
		window.calls = T.standIns(sv, names, [], { rgbOf: [1, 2, 3] });
		Object.assign(sv, P.viewerLayout(sv));
	}, LAYOUT_CALLS);
	eq('layout: the UI layer, in order', await page.evaluate(() =>
	    Array.from(document.getElementById('statemap-viewer').children).map((c) => c.tagName +
		(c.id ? '#' + c.id : '') + (c.getAttribute('class') ? '.' + c.getAttribute('class') : ''))),
	    ['defs', 'rect.statemap-selected-entity', 'g#statemap-search-hits', 'g#statemap-events',
		'g#statemap-timebars', 'text.statemap-viewer-text statemap-typed']);
	await page.evaluate(() => sv.applyView());
	const look = () => page.evaluate(() => [document.getElementById('statemap-0').getAttribute('viewBox'),
	    document.getElementById('statemap-timelabel').textContent]);
	eq('layout: the whole view', await look(), ['0 0 862 30', 'span = 10.000ms']);
	eq('layout: axis ticks', await texts(page, '.statemap-axis .statemap-tick'),
	    ['0ns', '1ms', '2ms', '3ms', '4ms', '5ms', '6ms', '7ms', '8ms', '9ms', '10ms']);
	eq('layout: a view applied, the others told', await called(page),
	    ['placeEvents', 'markRelatedEvents', 'schedule', 'indicator']);
	await page.evaluate(() => sv.zoomAt(5e6, 0.5));
	eq('layout: zoomed about a time', [await page.evaluate(() => sv.view), await look()],
	    [{ t0: 2.5e6, w: 5e6 }, ['215.5 0 431 30',
		'span = 5.000ms; left edge at 2.500ms from start (epoch 1700000000.502500000s)']]);
	eq('layout: time to x and back', await page.evaluate(() => [sv.xOf(2.5e6), sv.offOf(1000)]), [138, 7.5e6]);
	eq('layout: pans by a fraction of the view, and stop at the ends', await page.evaluate(() => {
		sv.pan(-0.25);
		const a = sv.view.t0;
		sv.pan(-1);
		const b = sv.view.t0;
		sv.pan(10);
		return [a, b, sv.view.t0];
	}), [1.25e6, 0, 5e6]);
	eq('layout: zooms stop at the deepest and the whole', await page.evaluate(() => {
		sv.zoomAt(5e6, 1e-9);
		const a = sv.view.w;
		sv.zoomAt(5e6, 1e9);
		return [a, sv.view.w];
	}), [1000, 10e6]);
	eq('layout: past 8x the rectangles are placed again from the data', await page.evaluate(() =>
	    document.querySelector('#statemap-0 g > rect').getAttribute('width')), String(1e6 / 1e7 * 862 + 0.06));
	const bar = await page.evaluate(() => {
		sv.bars.push(3e6);
		sv.zoomTo(2e6);
		return [sv.view.w, Math.abs(sv.xOf(3e6) - (sv.X0 + sv.W / 2)) < 1e-9];
	});
	eq('layout: a typed zoom centres the time bar', bar, [2e6, true]);
	const centred = await page.evaluate(() => {
		const was = [sv.view.t0, sv.view.w];
		window.restoreView = () => { sv.view.t0 = was[0]; sv.view.w = was[1]; sv.applyView(); };
		sv.zoomAt(5e6, 1e9);
		sv.bars.length = 0;
		sv.bars.push(2e6);
		sv.zoomBy(0.5);
		const a = [sv.view.t0, sv.view.w];
		sv.zoomBy(0.5);
		const b = [sv.view.t0, sv.view.w];
		sv.bars.length = 0;
		sv.zoomBy(2);
		return [a, b, [sv.view.t0, sv.view.w]];
	});
	eq('layout: zooming with a time selected centres it (the original\'s rule)', centred,
	    [[0, 5e6], [0.75e6, 2.5e6], [0, 5e6]]);
	await page.evaluate(() => { sv.bars.length = 0; sv.bars.push(3e6); window.restoreView(); });
	await called(page);
	await page.evaluate(() => {
		sv.sel.row = sv.maps[0].rows[1];
		sv.applyView();
	});
	eq('layout: with a selection, the panel is told', (await called(page)).includes('drawPanel'), true);
	eq('layout: the time bar and the selected entity', await page.evaluate(() => {
		const l = document.querySelector('.statemap-timebar'), box = document.querySelector('.statemap-selected-entity');
		return [document.querySelectorAll('.statemap-timebar').length, +l.getAttribute('x1') === sv.xOf(3e6),
		    document.querySelector('.statemap-timebar-label').textContent, box.getAttribute('visibility'),
		    box.getAttribute('y'), box.getAttribute('height')];
	}), [1, true, '3.000ms', 'visible', '80', '10']);
	eq('layout: wide, the panel beside the names', await page.evaluate(() => {
		sv.layout();
		return [sv.page.wide, sv.page.width, document.documentElement.getAttribute('width')];
	}), [true, 1480, '1480']);
	check('layout: the panel placed', (await called(page)).includes('placePanel'), 'not placed');
	await page.setViewportSize({ width: 900, height: 700 });
	const narrow = await page.evaluate(() => {
		sv.layout();
		sv.setHeight(500);
		const r = document.documentElement;
		return [sv.page.wide, sv.page.width, sv.page.scale < 1, +r.getAttribute('width') === 1150 * sv.page.scale,
		    r.getAttribute('viewBox'), +r.getAttribute('height') === 500 * sv.page.scale];
	});
	eq('layout: narrow, the drawing scaled to fit', narrow, [false, 1150, true, true, '0 0 1150 500', true]);
}

// Groups and depth rows (kinds.svg: proc/12/..., proc/12/thread/3 nested).
async function layoutRows(page) {
	await page.evaluate((names) => {
		window.sv = T.standOn(P, document);
		window.calls = T.standIns(sv, names, [], { rgbOf: [1, 2, 3] });
		Object.assign(sv, P.viewerLayout(sv));
		sv.maps.forEach((m) => sv.applyRows(m));
	}, LAYOUT_CALLS);
	eq('layout: group headers', await ownTexts(page, '.statemap-group-head'), ['▾ proc/12', '▾ thread']);
	await called(page);
	await page.evaluate(() => document.querySelectorAll('.statemap-group-head')[1].dispatchEvent(
	    new MouseEvent('click', { bubbles: true })));
	eq('layout: a header folds its group', [await ownTexts(page, '.statemap-group-head'), await page.evaluate(() =>
	    sv.maps[0].rows.map((r, k) => sv.maps[0].groups[k].getAttribute('display')))],
	    [['▾ proc/12', '▸ thread (2)'], ['inline', 'inline', 'inline', 'none', 'none']]);
	eq('layout: and what sits on rows follows', await called(page),
	    ['rebuildEvents', 'search', 'markRelatedEvents', 'drawPanel']);
	await page.evaluate(() => document.querySelectorAll('.statemap-group-head')[1].dispatchEvent(
	    new MouseEvent('click', { bubbles: true })));
	const depths = await page.evaluate(() => sv.maps[0].rows.find((r) => r.kind === 'nested').depths.length);
	eq('layout: a nested entity\'s name can expand', await texts(page, '.statemap-depth-name'), ['▸ ']);
	await page.evaluate(() => document.querySelector('.statemap-depth-name').dispatchEvent(
	    new MouseEvent('click', { bubbles: true })));
	eq('layout: expanded, its depth rows', await page.evaluate(() => [
	    document.querySelector('.statemap-depth-name').textContent,
	    document.querySelectorAll('.statemap-depth-row').length,
	    document.querySelector('.statemap-depth-row rect').getAttribute('fill')]), ['▾ ', depths, 'rgb(1,2,3)']);
}

// ---- viewer_panel ----

const PANEL_CALLS = ['selectTag', 'stateName', 'tagValue', 'toggleDepths', 'eventText', 'selectEvent', 'sameNames',
    'tagTimes', 'legendGroup', 'inStates', 'drawCounts', 'eventsOf', 'setHeight'];

// The panel alone; the other parts' answers as given (in the page).
async function panelOn(page) {
	await page.evaluate((names) => {
		window.sv = T.layerStandIn(T.standOn(P, document));
		window.events = [];
		window.calls = T.standIns(sv, names, [], {
			stateName: (m, tag) => m.json.states[tag.state].name,
			tagValue: (tag, f) => f === 'tag' ? tag.tag : tag.members[f],
			eventText: () => 'EV', sameNames: false, inStates: true, eventsOf: () => window.events,
			legendGroup: () => [sv.maps[0]], tagTimes: [['sd0', 300], ['sd1', 200]]
		});
		Object.assign(sv, P.viewerPanel(sv));
	}, PANEL_CALLS);
}

const lines = (page) => texts(page, '#statemap-panel text');

async function panel(page) {
	await panelOn(page);
	await page.evaluate(() => sv.drawPanel());
	eq('panel: nothing selected, how to use it', await lines(page),
	    ['click the map for details; keys: + - ← → ⇧←/→ ⇧↑/↓']);
	eq('panel: wide, beside the names', await page.evaluate(() =>
	    document.getElementById('statemap-panel-box').getAttribute('transform')), 'translate(1154,70)');
	eq('panel: the page\'s height set, the legend counted', await page.evaluate(() =>
	    calls.splice(0).filter((c) => c[0] !== 'eventsOf')), [['setHeight', 240], ['drawCounts']]);
	await page.evaluate(() => {
		sv.bars.push(3e6);
		sv.sel.row = sv.maps[0].rows[0];
		sv.drawPanel();
	});
	eq('panel: the time bar and the entity\'s rectangle', await lines(page), ['time: 3.000ms',
	    'epoch 1700000000.503000000s', 'Thread t1', 'worker one', 'state: wait', 'from 1.000ms to 4.000ms (3.000ms)']);
	await page.evaluate(() => {
		sv.bars.push(7.5e6);
		sv.sel.hover = { ev: sv.data.statemaps[0].events[0], map: sv.maps[0] };
		window.events = [sv.sel.hover];
		sv.drawPanel();
	});
	const p = await lines(page);
	eq('panel: a second time bar and the delta', p.slice(2, 5),
	    ['second time: 7.500ms', 'epoch 1700000000.507500000s', 'delta = 4.500ms']);
	eq('panel: the entity\'s events, and the hovered one', p.slice(p.indexOf('events of t1: 1 in view:')),
	    ['events of t1: 1 in view:', 'EV', 'event wakeup', 'at 3.500ms on t1', 'target t3']);
	await page.click('.statemap-panel-eventlink');
	eq('panel: an event\'s link selects it', await page.evaluate(() =>
	    calls.filter((c) => c[0] === 'selectEvent').map((c) => c[1] === window.events[0])), [true]);
	await page.evaluate(() => {
		sv.page.wide = false;
		sv.drawPanel();
	});
	eq('panel: narrow, a box below the map that folds', await page.evaluate(() =>
	    [document.getElementById('statemap-panel-fold').textContent,
		document.getElementById('statemap-panel-box').getAttribute('transform').startsWith('translate(138,')]),
	    ['hide details ▾', true]);
	await page.click('#statemap-panel-fold');
	eq('panel: folded', await page.evaluate(() => [sv.folded(), document.getElementById('statemap-panel-fold')
	    .textContent, document.getElementById('statemap-panel').getAttribute('display')]),
	    [true, 'show details ▴', 'none']);
}

// tagged.svg: d1 cpu [0,100) io r1 [100,400) ...; r1 = sd0 read.
async function panelTags(page) {
	await panelOn(page);
	await page.evaluate(() => {
		sv.bars.push(200);
		sv.sel.row = sv.maps[0].rows[0];
		sv.drawPanel();
	});
	const p = await lines(page);
	eq('panel: a rectangle\'s tags', p.slice(p.indexOf('tags:')), ['tags:', 'io r1: 300ns', 'device=sd0, op=read']
	    .map((l) => l.replace('sd0', '"sd0"').replace('read', '"read"')));
	await page.evaluate(() => calls.splice(0));
	await page.click('.statemap-panel-tagval >> text=r1');
	eq('panel: a tag value highlights', await page.evaluate(() => calls.filter((c) => c[0] === 'selectTag')),
	    [['selectTag', 'tag', 'r1', ['io']]]);
	await page.evaluate(() => {
		sv.sel.row = null;
		sv.sel.state = { legend: 0, states: [1], names: ['io'], field: null };
		sv.drawPanel();
	});
	eq('panel: a selected state, its tag fields', await lines(page), ['time: 200ns', 'epoch 0.000000200s',
	    'state io selected', 'click again to clear; shift-click to add a state', 'tag fields:', '▸ tag', '▸ device',
	    '▸ op']);
	await page.click('.statemap-panel-field >> nth=1');
	eq('panel: a field\'s values, at the time bar', (await lines(page)).slice(5),
	    ['▸ tag', '▾ device', '▸ op', 'device at 200ns:', 'sd0: 300ns', 'sd1: 200ns']);
	eq('panel: timed by the legend', await page.evaluate(() =>
	    calls.filter((c) => c[0] === 'tagTimes').map((c) => c.slice(2))), [['device', ['io']]]);
}

// ---- viewer_legend ----

const opacities = (page) => page.evaluate(() =>
    Array.from(document.querySelectorAll('#statemap-0 g > rect')).map((r) => getComputedStyle(r).opacity));

// tagged.svg: rects d1 cpu, io r1, cpu, io w1; d2 io r2, cpu, io r1, cpu.
async function legend(page) {
	await page.evaluate(() => {
		window.sv = T.layerStandIn(T.standOn(P, document));
		window.calls = T.standIns(sv, ['drawPanel', 'paint'], []);
		Object.assign(sv, P.viewerLegend(sv));
		sv.drawCounts();
	});
	eq('legend: a count per entry, none without a time bar', await texts(page, '.statemap-legend-count'), ['', '']);
	await page.evaluate(() => {
		sv.bars.push(700);
		sv.drawCounts();
	});
	eq('legend: counts at the time bar', await texts(page, '.statemap-legend-count'), ['0 (0.0%)', '2 (100.0%)']);
	const f = '0.15';
	await page.click('#statemap-legend-0-1');
	eq('legend: a click selects a state, the others fade', [await page.evaluate(() => [sv.sel.state.names,
	    document.getElementById('statemap-legend-0-1').classList.contains('statemap-legend-selected'),
	    document.documentElement.classList.contains('statemap-fading')]), await opacities(page)],
	    [[['io'], true, true], [f, '1', f, '1', '1', f, '1', f]]);
	eq('legend: the panel told', await called(page), ['drawPanel']);
	await page.click('#statemap-legend-0-0', { modifiers: ['Shift'] });
	eq('legend: shift-click adds one', [await page.evaluate(() => sv.sel.state.names), await opacities(page)],
	    [['io', 'cpu'], ['1', '1', '1', '1', '1', '1', '1', '1']]);
	await page.click('#statemap-legend-0-0', { modifiers: ['Shift'] });
	await page.click('.statemap-legendlabel >> text=io');
	eq('legend: and takes it out; the same one again clears', await page.evaluate(() => [sv.sel.state,
	    sv.dynStyle.textContent, document.documentElement.classList.contains('statemap-fading')]), [null, '', false]);
	const g = '0.12';
	await page.evaluate(() => sv.selectTag('device', 'sd0', ['io']));
	eq('legend: a tag value highlighted across entities', [await page.evaluate(() => sv.sel.tag.stats),
	    await opacities(page)], [{ rects: 2, rows: 2, time: 600 }, [g, '1', g, g, g, g, '1', g]]);
	await page.evaluate(() => sv.selectTag('device', 'sd0', ['io']));
	eq('legend: the same again clears', [await page.evaluate(() => sv.sel.tag), await opacities(page)],
	    [null, ['1', '1', '1', '1', '1', '1', '1', '1']]);
	eq('legend: time by tag value, over the view and at the time bar', await page.evaluate(() => {
		const group = sv.legendGroup(0);
		const at = sv.tagTimes(group, 'op', ['io']);
		sv.bars.length = 0;
		return [sv.tagTimes(group, 'op', ['io']), at, sv.tagTimes(null, 'tag', ['io'], [sv.maps[0].rows[1]])];
	}), [[['read', 900], ['write', 500]], [['write', 500], ['read', 300]], [['r1', 300], ['r2', 300]]]);
	eq('legend: tags\' fields and states', await page.evaluate(() => {
		const m = sv.maps[0], tag = m.json.tags[0];
		return [sv.tagValue(tag, 'tag'), sv.tagValue(tag, 'device'), sv.tagValue(tag, 'nope'), sv.stateName(m, tag),
		    sv.inStates(m, tag, ['cpu']), sv.sameNames(['a', 'b'], ['b', 'a']), sv.sameNames(['a'], ['a', 'b'])];
	}), ['r1', 'sd0', null, 'io', false, true, false]);
	await page.evaluate(() => calls.splice(0));
	eq('legend: painted, each rectangle faded by what it holds', await page.evaluate(() => {
		sv.drawn.canvas = true;
		sv.selectState(0, 1, false);
		const m = sv.maps[0];
		return [sv.fadeOf(m, { states: { cpu: 5 } }), sv.fadeOf(m, { states: { io: 5 } }), sv.dynStyle.textContent];
	}), [0.15, 1, '']);
	eq('legend: and painted again', await called(page), ['paint', 'drawPanel']);
}

// ---- viewer_events ----

async function events(page) {
	await page.evaluate(() => {
		window.sv = T.layerStandIn(T.standOn(P, document));
		window.calls = T.standIns(sv, ['drawPanel', 'button'], [], {
			button: (x, y, w, label, title, action) => {
				const b = sv.el('g', { id: 'statemap-events-toggle' }, sv.layer);
				sv.el('title', {}, b);
				sv.text(b, 0, 0, label);
				b.action = action;
				return b;
			}
		});
		Object.assign(sv, P.viewerEvents(sv));
		sv.buildEvents(sv.data.statemaps);
	});
	eq('events: a mark each, an arrow to a target', await page.evaluate(() => [
	    document.querySelectorAll('.statemap-event').length, document.querySelectorAll('.statemap-event-arrow').length,
	    Array.from(document.querySelectorAll('.statemap-event > title')).map((t) => t.textContent)]),
	    [2, 1, ['wakeup at 3.500ms on t1 → t3', 'tick at 8.000ms on t2']]);
	eq('events: each at its time', await page.evaluate(() => Array.from(document.querySelectorAll('.statemap-event'))
	    .map((e) => e.getAttribute('transform') === 'translate(' + sv.xOf(sv.data.statemaps[0].events[
		Array.from(e.parentNode.children).indexOf(e)].time) + ',0)')), [true, true]);
	eq('events: a row\'s, from it or to it', await page.evaluate(() =>
	    sv.maps[0].rows.map((r) => sv.eventsOf(r).map((rec) => rec.ev.event))), [['wakeup'], ['tick'], ['wakeup']]);
	eq('events: the toggle made, its tooltip', await page.evaluate(() => [calls.filter((c) => c[0] === 'button')
	    .map((c) => c[4]), document.querySelector('#statemap-events-toggle title').textContent]),
	    [['hide events'], 'show or hide the 2 events']);
	await page.evaluate(() => calls.splice(0));
	await page.dispatchEvent('.statemap-event >> nth=1', 'mouseenter');
	eq('events: hovered, shown', await page.evaluate(() => [sv.sel.hover && sv.sel.hover.ev.event,
	    calls.splice(0).map((c) => c[0])]), ['tick', ['drawPanel']]);
	await page.dispatchEvent('.statemap-event >> nth=1', 'mouseleave');
	await page.dispatchEvent('.statemap-event >> nth=0', 'click');
	eq('events: clicked, selected and marked', await page.evaluate(() => [sv.sel.hover, sv.sel.event.ev.event,
	    Array.from(document.querySelectorAll('.statemap-event')).map((e) =>
		e.classList.contains('statemap-event-related'))]), [null, 'wakeup', [true, false]]);
	eq('events: the selected entity\'s stand out', await page.evaluate(() => {
		sv.sel.event = null;
		sv.sel.row = sv.maps[0].rows[1];
		sv.markRelatedEvents();
		return Array.from(document.querySelectorAll('.statemap-event')).map((e) =>
		    e.classList.contains('statemap-event-related'));
	}), [false, true]);
	eq('events: rebuilt, the selected event stays selected', await page.evaluate(() => {
		const rec = sv.eventsOf(sv.maps[0].rows[0])[0];
		sv.selectEvent(rec);
		sv.rebuildEvents();
		return [sv.sel.event !== rec, sv.sel.event.ev === rec.ev, document.querySelectorAll('.statemap-event').length];
	}), [true, true, 2]);
	eq('events: few, not dense', await page.evaluate(() => sv.eventsDense()), false);
	await page.evaluate(() => document.getElementById('statemap-events-toggle').action());
	eq('events: the toggle hides them', await page.evaluate(() => [document.getElementById('statemap-events')
	    .getAttribute('display'), document.querySelector('#statemap-events-toggle text').textContent]),
	    ['none', 'show events']);
}

// messages-n1.out over messages-n2.out: two sends from n1's a to n2's b.
async function crossEvents(page) {
	const n = await page.evaluate(() => {
		window.sv = T.layerStandIn(T.standOn(P, document));
		window.calls = T.standIns(sv, ['drawPanel', 'button'], [], { button: () => {
			const b = sv.el('g', {}, sv.layer);
			sv.el('title', {}, b);
			return b;
		} });
		Object.assign(sv, P.viewerEvents(sv));
		sv.buildEvents(sv.data.statemaps);
		return Array.from(document.querySelectorAll('.statemap-event-cross')).map((l) =>
		    Math.round((+l.getAttribute('x2') - +l.getAttribute('x1')) / sv.W * sv.view.w / 1e3));
	});
	eq('events: messages between statemaps, 2ms each', n, [2000, 2000]);
}

// ---- viewer_input ----

const INPUT_CALLS = ['zoomAt', 'zoomTo', 'zoomBy', 'pan', 'applyView', 'drawBars', 'drawPanel', 'fade'];

async function input(page) {
	await page.evaluate((names) => {
		window.sv = T.layerStandIn(T.standOn(P, document));
		window.calls = T.standIns(sv, names, []);
		Object.assign(sv, P.viewerInput(sv));
		sv.addSearch();
		sv.listen();
	}, INPUT_CALLS);
	const log = () => page.evaluate(() => window.calls.splice(0));
	for (const id of ['zoomin', 'zoomout', 'panleft', 'panright'])
		await page.click('#statemap-' + id);
	eq('input: the buttons zoom (about the time bar, else the middle) and pan', await log(),
	    [['zoomBy', 0.5], ['zoomBy', 2], ['pan', -0.25], ['pan', 0.25]]);
	await page.mouse.move(5, 5);
	await page.keyboard.press('+');
	await page.keyboard.press('=');
	await page.evaluate(() => sv.bars.push(3e6));
	await page.keyboard.press('-');
	await page.keyboard.press('ArrowLeft');
	await page.keyboard.press('ArrowRight');
	eq('input: keys zoom (about the time bar) and pan', await log(),
	    [['zoomBy', 0.5], ['zoomBy', 0.5], ['zoomBy', 2], ['pan', -0.1], ['pan', 0.1]]);
	await page.keyboard.type('25x');
	await page.keyboard.press('Backspace');
	await page.keyboard.type('ms');
	eq('input: a duration being typed', await page.textContent('.statemap-typed'), 'zoom to 25ms ⏎');
	await page.keyboard.press('Enter');
	eq('input: Enter zooms to it', [await log(), await page.textContent('.statemap-typed')], [[['zoomTo', 25e6]], '']);
	await page.evaluate(() => { sv.sel.row = sv.maps[0].rows[0]; });
	await page.keyboard.press('Shift+ArrowRight');
	eq('input: shift-right, the next transition', [await page.evaluate(() => sv.bars[0]), (await log()).map((c) => c[0])],
	    [4e6, ['applyView', 'drawPanel']]);
	await page.keyboard.press('Shift+ArrowLeft');
	await page.keyboard.press('Shift+ArrowLeft');
	await page.keyboard.press('Shift+ArrowDown');
	eq('input: shift-left back, shift-down the entity below', await page.evaluate(() =>
	    [sv.bars[0], sv.sel.row.name]), [0, 't2']);
	await log();
	await page.evaluate(() => { sv.sel.tag = { field: 'x' }; sv.sel.event = {}; });
	await page.keyboard.press('Escape');
	eq('input: Escape clears', [await page.evaluate(() => [sv.bars.length, sv.sel.row, sv.sel.event, sv.sel.tag]),
	    (await log()).map((c) => c[0])], [[0, null, null, null], ['fade', 'drawBars', 'drawPanel']]);
	await page.keyboard.press('/');
	await page.keyboard.type('t[23]');
	eq('input: / searches, a regular expression', [await page.evaluate(() => (document.activeElement || {}).id),
	    await page.$$eval('.statemap-match', (ts) => ts.length), await page.textContent('.statemap-search-count'),
	    await page.$$eval('.statemap-search-hit', (rs) => rs.map((r) => +r.getAttribute('y')))],
	    ['statemap-search', 2, '2 matching', [80, 90]]);
	await page.keyboard.press('Escape');
	eq('input: Escape leaves the box', await page.evaluate(() => (document.activeElement || {}).id !== 'statemap-search'),
	    true);
	await page.fill('#statemap-search', '(');
	eq('input: a bad regular expression is text', await page.textContent('.statemap-search-count'),
	    '0 matching (as text)');
	await page.fill('#statemap-search', '');
	const p = await pointFor(page, 1, 5e6);
	await page.mouse.click(p.x, p.y);
	const c = await page.evaluate(() => [sv.bars.slice(), sv.sel.row.name, (document.activeElement || {}).id]);
	check('input: a click sets the time bar and selects the entity', Math.abs(c[0][0] - 5e6) < 2e4 &&
	    c[0].length === 1 && c[1] === 't2' && c[2] !== 'statemap-search', JSON.stringify(c));
	eq('input: and redraws', (await log()).map((x) => x[0]), ['drawBars', 'drawPanel']);
	const q = await pointFor(page, 2, 8e6);
	await page.keyboard.down('Shift');
	await page.mouse.click(q.x, q.y);
	await page.keyboard.up('Shift');
	const s = await page.evaluate(() => [sv.bars.slice(), sv.sel.row.name]);
	check('input: shift-click, the second time bar', s[0].length === 2 && Math.abs(s[0][1] - 8e6) < 2e4 &&
	    s[1] === 't2', JSON.stringify(s));
	await log();
	await page.mouse.move(p.x, p.y);
	await page.mouse.down();
	await page.mouse.move(p.x - 86.2, p.y, { steps: 4 });
	await page.mouse.up();
	const d = await page.evaluate(() => [sv.view.t0, sv.bars.length]);
	check('input: a drag pans, and is no click', Math.abs(d[0] - 1e6) < 2e4 && d[1] === 2, JSON.stringify(d));
	check('input: the view applied as it moves', (await log()).every((x) => x[0] === 'applyView'), 'other calls');
	await page.evaluate(() => { sv.view.t0 = 0; });
	await page.mouse.move(p.x, p.y);
	await page.mouse.wheel(0, -200);
	const w = await log();
	check('input: the wheel zooms about the pointer', w.length === 1 && w[0][0] === 'zoomAt' &&
	    Math.abs(w[0][1] - 5e6) < 2e4 && Math.abs(w[0][2] - Math.exp(-0.4)) < 1e-9, JSON.stringify(w));
	await page.mouse.click(5, 5);
	eq('input: a click off the map does nothing', await log(), []);
}

// ---- viewer_paint ----

async function paint(page) {
	const got = await page.evaluate(() => {
		window.sv = T.standOn(P, document);
		window.fade = 1;
		window.calls = T.standIns(sv, ['fadeOf'], [], { fadeOf: () => window.fade });
		Object.assign(sv, P.viewerPaint(sv));
		const m = sv.maps[0];
		Object.assign(sv.drawn, { canvas: true, range: { t0: 0, w: sv.span }, px: 862 });
		const look = () => {
			const c = document.querySelector('#statemap-0 canvas');
			const img = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
			const bad = [];
			m.rows.forEach((row, k) => row.rects.forEach((r) => {
				const x = Math.floor((r.start + r.duration / 2) / sv.span * c.width);
				const sw = document.getElementById('statemap-legend-0-' + m.stateIndex.get(Object.keys(r.states)[0]));
				const want = /rgb\((\d+), (\d+), (\d+)\)/.exec(getComputedStyle(sw).fill).slice(1).map(Number);
				const q = 4 * (k * c.width + x);
				const px = [img[q], img[q + 1], img[q + 2], img[q + 3]];
				if (JSON.stringify(px.slice(0, 3)) !== JSON.stringify(want))
					bad.push(row.name + ' at ' + r.start + ': ' + px);
			}));
			return [c.width, c.height, bad, img[3]];
		};
		sv.paint();
		const a = look();
		window.fade = 0.15;
		sv.paint();
		const b = look();
		return [a, b[3], document.querySelectorAll('#statemap-0 g > rect.statemap-hit').length,
		    document.querySelectorAll('#statemap-0 g > rect:not(.statemap-hit)').length, sv.timing.paint >= 0,
		    calls.length === 2 * 8];
	});
	eq('paint: one pixel row an entity, each rectangle its state\'s colour', got[0], [862, 3, [], 255]);
	eq('paint: a faded rectangle\'s opacity', got[1], Math.round(0.15 * 255));
	eq('paint: the SVG\'s rectangles gone, a tooltip\'s each row', got.slice(2, 4), [3, 0]);
	eq('paint: timed, each rectangle asked how faded', got.slice(4), [true, true]);
}

(async () => {
	const browser = await chromium.launch({
		executablePath: process.env.BROWSER || '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu'],
	});
	await run('dom', await open(browser, 'plain.svg', []), dom);
	await run('layout', await open(browser, 'plain.svg', ['layout']), layout);
	await run('layout (rows)', await open(browser, 'kinds.svg', ['layout']), layoutRows);
	await run('panel', await open(browser, 'plain.svg', ['panel']), panel);
	await run('panel (tags)', await open(browser, 'tagged.svg', ['panel']), panelTags);
	await run('legend', await open(browser, 'tagged.svg', ['legend']), legend);
	await run('events', await open(browser, 'plain.svg', ['events']), events);
	await run('events (stacked)', await open(browser, 'messages-stacked.svg', ['events']), crossEvents);
	await run('input', await open(browser, 'plain.svg', ['input']), input);
	await run('paint', await open(browser, 'plain.svg', ['paint']), paint);
	await browser.close();
	process.exit(failures() === 0 ? 0 : 1);
})().catch((e) => {
	console.log('FAIL modules: ' + e.message.split('\n')[0]);
	process.exit(1);
});
