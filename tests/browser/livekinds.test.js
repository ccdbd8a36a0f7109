// livekinds.test.js: the live server's answers for value and nested
// entities (test_livekinds.sh serves the trace it describes) in headless
// Chromium through playwright-core.
//
//   node livekinds.test.js URL ARTEFACTS
//
// Rows: cpu, gauge (value 2i+1 over [i us, i+1 us)), worker (nested:
// idle; a pushed at every 5us, b from +1.5us to +3us, a popped at +4us).
'use strict';
const path = require('path');
const { chromium } = require('playwright-core');
const truth = require('./truth.js');

const [url, artefacts] = process.argv.slice(2);
const { check, eq, failures } = require('./report.js')('livekinds');

const { newPage, panel, texts, pointOn, clickOn, depthRows, zoomTo } = require('./strips.js');

(async () => {
	const { browser, page, errors } = await newPage(chromium);
	try {
		await page.goto(url);
		await page.waitForFunction(() => window.statemapViewer !== undefined &&
		    window.statemapLive !== undefined, null, { timeout: 20000 });
		await truth.settled(page, 0);
		eq('every row, the value entity too', (await page.evaluate(() => window.statemapViewer.slots()))[0],
		    ['cpu', 'gauge', 'worker']);
		// The whole 4ms: 4000 values in about as many rectangles as pixels.
		await clickOn(page, 'gauge', 2000500);
		let p = await panel(page);
		check('the whole trace: a merged value', p.includes('merged values:') &&
		    p.some((l) => /^min \d+, max \d+, mean [0-9.]+$/.test(l)), JSON.stringify(p));
		await clickOn(page, 'worker', 2000500);
		const toggle = await page.$('.statemap-depth-toggle');
		check('the nested entity offers its depth rows', toggle !== null, JSON.stringify(await panel(page)));
		await page.click('.statemap-depth-toggle');
		const whole = await depthRows(page);
		eq('three depth rows', whole.length, 3);
		eq('one slot per depth right under the strip', (await page.evaluate(() => window.statemapViewer.slots()))[0],
		    ['cpu', 'gauge', 'worker', 'worker #1', 'worker #2', 'worker #3']);
		eq('the name says it is expanded', await texts(page, '.statemap-depth-name'), ['▾ ']);
		// Zoomed to 100us around 2ms: each value exact, from the server.
		await zoomTo(page, 'cpu', 2000000, '100us');
		const v = await page.evaluate(() => window.statemapViewer.view());
		check('zoomed in', Math.abs(v.width - 100000) < 2 && v.t0 < 2000000 && v.t0 + v.width > 2000000,
		    JSON.stringify(v));
		eq('exactly', await page.evaluate(() => window.statemapViewer.indicator()), 'exact');
		for (const i of [1990, 2000, 2011]) {
			await clickOn(page, 'gauge', i * 1000 + 500);
			eq('a clicked value at ' + i + 'us', (await panel(page)).filter((l) => /^value: /.test(l)),
			    ['value: ' + (2 * i + 1)]);
		}
		await clickOn(page, 'worker', 2002000);
		p = await panel(page);
		check('the stack at 2002us', p.includes('state: b') && p.includes('stack: idle › a › b'),
		    JSON.stringify(p));
		const open = await texts(page, '.statemap-depth-toggle');
		eq('still expanded', open, ['▾ hide 3 depth rows']);
		const rows = await depthRows(page);
		eq('three depth rows in the window', rows.length, 3);
		// From the window's own answer: 20 cycles in 100us, each its own
		// rectangle of a (4us) and b (1.5us); idle at depth 1 throughout.
		const colors = await page.evaluate(() => {
			const out = {};
			for (const g of document.querySelectorAll('.statemap-legendlabel'))
				out[g.childNodes[0].textContent] = g.getAttribute('data-color');
			return out;
		});
		eq('depth 1: one rectangle', rows[0].length, 1);
		check('depth 2: one rectangle per cycle', rows[1].length >= 20 && rows[1].length <= 21,
		    rows[1].length);
		check('depth 3: one rectangle per cycle', rows[2].length >= 20 && rows[2].length <= 21,
		    rows[2].length);
		const inner = (rs) => rs.slice(1, -1).map((r) => r[1]);
		const w2 = inner(rows[1]), w3 = inner(rows[2]);
		const rel = (a, b) => Math.abs(a / b - 1) < 0.02;
		check('a lasts 4us, b 1.5us, in every cycle', w2.every((w) => rel(w / w3[0], 4 / 1.5)) &&
		    w3.every((w) => rel(w, w3[0])), JSON.stringify([w2, w3]));
		const starts2 = rows[1].map((r) => r[0]), starts3 = rows[2].map((r) => r[0]);
		const step = (starts2[2] - starts2[1]);
		check('cycles 5us apart, b 1.5us after a', starts2.slice(2).every((x, k) =>
		    Math.abs(x - starts2[k + 1] - step) < 0.5) && rel(step / (w3[0] / 1.5), 5) &&
		    starts3.slice(1, -1).some((x) => Math.abs(x - starts2[2] - w3[0]) < 0.5),
		    JSON.stringify([starts2, starts3]));
		// Drawn where the zoomed view shows them: at 2002us, idle › a › b.
		const fillAt = async (name, off) => {
			const q = await pointOn(page, name, off);
			return page.evaluate(([x, y]) => {
				const e = document.elementFromPoint(x, y);
				return e && e.closest('.statemap-depth-row') ? e.getAttribute('fill') : null;
			}, [q.x, q.y]);
		};
		eq('zoomed, the depth rows follow the view', [await fillAt('worker #1', 2002000),
		    await fillAt('worker #2', 2002000), await fillAt('worker #3', 2002000)],
		    ['rgb(224,224,224)', 'rgb(46,125,50)', 'rgb(198,40,40)']);
		await clickOn(page, 'worker #3', 2002000);
		p = await panel(page);
		check('a click on depth 3 says its state', p.includes('Entity worker') && p.includes('depth 3: b'),
		    JSON.stringify(p));
		const fills = rows.map((rs) => Array.from(new Set(rs.map((r) => r[2]))));
		eq('in their states\' colours', fills, [['rgb(224,224,224)'], ['rgb(46,125,50)'], ['rgb(198,40,40)']]);
		void colors;
		await page.screenshot({ path: path.join(artefacts, 'livekinds.png') }).catch(() => {});
		await page.click('.statemap-depth-toggle');
		eq('collapsed again', (await page.$$('.statemap-depth-row')).length, 0);
	} catch (e) {
		check('runs', false, e.message.split('\n')[0]);
	}
	eq('no console errors', errors, []);
	await browser.close();
	process.exit(failures() === 0 ? 0 : 1);
})();
