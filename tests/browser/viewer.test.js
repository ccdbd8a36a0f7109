// viewer.test.js: drives the SVG viewer (src/output/viewer.js) in headless
// Chromium through playwright-core and checks what a user would see.
//
//   node viewer.test.js DIR ARTEFACTS
//
// DIR holds the SVGs test_viewer.sh made from the traces here (whose
// answers are worked out by hand in the comments); a screenshot of each
// case goes to ARTEFACTS.  Prints "PASS name" or "FAIL name: why" lines.
'use strict';
const path = require('path');
const { chromium } = require('playwright-core');

const [dir, artefacts] = process.argv.slice(2);
const { check, eq, failures } = require('./report.js')('viewer');

// Waits until fn(arg) holds in the page, for at most 10 s: a busy machine
// runs the page's handlers of a wheel or a resize late, and a fixed pause
// then reads the page before them.  The check after it says what failed.
async function until(page, fn, arg) {
	await page.waitForFunction(fn, arg, { timeout: 10000 }).catch(() => {});
}

// A number the regex captures from got, within tol of want.
function near(name, got, re, want, tol) {
	const m = re.exec(got || '');
	check(name, m !== null && Math.abs(parseFloat(m[1]) - want) <= tol,
	    'got ' + JSON.stringify(got) + ', want ' + want + ' within ' + tol);
}

// Page coordinates of offset `off` (ns from the window's begin) on row
// `row` of statemap `map`, through the live view and the root's CTM.
function pointFor(page, map, row, off) {
	return page.evaluate(([mi, r, o]) => {
		const svg = document.getElementById('statemap-' + mi);
		const v = window.statemapViewer.view();
		const rows = Array.from(svg.children).filter((c) => c.tagName === 'g').length;
		const root = document.documentElement;
		const pt = root.createSVGPoint();
		pt.x = +svg.getAttribute('x') + (o - v.t0) / v.width * +svg.getAttribute('width');
		pt.y = +svg.getAttribute('y') + (r + 0.5) * +svg.getAttribute('height') / rows;
		const q = pt.matrixTransform(root.getScreenCTM());
		return { x: q.x, y: q.y };
	}, [map, row, off]);
}

const texts = (page, sel) => page.$$eval(sel, (ts) => ts.map((t) => t.textContent));
// The names in entity labels: the text before a description (a <tspan>)
// or a tooltip (a <title>, on a label cut short).
const labelNames = (page, sel) => page.$$eval(sel, (ts) => ts.map((t) =>
    Array.from(t.childNodes).filter((c) => c.nodeType === 3).map((c) => c.data).join('')));
const panel = (page) => texts(page, '#statemap-panel text');
const spanLabel = (page) => page.textContent('#statemap-timelabel');

async function clickAt(page, map, row, off, modifier) {
	const p = await pointFor(page, map, row, off);
	if (modifier)
		await page.keyboard.down(modifier);
	await page.mouse.click(p.x, p.y);
	if (modifier)
		await page.keyboard.up(modifier);
}

async function open(browser, name, fn, viewport, shot) {
	const page = await browser.newPage({ viewport: viewport || { width: 1500, height: 700 } });
	const errors = [];
	let dialogs = 0;
	page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
	page.on('pageerror', (e) => errors.push(e.message));
	page.on('dialog', (d) => { dialogs++; d.dismiss(); });
	try {
		await page.goto('file://' + path.resolve(dir, name + '.svg'));
		await page.waitForFunction(() => window.statemapViewer !== undefined, null,
		    { timeout: 10000 });
		await fn(page);
	} catch (e) {
		check(name + ': runs', false, e.message.split('\n')[0]);
	}
	await page.screenshot({ path: path.join(artefacts, (shot || name) + '.png') }).catch(() => {});
	eq(name + ': no console errors', errors, []);
	eq(name + ': no dialogs', dialogs, 0);
	await page.close();
}

// plain.out: t1 run [0,1ms) wait [1,4ms) run [4,10ms); t2 idle [0,2ms)
// run [2,6ms) wait [6,10ms); t3 wait [0,5ms) idle [5,10ms); start is
// epoch 1700000000.5; events at 3ms (t1 -> t3) and 8ms (t2).
async function plain(page) {
	eq('plain: span label', await spanLabel(page), 'span = 10.000ms');
	await page.click('#statemap-zoomin');
	check('plain: zoom button halves the span', (await spanLabel(page)).startsWith('span = 5.000ms; left edge at 2.500ms'),
	    await spanLabel(page));
	check('plain: the left edge has its epoch time',
	    (await spanLabel(page)).includes('epoch 1700000000.502500000s'), await spanLabel(page));
	await page.click('#statemap-zoomout');
	await page.click('#statemap-zoomout');
	eq('plain: never zooms out past the trace', await spanLabel(page), 'span = 10.000ms');

	// A pointer lands on whole pixels: 862 of them for 10ms, 11.6us each.
	await clickAt(page, 0, 0, 3e6);
	const p = await panel(page);
	near('plain: click shows the time', p[0], /^time: ([0-9.]+)ms$/, 3, 0.0117);
	near('plain: and its epoch', p[1], /^epoch 1700000000\.(\d+)s$/, 503000000, 11700);
	eq('plain: the clicked entity', p.slice(2, 4), ['Thread t1', 'worker one']);
	eq('plain: its state and rectangle', p.slice(4, 6), ['state: wait', 'from 1.000ms to 4.000ms (3.000ms)']);
	eq('plain: one time bar', (await page.$$('.statemap-timebar')).length, 1);
	// At 3ms: t1 wait, t2 run, t3 wait.
	eq('plain: legend counts at the time', await texts(page, '.statemap-legend-count'),
	    ['1 (33.3%)', '2 (66.7%)', '0 (0.0%)']);

	await clickAt(page, 0, 1, 7.5e6, 'Shift');
	const p2 = await panel(page);
	near('plain: shift-click shows the delta', p2.find((t) => t.startsWith('delta')),
	    /^delta = ([0-9.]+)ms$/, 4.5, 0.0234);
	eq('plain: two time bars', (await page.$$('.statemap-timebar')).length, 2);
	await clickAt(page, 0, 2, 1e6, 'Alt');
	near('plain: alt-click moves the second bar', (await panel(page)).find((t) => t.startsWith('delta')),
	    /^delta = (-[0-9.]+)ms$/, -2, 0.0234);

	await clickAt(page, 0, 0, 3e6);
	await page.keyboard.press('Shift+ArrowRight');
	eq('plain: shift+right steps to the next transition', (await panel(page))[0], 'time: 4.000ms');
	await page.keyboard.press('Shift+ArrowLeft');
	eq('plain: shift+left steps to the previous one', (await panel(page))[0], 'time: 1.000ms');
	await page.keyboard.press('Shift+ArrowDown');
	const p3 = await panel(page);
	eq('plain: shift+down selects the entity below', [p3[2], p3[3]], ['Thread t2', 'state: idle']);

	await page.keyboard.type('2ms');
	await page.keyboard.press('Enter');
	check('plain: a typed duration zooms to it', (await spanLabel(page)).startsWith('span = 2.000ms'),
	    await spanLabel(page));
	const v0 = await page.evaluate(() => window.statemapViewer.view().t0);
	await page.keyboard.press('ArrowRight');
	const v1 = await page.evaluate(() => window.statemapViewer.view().t0);
	check('plain: right arrow pans', Math.abs(v1 - v0 - 2e5) < 1, v0 + ' -> ' + v1);
	await page.keyboard.press('-');
	check('plain: - zooms out', (await spanLabel(page)).startsWith('span = 4.000ms'), await spanLabel(page));
	await page.keyboard.press('+');
	check('plain: + zooms in', (await spanLabel(page)).startsWith('span = 2.000ms'), await spanLabel(page));
	const ticks = await texts(page, '.statemap-tick');
	check('plain: axis ticks in human units', ticks.length >= 4 && ticks.every((t) => /^[0-9.]+(ns|μs|ms|s)$/.test(t)),
	    JSON.stringify(ticks));

	// Drag to pan: 86.2 px is a tenth of the 862 px map, 200us at 2ms.
	const a = await pointFor(page, 0, 2, 2e6);
	const before = await page.evaluate(() => window.statemapViewer.view().t0);
	await page.mouse.move(a.x, a.y);
	await page.mouse.down();
	await page.mouse.move(a.x - 43.1, a.y, { steps: 3 });
	await page.mouse.move(a.x - 86.2, a.y, { steps: 3 });
	await page.mouse.up();
	const after = await page.evaluate(() => window.statemapViewer.view().t0);
	check('plain: drag pans', Math.abs(after - before - 2e5) < 5e3, before + ' -> ' + after);

	// Wheel over the map zooms around the pointer: the time under it stays.
	const mid = after + 1e6;
	const w = await pointFor(page, 0, 1, mid);
	await page.mouse.move(w.x, w.y);
	const width0 = (await page.evaluate(() => window.statemapViewer.view())).width;
	await page.mouse.wheel(0, -200);
	await until(page, (w0) => window.statemapViewer.view().width !== w0, width0);
	const vw = await page.evaluate(() => window.statemapViewer.view());
	const under = vw.t0 + (w.x - 138) / 862 * vw.width;
	check('plain: wheel zooms in around the pointer', vw.width < 2e6 && Math.abs(under - mid) < 2e3,
	    JSON.stringify(vw));
	await page.keyboard.press('Escape');
	eq('plain: Escape removes the time bars', (await page.$$('.statemap-timebar')).length, 0);
	for (let i = 0; i < 20; i++)
		await page.keyboard.press('+');
	check('plain: the deepest zoom is 1/10000 of the span', (await spanLabel(page)).startsWith('span = 1.000μs'),
	    await spanLabel(page));
	await page.keyboard.type('5x');
	await page.keyboard.press('Backspace');
	await page.keyboard.type('ms');
	eq('plain: the typed duration is shown', await page.textContent('.statemap-typed'), 'zoom to 5ms ⏎');
	await page.keyboard.press('Enter');
	check('plain: Backspace edits it', (await spanLabel(page)).startsWith('span = 5.000ms'), await spanLabel(page));
	for (let i = 0; i < 6; i++)
		await page.keyboard.press('-');

	// With a time selected, zooming centres it (as the original viewer
	// does): the buttons and the keys alike.
	await clickAt(page, 0, 1, 7e6);
	const selected = (await page.evaluate(() => window.statemapViewer.bars()))[0];
	await page.keyboard.press('+');
	await page.click('#statemap-zoomin');
	const vc = await page.evaluate(() => window.statemapViewer.view());
	check('plain: zoomed with a time selected, it is in the middle', vc.width === 2.5e6 &&
	    Math.abs(vc.t0 + vc.width / 2 - selected) < 1, JSON.stringify([vc, selected]));
	// A click on the time label clears the selected time (Escape clears all).
	await page.click('#statemap-timelabel');
	eq('plain: a click on the span label clears the time', [await page.evaluate(() =>
	    window.statemapViewer.bars()), (await page.$$('.statemap-timebar')).length], [[], 0]);
	await clickAt(page, 0, 1, 6e6);
	await page.click('.statemap-timebar-label');
	eq('plain: and one on the time bar\'s label', [await page.evaluate(() =>
	    window.statemapViewer.bars()), (await page.$$('.statemap-timebar')).length], [[], 0]);
	for (let i = 0; i < 2; i++)
		await page.keyboard.press('-');

	// Events: a marker each, an arrow for the one with a target.
	eq('plain: event markers', (await page.$$('.statemap-event')).length, 2);
	eq('plain: one arrow', (await page.$$('.statemap-event-arrow')).length, 1);
	const marks = await page.$$('.statemap-event-marker');
	await marks[0].hover();
	const pe = await panel(page);
	check('plain: hovering an event shows it', pe.includes('event wakeup') &&
	    pe.includes('at 3.500ms on t1') && pe.includes('target t3'), JSON.stringify(pe));
	await page.screenshot({ path: path.join(artefacts, 'plain-event.png') });
	await page.click('#statemap-events-toggle');
	check('plain: the toggle hides events', !(await page.isVisible('.statemap-event-marker')), 'still visible');
	await page.click('#statemap-events-toggle');

	// Search: a regex, then a substring that is not a valid regex.
	await page.keyboard.press('/');
	await page.keyboard.type('t[23]');
	eq('plain: search by regex', await labelNames(page, '.statemap-match'), ['t2', 't3']);
	eq('plain: search count', await page.textContent('.statemap-search-count'), '2 matching');
	await page.fill('#statemap-search', 'worker');
	eq('plain: search matches descriptions', await labelNames(page, '.statemap-match'), ['t1']);
	await page.fill('#statemap-search', '(');
	eq('plain: a bad regex is a substring', await page.textContent('.statemap-search-count'),
	    '0 matching (as text)');
	await page.fill('#statemap-search', 't1');
	await clickAt(page, 0, 0, 3e6);
}

// plain.out from 2ms on (-b 2ms): the window is [2ms, 10ms) of the trace.
async function window_(page) {
	eq('window: the span label gives the left edge', await spanLabel(page),
	    'span = 8.000ms; left edge at 2.000ms from start (epoch 1700000000.502000000s)');
	await page.click('#statemap-zoomin');
	eq('window: zoomed, both offsets', await spanLabel(page), 'span = 4.000ms; left edge at ' +
	    '2.000ms into the window, 4.000ms from start (epoch 1700000000.504000000s)');
	await clickAt(page, 0, 1, 3e6);
	const p = await panel(page);
	near('window: the time bar from the trace start', p[0], /\(([0-9.]+)ms from start\)$/, 5, 0.006);
	eq('window: t2 and its rectangle in the window', p.slice(2, 4),
	    ['Thread t2', 'state: run']);
	eq('window: rectangle offsets in the window', p[4], 'from 0ns to 4.000ms (4.000ms)');
}

// tagged.out: d1 cpu [0,100) io r1 [100,400) cpu [400,500) io w1
// [500,1000); d2 io r2 [0,300) cpu [300,600) io r1 [600,900) cpu
// [900,1000).  r1 = sd0 read, w1 = sd1 write, r2 = sd1 read.
async function tagged(page) {
	await clickAt(page, 0, 0, 200);
	const p = await panel(page);
	eq('tagged: clicked rectangle and its tag', p.slice(2, 7),
	    ['Disk d1', 'state: io', 'from 100ns to 400ns (300ns)', 'tags:', 'io r1: 300ns']);
	eq('tagged: tag members', p[7], 'device="sd0", op="read"');
	await page.keyboard.press('Escape');

	await page.click('#statemap-legend-0-1');
	check('tagged: legend entry marked', await page.$eval('#statemap-legend-0-1',
	    (r) => r.classList.contains('statemap-legend-selected')), 'not marked');
	const fade = await page.evaluate(() => {
		const rs = document.querySelectorAll('#statemap-0 g > rect');
		return Array.from(rs).map((r) => getComputedStyle(r).opacity);
	});
	eq('tagged: other states fade', fade, ['0.15', '1', '0.15', '1', '1', '0.15', '1', '0.15']);
	eq('tagged: tag fields of the state', await texts(page, '.statemap-panel-field'),
	    ['▸ tag', '▸ device', '▸ op']);
	await page.click('.statemap-panel-field >> nth=1');
	eq('tagged: device over the whole span', await texts(page, '.statemap-panel-value'),
	    ['sd1: 800ns', 'sd0: 600ns']);
	await page.click('.statemap-panel-field >> nth=2');
	eq('tagged: op over the whole span', await texts(page, '.statemap-panel-value'),
	    ['read: 900ns', 'write: 500ns']);
	await page.screenshot({ path: path.join(artefacts, 'tagged-field.png') });
	// Zoomed to [500, 1000): d1 w1 500ns, d2 r1 300ns.
	await page.evaluate(() => {});
	await page.keyboard.type('500');
	await page.keyboard.press('Enter');
	for (let i = 0; i < 10; i++)
		await page.keyboard.press('ArrowRight');
	eq('tagged: op over the visible span', await texts(page, '.statemap-panel-value'),
	    ['write: 500ns', 'read: 300ns']);
	for (let i = 0; i < 3; i++)
		await page.keyboard.press('-');
	// At 700: d1 in w1 (500ns), d2 in r1 (300ns).
	await clickAt(page, 0, 1, 700);
	eq('tagged: op at the selected time', await texts(page, '.statemap-panel-value'),
	    ['write: 500ns', 'read: 300ns']);
	eq('tagged: legend counts at 700ns', await texts(page, '.statemap-legend-count'),
	    ['0 (0.0%)', '2 (100.0%)']);
	await page.click('.statemap-panel-field >> nth=0');
	eq('tagged: tag names at the selected time', await texts(page, '.statemap-panel-value'),
	    ['w1: 500ns', 'r1: 300ns']);
	await page.screenshot({ path: path.join(artefacts, 'tagged-time.png') });
	await page.click('.statemap-legendlabel >> text=io');
	eq('tagged: clicking again clears', await page.$$eval('.statemap-legend-selected', (e) => e.length), 0);
	const op = await page.$eval('#statemap-0 g > rect', (r) => getComputedStyle(r).opacity);
	eq('tagged: nothing faded', op, '1');
}

// ../golden/json-basic/input.out with -c 5: cpu0's first rectangle
// [0, 220) merged idle 155, user 60, sys 5.
async function blend(page) {
	await clickAt(page, 0, 0, 100);
	const p = await panel(page);
	eq('blend: the blend of a merged rectangle', p.slice(2, 7),
	    ['CPU cpu0', 'blend of states:', 'idle 70.5% (155ns)', 'user 27.3% (60ns)', 'sys 2.3% (5ns)']);
	eq('blend: its span', p[7], 'from 0ns to 220ns (220ns)');
}

// stack-a.out (first on alpha: a1, a2) over stack-b.out (second on beta,
// start 200ns later: b1 off [0,250) on [250,800) of its own time, which is
// [200, 450) and [450, 1000) of the window).
async function stacked(page) {
	eq('stacked: one shared legend', (await page.$$('.statemap-legend')).length, 2);
	await clickAt(page, 1, 0, 600);
	const p = await panel(page);
	eq('stacked: the statemap title', p[0], 'second on beta');
	eq('stacked: its own time', p[1], 'time: 600ns (400ns from start)');
	eq('stacked: the entity and state', p.slice(3, 7),
	    ['Entity b1', 'the only one', 'state: on', 'from 450ns to 1.000μs (550ns)']);
	// At 600: a1 off, a2 off, b1 on.
	eq('stacked: counts over both', await texts(page, '.statemap-legend-count'),
	    ['1 (33.3%)', '2 (66.7%)']);
	await clickAt(page, 0, 0, 100);
	eq('stacked: the first title', (await panel(page))[0], 'first on alpha');
}

// ../golden/svg-escape/input.out: names that are markup, script and "]]>".
async function hostile(page) {
	const labels = await labelNames(page, '.statemap-labels text');
	const full = await texts(page, '.statemap-labels text > title');
	check('hostile: names are text', labels.some((l) => l.startsWith('</script><script>alert(1)</script>')) &&
	    full.some((l) => l.startsWith('</script><script>alert(1)</script> line')) &&
	    labels.includes(']]>') && labels.includes('a"b\'c&d'), JSON.stringify([labels, full]));
	eq('hostile: only our two scripts', await page.$$eval('script', (s) => s.map((e) => e.id)),
	    ['statemap-data', 'statemap-viewer']);
	// Its names hold '/': the entity is under a group header.
	await clickOn(page, '</script><script>alert(1)</script>', 5);
	const p = await panel(page);
	check('hostile: the panel shows the name as text', p.some((t) => t.includes('</script><script>alert(1)</script>')),
	    JSON.stringify(p));
	check('hostile: tag members as text', p.some((t) => t.includes(']]><script>alert(2)</script>')),
	    JSON.stringify(p));
	await page.click('#statemap-legend-0-0');
	await page.click('.statemap-panel-field >> nth=1');
	eq('hostile: tag values as text', await texts(page, '.statemap-panel-value'),
	    [']]><script>alert(2)</script>: 8ns']);
	eq('hostile: no element injected', await page.$$eval('b', (e) => e.length), 0);
}

// big.out: 1000 entities, 25000 rectangles (the default budget).  What
// each interaction does; how long it takes is bench/viewer's (figures,
// never a check: a busy machine is slow).
async function big(page) {
	const n = await page.$$eval('.statemap-map g > rect', (r) => r.length);
	check('big: the largest default output', n >= 24000, n + ' rectangles');
	const v0 = await page.evaluate(() => window.statemapViewer.view());
	await page.evaluate(() => document.getElementById('statemap-zoomin').dispatchEvent(new MouseEvent('click')));
	const v1 = await page.evaluate(() => window.statemapViewer.view());
	check('big: the zoom button halves the span about its middle', v1.width === v0.width / 2 &&
	    v1.t0 === v0.t0 + v0.width / 4, JSON.stringify([v0, v1]));
	await page.evaluate(() => document.getElementById('statemap-panright').dispatchEvent(new MouseEvent('click')));
	const v = await page.evaluate(() => window.statemapViewer.view());
	check('big: the pan button moves the view a quarter of it', v.width === v1.width &&
	    Math.abs(v.t0 - v1.t0 - v1.width / 4) < 1e-6 * v1.width, JSON.stringify([v1, v]));
	const p = await pointFor(page, 0, 500, v.t0 + v.width / 2);
	await page.mouse.click(p.x, p.y);
	await page.waitForFunction(() => document.querySelectorAll('#statemap-panel text').length > 3);
	const name = (await labelNames(page, '.statemap-labels text'))[500];
	const pc = await panel(page);
	check('big: a click shows the entity under it and its rectangle', pc[0].startsWith('time: ') &&
	    pc.includes('Entity ' + name) &&
	    pc.some((t) => /^state: [abc]$/.test(t) || t === 'blend of states:'), JSON.stringify([name, pc.slice(0, 6)]));
	await page.click('#statemap-legend-0-0');
	check('big: a state selection', await page.$eval('#statemap-legend-0-0',
	    (r) => r.classList.contains('statemap-legend-selected')) &&
	    (await panel(page)).includes('state a selected'), JSON.stringify(await panel(page)));
	await page.keyboard.type('1ms');
	await page.keyboard.press('Enter');
	check('big: a deep zoom', (await spanLabel(page)).startsWith('span = 1.000ms'), await spanLabel(page));
}

// Clicks the element matching sel whose text is exactly txt.
async function clickText(page, sel, txt) {
	const els = await page.$$(sel);
	for (const e of els) {
		if ((await e.textContent()) === txt)
			return e.click();
	}
	throw new Error('no ' + sel + ' with text ' + JSON.stringify(txt));
}

// The opacity of each rectangle of statemap 0, in document order.
const opacities = (page) => page.evaluate(() =>
    Array.from(document.querySelectorAll('#statemap-0 g > rect')).map((r) => getComputedStyle(r).opacity));

// plain.out's legend: run, wait, idle.  A click selects one state; a
// shift-click adds one (or takes it out), so several stay bright.  Rects
// in order: t1 run wait run, t2 idle run wait, t3 wait idle.
async function legend(page) {
	const f = '0.15';
	await page.click('#statemap-legend-0-0');
	eq('legend: a click keeps one state', await opacities(page), ['1', f, '1', f, '1', f, f, f]);
	await page.click('#statemap-legend-0-1', { modifiers: ['Shift'] });
	eq('legend: shift-click keeps a second one', await opacities(page), ['1', '1', '1', f, '1', '1', '1', f]);
	eq('legend: both marked', await page.$$eval('.statemap-legend-selected', (e) => e.map((r) => r.id)),
	    ['statemap-legend-0-0', 'statemap-legend-0-1']);
	check('legend: the panel names both', (await panel(page)).includes('run, wait'), JSON.stringify(await panel(page)));
	await page.click('.statemap-legendlabel >> text=idle', { modifiers: ['Shift'] });
	eq('legend: and a third', await opacities(page), ['1', '1', '1', '1', '1', '1', '1', '1']);
	await page.click('#statemap-legend-0-0', { modifiers: ['Shift'] });
	eq('legend: shift-click takes one out', await opacities(page), [f, '1', f, '1', f, '1', '1', '1']);
	const hatch = await page.$eval('.statemap-nodata', (r) => getComputedStyle(r).fill);
	eq('legend: no data is plain white while rectangles fade', hatch, 'rgb(255, 255, 255)');
	await page.click('#statemap-legend-0-2');
	eq('legend: a click without shift keeps only that one', await opacities(page), [f, f, f, '1', f, f, f, '1']);
	await page.click('#statemap-legend-0-2');
	eq('legend: clicking it again clears', await opacities(page), ['1', '1', '1', '1', '1', '1', '1', '1']);
	check('legend: no data is a hatch again', (await page.$eval('.statemap-nodata',
	    (r) => getComputedStyle(r).fill)).startsWith('url('), 'not a pattern');
}

// tagged.out (see tagged above).  Clicking a tag value highlights every
// rectangle with it, across entities; rects in order: d1 cpu, io r1, cpu,
// io w1; d2 io r2, cpu, io r1, cpu.
async function tagvalues(page) {
	const f = '0.12';
	await clickAt(page, 0, 0, 200);
	await clickText(page, '.statemap-panel-tagval', '"sd0"');
	eq('tags: a member value highlights its rectangles', await opacities(page),
	    [f, '1', f, f, f, f, '1', f]);
	const p = await panel(page);
	check('tags: the panel says what is highlighted', p.includes('highlighted: io device sd0') &&
	    p.includes('2 rectangles on 2 entities, 600ns in all'), JSON.stringify(p));
	check('tags: and the entity\'s time by that field', p.includes('Disk d1 by device at 200ns:'),
	    JSON.stringify(p));
	eq('tags: the entity\'s breakdown', await texts(page, '.statemap-panel-entity-value'), ['sd0: 300ns']);
	await clickText(page, '.statemap-panel-tagval', '"read"');
	eq('tags: another field', await opacities(page), [f, '1', f, f, '1', f, '1', f]);
	await clickText(page, '.statemap-panel-tagval', 'r1');
	eq('tags: the tag itself', await opacities(page), [f, '1', f, f, f, f, '1', f]);
	await clickText(page, '.statemap-panel-tagval', 'r1');
	eq('tags: the same value again clears', await opacities(page), ['1', '1', '1', '1', '1', '1', '1', '1']);
	await page.keyboard.press('Escape');

	// From the state's field list: io, device, then the value sd1.
	await page.click('#statemap-legend-0-1');
	await page.click('.statemap-panel-field >> nth=1');
	await clickText(page, '.statemap-panel-value .statemap-panel-tagval', 'sd1');
	eq('tags: a value from the field list', await opacities(page), [f, f, f, '1', '1', f, f, f]);
	check('tags: the value is marked', (await texts(page, '.statemap-panel-value-selected')).length === 1,
	    JSON.stringify(await texts(page, '.statemap-panel-value-selected')));
	// A selected entity gets its own breakdown: d2 over the whole span.
	await page.keyboard.press('Shift+ArrowDown');
	await page.keyboard.press('Shift+ArrowDown');
	eq('tags: the selected entity by device', await texts(page, '.statemap-panel-entity-value'),
	    ['sd0: 300ns', 'sd1: 300ns']);
	await page.keyboard.press('Escape');
	const s = '0.15';
	eq('tags: Escape clears the highlight (the state stays selected)', await opacities(page),
	    [s, '1', s, '1', '1', s, '1', s]);
	await page.screenshot({ path: path.join(artefacts, 'tagvalues.png') });
}

// ../golden/json-basic/input.out with -c 5: merged rectangles keep their
// time per tag.  cpu0 [0,220) has postgres (pid 42) 60ns, [220,400) vim;
// cpu1 [0,150), [150,300) with postgres 100ns, [300,400).
async function tagmerged(page) {
	await clickAt(page, 0, 0, 100);
	await clickText(page, '.statemap-panel-tagval', '42');
	eq('tags: merged rectangles with the value', await opacities(page), ['1', '0.12', '0.12', '1', '0.12']);
	check('tags: their time', (await panel(page)).includes('2 rectangles on 2 entities, 160ns in all'),
	    JSON.stringify(await panel(page)));
}

// Every text and control inside the window, and no sideways scrolling,
// before and after a click on the map (which fills the panel).
async function inside(page, name) {
	const out = await page.evaluate(() => {
		const W = window.innerWidth, H = window.innerHeight, bad = [];
		const els = document.querySelectorAll('text, foreignObject, .statemap-button, #statemap-panel-box');
		for (const e of els) {
			if (e.closest('[display="none"]') || e.getClientRects().length === 0)
				continue;
			const b = e.getBoundingClientRect();
			if (b.width === 0 && b.height === 0)
				continue;
			if (b.left < -0.5 || b.right > W + 0.5 || b.top + window.scrollY < -0.5)
				bad.push((e.id || e.getAttribute('class') || e.tagName) + ' "' +
				    (e.textContent || '').slice(0, 30) + '" ' + Math.round(b.left) + '..' + Math.round(b.right));
		}
		const box = (document.getElementById('statemap-panel-box') ||
		    document.getElementById('statemap-panel')).getBoundingClientRect();
		return { bad: bad, scroll: document.scrollingElement.scrollWidth, W: W, H: H,
		    box: [box.left, box.top, box.right, box.bottom] };
	});
	eq(name + ': every text and control inside the window', out.bad, []);
	check(name + ': no sideways scrolling', out.scroll <= out.W, out.scroll + ' > ' + out.W);
	return out;
}

function layoutCase(name, before) {
	return async function (page) {
		if (before)
			await before(page);
		await inside(page, name);
		const p = await pointFor(page, 0, 0, (await page.evaluate(() => window.statemapViewer.view().width)) / 3);
		await page.mouse.click(p.x, p.y);
		const out = await inside(page, name + ' with details');
		// Across the window, and never over the rows (below them if the
		// map runs below the window: scrolled to).
		const maps = await page.evaluate(() => document.getElementById('statemap-0').getBoundingClientRect().bottom);
		check(name + ': the details panel is across the window, under the rows', out.box[0] >= 0 &&
		    out.box[2] <= out.W && out.box[1] >= maps, JSON.stringify([out.box, maps]));
		check(name + ': the panel shows the click', (await panel(page)).some((t) => t.startsWith('time: ')),
		    JSON.stringify(await panel(page)));
	};
}

// 1000 entities at 1280x720: the map runs far below the window, and the
// panel is under it (never over rows), reached by scrolling, and can be
// folded away.
async function bigNarrow(page) {
	await layoutCase('big-1280')(page);
	eq('big-1280: narrow layout', await page.evaluate(() => window.statemapViewer.layout().wide), false);
	await page.$eval('#statemap-panel-box', (b) => b.scrollIntoView());
	await page.waitForTimeout(200);
	const box = await page.$eval('#statemap-panel-box', (b) => { const r = b.getBoundingClientRect(); return [r.top, r.bottom]; });
	check('big-1280: the panel is reached by scrolling', box[0] >= 0 && box[1] <= 720, JSON.stringify(box));
	await page.click('#statemap-panel-fold');
	check('big-1280: the panel folds', !(await page.isVisible('#statemap-panel text')), 'still visible');
	await page.click('#statemap-panel-fold');
	check('big-1280: and unfolds', await page.isVisible('#statemap-panel text'), 'not visible');
}

// The example trace: 40 threads, 873 events.  At 1280x720 the events are
// ticks that a click goes through; the selected entity's events are listed
// in the panel and drawn with their arrows; zoomed in, diamonds again.
async function dense(page) {
	// Right on the 100th event: a pixel above its strip's middle.
	const ev = await page.evaluate(() => {
		const sm = JSON.parse(document.getElementById('statemap-data').textContent).statemaps[0];
		const e = sm.events[100];
		return { row: sm.entities.findIndex((x) => x.name === e.entity), off: e.time - sm.begin };
	});
	const at = await pointFor(page, 0, ev.row, ev.off);
	await page.mouse.click(at.x, at.y - 1);
	const p = await panel(page);
	check('events: a click on an event tick selects the rectangle', p[0].startsWith('time: ') &&
	    p.some((t) => t.startsWith('Thread ')) && p.some((t) => t.startsWith('state: ')), JSON.stringify(p));
	const list = await texts(page, '.statemap-panel-eventlink');
	check('events: the panel lists the entity\'s events', list.length > 0 && list.every((t) => /^wakeup at /.test(t)),
	    JSON.stringify(list));
	const related = await page.$$eval('.statemap-event-related', (e) => e.length);
	check('events: the entity\'s events stand out', related > 0, related + ' related');
	eq('events: dense events are ticks', await page.evaluate(() => window.statemapViewer.eventsDense()), true);
	await page.click('.statemap-panel-eventlink >> nth=0');
	const p2 = await panel(page);
	check('events: a listed event shows its details', p2.includes('event wakeup'), JSON.stringify(p2));
	await page.screenshot({ path: path.join(artefacts, 'db-threads-event.png') });
	await page.keyboard.press('Escape');
	await page.keyboard.type('20ms');
	await page.keyboard.press('Enter');
	eq('events: zoomed in, diamonds again', await page.evaluate(() => window.statemapViewer.eventsDense()), false);
	check('events: diamonds are shown', await page.isVisible('.statemap-event-marker >> nth=0') ||
	    (await page.$$eval('.statemap-event-marker', (m) => m.some((e) => e.getClientRects().length > 0 &&
	    getComputedStyle(e).display !== 'none'))), 'none shown');
}

// A wide window has the panel beside the names; narrowing the window
// moves it under the map, and widening it again puts it back.
async function resize(page) {
	await clickAt(page, 0, 3, 5e8);
	const wide = await page.evaluate(() => window.statemapViewer.layout().wide);
	const bx = await page.$eval('#statemap-panel-box', (b) => b.getBoundingClientRect().left);
	check('resize: wide, the panel is beside the names', wide && bx > 1200, wide + ' ' + bx);
	await page.setViewportSize({ width: 1280, height: 720 });
	await until(page, () => !window.statemapViewer.layout().wide);
	eq('resize: narrow', await page.evaluate(() => window.statemapViewer.layout().wide), false);
	const out = await inside(page, 'resize 1280');
	check('resize: the panel is under the map, in the window', out.box[0] < 200 && out.box[3] <= out.H,
	    JSON.stringify(out.box));
	check('resize: it still shows the click', (await panel(page)).some((t) => t.startsWith('Thread ')),
	    JSON.stringify(await panel(page)));
	await page.setViewportSize({ width: 1000, height: 700 });
	await until(page, () => window.statemapViewer.layout().scale < 1);
	await inside(page, 'resize 1000');
	const sc = await page.evaluate(() => window.statemapViewer.layout().scale);
	check('resize: narrower than the drawing, it is scaled down', sc < 1 && sc > 0.7, String(sc));
	await page.setViewportSize({ width: 1600, height: 700 });
	await until(page, () => window.statemapViewer.layout().wide &&
	    window.statemapViewer.layout().scale === 1);
	eq('resize: wide again', await page.evaluate(() => window.statemapViewer.layout()),
	    { wide: true, scale: 1, folded: false });
}

// messages.out: a message from a at 1ms to b at 3ms of a 10ms trace: a
// slanted arrow whose far end is 2ms (a fifth of the span) to the right
// at any zoom, and the panel shows its id, time received and members
// (as text: the note's markup stays text).
async function messages(page) {
	eq('messages: one message arrow', (await page.$$('.statemap-event-message')).length, 1);
	const ratio = () => page.evaluate(() => {
		const l = document.querySelector('.statemap-event-message');
		const svg = document.getElementById('statemap-0');
		const v = window.statemapViewer.view();
		return (+l.getAttribute('x2')) / +svg.getAttribute('width') * v.width / 2e6;
	});
	near('messages: the arrow ends 2ms later', String(await ratio()), /([\d.]+)/, 1, 0.01);
	await (await page.$('.statemap-event-marker')).hover();
	const pe = await panel(page);
	check('messages: the panel shows the message', pe.includes('id a|b|U(MSG):1') &&
	    pe.some((t) => /^received at 3\.0+ms \(after 2\.0+ms\)$/.test(t)) &&
	    pe.includes('type: "MSG"') && pe.includes('note: "<b>not markup</b>"'), JSON.stringify(pe));
	eq('messages: no markup from members', await page.$$eval('#statemap-panel b', (b) => b.length), 0);
	await page.mouse.move(5, 5);
	await page.keyboard.press('+');
	await page.keyboard.press('+');
	near('messages: and still zoomed in', String(await ratio()), /([\d.]+)/, 1, 0.01);
}

// messages-n1.out and messages-n2.out stacked: hosts n1 (entity a) and
// n2 (entities b, z: b the first row).  A whole message from a at 1ms to
// "n2/b" at 3ms, and a send from a at 4ms to node "n2" whose receive b
// logs at 6ms: two arrows from the middle of a's row to the middle of
// b's, each 2ms long, at any zoom.  The plain wakeup to "n2/b" draws no
// arrow.
async function messagesStacked(page) {
	const arrows = () => page.$$eval('.statemap-event-cross', (ls) => {
		const v = window.statemapViewer.view();
		const a = document.getElementById('statemap-0'), b = document.getElementById('statemap-1');
		const W = +a.getAttribute('width');
		/* Where in its row each end is: 0.5 is the middle of the first. */
		return ls.map((l) => [Math.round((+l.getAttribute('x2') - +l.getAttribute('x1')) / W * v.width / 1e3),
		    (+l.getAttribute('y1') - +a.getAttribute('y')) / +a.getAttribute('height'),
		    (+l.getAttribute('y2') - +b.getAttribute('y')) / (+b.getAttribute('height') / 2)]);
	});
	eq('messages stacked: two arrows from a to b, 2ms each', await arrows(), [[2000, 0.5, 0.5], [2000, 0.5, 0.5]]);
	await page.keyboard.press('+');
	eq('messages stacked: zoomed, still 2ms', (await arrows()).map((a) => a[0]), [2000, 2000]);
	eq('messages stacked: no arrow of its own for the plain event', (await page.$$('.statemap-event-arrow')).length, 2);
}

// Page coordinates of offset `off` on the slot of entity `name` in
// statemap 0 (a statemap with groups has header slots between rows).
function pointOn(page, name, off) {
	return page.evaluate(([n, o]) => {
		const svg = document.getElementById('statemap-0');
		const slots = window.statemapViewer.slots()[0];
		const v = window.statemapViewer.view();
		const root = document.documentElement;
		const pt = root.createSVGPoint();
		pt.x = +svg.getAttribute('x') + (o - v.t0) / v.width * +svg.getAttribute('width');
		pt.y = +svg.getAttribute('y') + (slots.indexOf(n) + 0.5) * window.statemapViewer.slotHeights()[0];
		const q = pt.matrixTransform(root.getScreenCTM());
		return { x: q.x, y: q.y };
	}, [name, off]);
}

async function clickOn(page, name, off) {
	const p = await pointOn(page, name, off);
	await page.mouse.click(p.x, p.y);
}

// ../golden/state-system-draw/input.out (100ns): rows cpu0, proc/12/mem
// (values 1000 [0,15), 1500.5 [15,25), null [25,35), -250 [35,55), ...),
// proc/12/name (strings: "init" [0,32), 'serve "x"' [32,62), null,
// "init"), proc/12/thread/3 (nested: at 35 the stack is idle, run,
// lock, run; 4 depths), proc/12/thread/4.
async function kinds(page) {
	const names = ['cpu0', 'proc/12/mem', 'proc/12/name', 'proc/12/thread/3', 'proc/12/thread/4'];
	const valueAt = async (row, t) => {
		await clickOn(page, names[row], t);
		return (await panel(page)).filter((l) => /^(value: |no value|merged values|min )/.test(l));
	};
	eq('kinds: a clicked number', await valueAt(1, 20), ['value: 1500.5']);
	eq('kinds: a negative one', await valueAt(1, 40), ['value: -250']);
	eq('kinds: null time', await valueAt(1, 30), ['no value (null)']);
	eq('kinds: a clicked string', await valueAt(2, 40), ['value: "serve "x""']);
	eq('kinds: the value strip is a step graph, one rect per rectangle',
	    await page.$$eval('#statemap-0-entity-1 rect', (rs) => rs.map((r) => +r.getAttribute('height') > 0)),
	    [true, true, false, true, true, true, true]);
	eq('kinds: its min and max at the strip', await texts(page, '.statemap-value-ranges text'),
	    ['-250 – 3000']);
	await clickOn(page, names[3], 35);
	const p = await panel(page);
	check('kinds: the nested entity\'s top and stack', p.includes('state: run') &&
	    p.includes('stack: idle › run › lock › run'), JSON.stringify(p));
	const t3 = 'proc/12/thread/3', stack = ['idle', 'run', 'lock', 'run'];
	const slots0 = async () => (await page.evaluate(() => window.statemapViewer.slots()))[0];
	const before = await slots0();
	eq('kinds: collapsed at first', (await page.$$('.statemap-depth-row')).length, 0);
	eq('kinds: a ▸ before the nested entity\'s name, none before the others',
	    await texts(page, '.statemap-depth-name'), ['▸ ']);
	// What is drawn at a page point: the fill of the depth row's rectangle there.
	const fillAt = (q) => page.evaluate(([x, y]) => {
		const e = document.elementFromPoint(x, y);
		return e && e.closest('.statemap-depth-row') ? e.getAttribute('fill') : null;
	}, [q.x, q.y]);
	// Each state's colour, as the strip of a one-state rectangle draws it.
	const colour = (st) => page.evaluate((name) => {
		const swatches = document.querySelectorAll('.statemap-legend');
		const labels = document.querySelectorAll('.statemap-legendlabel');
		for (let i = 0; i < labels.length; i++)
			if (labels[i].firstChild.textContent === name)
				return getComputedStyle(swatches[i]).fill.replace(/ /g, '');
		return null;
	}, st);
	const expandedChecks = async (how) => {
		eq('kinds: expanded ' + how + ', one slot per depth directly under the strip', await slots0(),
		    before.slice(0, before.indexOf(t3) + 1).concat([1, 2, 3, 4].map((d) => t3 + ' #' + d),
			before.slice(before.indexOf(t3) + 1)));
		const at = await pointOn(page, t3, 35);
		const boxes = await page.evaluate(([n, x, y]) => {
			const strip = document.elementFromPoint(x, y).getBoundingClientRect();
			return [[strip.top, strip.bottom]].concat(Array.from(
			    document.querySelectorAll('.statemap-depth-row[data-entity="' + n + '"]'), (g) => {
				const b = g.getBoundingClientRect();
				return [b.top, b.bottom];
			}));
		}, [t3, at.x, at.y]);
		eq('kinds: four depth rows', boxes.length, 5);
		check('kinds: each row right under the one above, as high as the strip', boxes.slice(1).every((b, i) =>
		    Math.abs(b[0] - boxes[i][1]) < 0.6 && Math.abs((b[1] - b[0]) - (boxes[0][1] - boxes[0][0])) < 0.6),
		    JSON.stringify(boxes));
		eq('kinds: the panel\'s control says so', await page.textContent('.statemap-depth-toggle'),
		    '▾ hide 4 depth rows');
		eq('kinds: and the name\'s', await texts(page, '.statemap-depth-name'), ['▾ ']);
	};
	await page.click('.statemap-depth-name');
	await expandedChecks('from the name');
	eq('kinds: each depth row drawn from its depths', await page.$$eval('.statemap-depth-row',
	    (gs) => gs.map((g) => g.getElementsByTagName('rect').length)), [2, 2, 1, 1]);
	for (let d = 1; d <= 4; d++) {
		const q = await pointOn(page, t3 + ' #' + d, 35);
		eq('kinds: depth ' + d + ' at 35 in ' + stack[d - 1] + '\'s colour', await fillAt(q),
		    await colour(stack[d - 1]));
		await page.mouse.click(q.x, q.y);
		const p = await panel(page);
		check('kinds: a click on depth ' + d + ' selects the entity and says its state there',
		    p.includes('Entity ' + t3) && p.includes('depth ' + d + ': ' + stack[d - 1]) &&
		    p.includes('stack: idle › run › lock › run'), JSON.stringify(p));
	}
	await page.click('.statemap-depth-toggle');
	eq('kinds: collapsed from the panel', (await page.$$('.statemap-depth-row')).length, 0);
	eq('kinds: the slots as before', await slots0(), before);
	eq('kinds: the ▸ again', await texts(page, '.statemap-depth-name'), ['▸ ']);
	await page.click('.statemap-depth-toggle');
	await expandedChecks('from the panel');
	await page.keyboard.press('+');
	eq('kinds: zoomed, the rows follow the view', (await page.$$('.statemap-depth-row')).length, 4);
	const v = await page.evaluate(() => window.statemapViewer.view());
	const mid = v.t0 + v.width / 2;
	const sx = (await pointOn(page, t3, mid)).x;
	const q4 = await pointOn(page, t3 + ' #1', mid);
	check('kinds: zoomed, a depth row is drawn at the view\'s middle', (await fillAt(q4)) !== null &&
	    Math.abs(q4.x - sx) < 0.01, JSON.stringify([v, q4]));
	await page.click('.statemap-group-head >> nth=1');
	eq('kinds: its group folded, the depth rows fold with it', [(await page.$$('.statemap-depth-row')).length,
	    (await slots0()).filter((n) => n.startsWith(t3)).length], [0, 0]);
	await page.click('.statemap-group-head >> nth=1');
	eq('kinds: unfolded, they are back', (await slots0()).filter((n) => n.startsWith(t3 + ' #')).length, 4);
	await page.click('.statemap-depth-name');
	eq('kinds: collapsed again from the name', (await page.$$('.statemap-depth-row')).length, 0);
	eq('kinds: the slots as before, again', await slots0(), before);

	// Groups by path, as a tree: proc/12 (proc has nothing else, so one
	// header), with mem, name and the inner level thread (3, 4) under it;
	// cpu0 has none.
	eq('kinds: groups under headers', (await page.evaluate(() => window.statemapViewer.slots()))[0],
	    ['cpu0', 'proc/12/', 'proc/12/mem', 'proc/12/name', 'proc/12/thread/', 'proc/12/thread/3',
		'proc/12/thread/4']);
	eq('kinds: the headers in the names column, inner ones by the rest of their path',
	    await labelNames(page, '.statemap-group-head'), ['▾ proc/12', '▾ thread']);
	await page.click('.statemap-group-head >> nth=0');
	eq('kinds: a folded outer level hides all under it', (await page.evaluate(() =>
	    window.statemapViewer.slots()))[0], ['cpu0', 'proc/12/']);
	eq('kinds: its header says how many', (await labelNames(page, '.statemap-group-head'))[0], '▸ proc/12 (4)');
	eq('kinds: its strips are hidden', await page.isVisible('#statemap-0-entity-1 rect'), false);
	await page.click('.statemap-group-head >> nth=0');
	eq('kinds: unfolded again', (await page.evaluate(() => window.statemapViewer.slots()))[0].length, 7);
	check('kinds: its strips are back', await page.isVisible('#statemap-0-entity-1 rect'), 'hidden');
}

// tree.out: a/x/1, a/x/2, a/y, b/z/1, b/z/2, c, h<b>"&/x'/1 and a name
// 5000 levels deep (q/q/.../end), each run from its start, idle from
// 5ms.  The tree: a (x (1, 2), y), b/z as one header (b has only z), c
// at the top, the hostile chain as one, and the deep one as one.
async function tree(page) {
	const slots = async () => (await page.evaluate(() => window.statemapViewer.slots()))[0];
	const heads = () => labelNames(page, '.statemap-group-head');
	const deep = 'q/'.repeat(4999) + 'q';
	const all = await slots();
	eq('tree: every level where its first entity is', all.slice(0, 11),
	    ['a/', 'a/x/', 'a/x/1', 'a/x/2', 'a/y', 'b/z/', 'b/z/1', 'b/z/2', 'c', 'h<b>"&/x\'/', 'h<b>"&/x\'/1']);
	eq('tree: the deep name, its 5000 levels one header', all.slice(11), [deep + '/', deep + '/end']);
	const hs = await heads();
	eq('tree: headers by the rest of their path, chains of one as one', hs.slice(0, 4),
	    ['▾ a', '▾ x', '▾ b/z', '▾ h<b>"&/x\'']);
	check('tree: a header too long for the names column is cut', hs[4].startsWith('▾ q/q/') &&
	    hs[4].endsWith('…') && hs[4].length < 200, hs[4].length);
	const xs = await page.$$eval('.statemap-group-head', (ts) => ts.map((t) => +t.getAttribute('x')));
	check('tree: inner levels indented', xs[1] > xs[0] && xs[2] === xs[0] && xs[3] === xs[0], JSON.stringify(xs));
	eq('tree: names are text, not markup', await page.$$eval('.statemap-group-head', (ts) =>
	    ts.reduce((a, t) => a + t.getElementsByTagName('*').length - t.getElementsByTagName('title').length, 0)), 0);
	// Fold the inner level, then the outer: everything under a hides;
	// unfolding a brings back x folded as it was.
	await page.click('.statemap-group-head >> nth=1');
	eq('tree: the inner level folded', (await slots()).slice(0, 9),
	    ['a/', 'a/x/', 'a/y', 'b/z/', 'b/z/1', 'b/z/2', 'c', 'h<b>"&/x\'/', 'h<b>"&/x\'/1']);
	eq('tree: its header says how many', (await heads())[1], '▸ x (2)');
	const rowOf = async (name) => (await slots()).indexOf(name);
	const yOf = (name) => page.evaluate((n) => {
		const slots = window.statemapViewer.slots()[0], h = window.statemapViewer.slotHeights()[0];
		const svg = document.getElementById('statemap-0');
		return +svg.getAttribute('y') + (slots.indexOf(n) + 0.5) * h;
	}, name);
	const cBefore = await yOf('c');
	await page.click('.statemap-group-head >> nth=0');
	eq('tree: the outer level folded hides its inner one too', (await slots()).slice(0, 7),
	    ['a/', 'b/z/', 'b/z/1', 'b/z/2', 'c', 'h<b>"&/x\'/', 'h<b>"&/x\'/1']);
	eq('tree: its header counts every entity under it', (await heads())[0], '▸ a (3)');
	const cAfter = await yOf('c');
	check('tree: the rows below move up', cAfter < cBefore - 1, cBefore + ' -> ' + cAfter);
	const p = await page.evaluate(([slot]) => {
		const svg = document.getElementById('statemap-0'), h = window.statemapViewer.slotHeights()[0];
		const root = document.documentElement, pt = root.createSVGPoint();
		pt.x = +svg.getAttribute('x') + +svg.getAttribute('width') * 0.25;
		pt.y = +svg.getAttribute('y') + (slot + 0.5) * h;
		const q = pt.matrixTransform(root.getScreenCTM());
		return { x: q.x, y: q.y };
	}, [await rowOf('c')]);
	await page.mouse.click(p.x, p.y);
	check('tree: and are clicked where they are', (await panel(page)).includes('Entity c'),
	    JSON.stringify(await panel(page)));
	await page.click('.statemap-group-head >> nth=0');
	eq('tree: unfolded, the inner level is folded as it was', (await slots()).slice(0, 9),
	    ['a/', 'a/x/', 'a/y', 'b/z/', 'b/z/1', 'b/z/2', 'c', 'h<b>"&/x\'/', 'h<b>"&/x\'/1']);
	await page.click('.statemap-group-head >> nth=1');
	eq('tree: and unfolded, all is back', (await slots()).length, 13);
}

// The same with -c 4: proc/12/mem's first rectangle merges [0,75).
async function kindsMerged(page) {
	await clickOn(page, 'proc/12/mem', 10);
	const p = await panel(page);
	check('kinds merged: min, max and mean of a merged value', p.includes('merged values:') &&
	    p.includes('min -250, max 1500.5, mean 384.7230769230769'), JSON.stringify(p));
	await clickOn(page, 'proc/12/name', 10);
	const q = await panel(page);
	check('kinds merged: time per string', q.includes('"init" 37.6% (32ns)') &&
	    q.includes('"serve "x"" 35.3% (30ns)'), JSON.stringify(q));
}

(async () => {
	const browser = await chromium.launch({
		executablePath: process.env.BROWSER || '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu'],
	});
	await open(browser, 'plain', plain);
	await open(browser, 'window', window_);
	await open(browser, 'tagged', tagged);
	await open(browser, 'blend', blend);
	await open(browser, 'stacked', stacked);
	await open(browser, 'hostile', hostile);
	await open(browser, 'messages', messages);
	await open(browser, 'messages-stacked', messagesStacked);
	await open(browser, 'big', big);
	await open(browser, 'plain', legend, null, 'legend');
	await open(browser, 'tagged', tagvalues, null, 'tagged-values');
	await open(browser, 'blend', tagmerged, null, 'blend-tags');
	await open(browser, 'kinds', kinds);
	await open(browser, 'kinds-merged', kindsMerged);
	await open(browser, 'tree', tree);
	// Readable without instructions at 1280x720 (and 1400x800).
	const small = { width: 1280, height: 720 };
	for (const name of ['plain', 'tagged', 'stacked', 'hostile', 'many', 'db-threads', 'cpu', 'kinds'])
		await open(browser, name, layoutCase(name + '-1280'), small, 'layout-' + name + '-1280');
	await open(browser, 'db-threads', layoutCase('db-threads-1400'), { width: 1400, height: 800 },
	    'layout-db-threads-1400');
	await open(browser, 'many', layoutCase('many-1400'), { width: 1400, height: 800 }, 'layout-many-1400');
	await open(browser, 'big', bigNarrow, small, 'layout-big-1280');
	await open(browser, 'db-threads', dense, small, 'db-threads-dense');
	await open(browser, 'db-threads', resize, { width: 1600, height: 700 }, 'resize');
	await browser.close();
	process.exit(failures() > 0 ? 1 : 0);
})().catch((e) => {
	console.log('FAIL viewer: ' + e.message.split('\n')[0]);
	process.exit(1);
});
