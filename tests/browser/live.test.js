// live.test.js: the live server's page (statemap-lua --serve, here the
// REPL's statemap.serve) in headless Chromium through playwright-core.
//
//   node live.test.js URL ASKFILE ARTEFACTS
//
// URL is what the server printed; writing ASKFILE.N asks test_live.sh for
// the REPL's Nth statement: 1 serves plain.out again, 2 without t2, 3 with
// its "wait" mapped to "blocked".  Prints "PASS name" or "FAIL name: why"
// lines.
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');
const truth = require('./truth.js');

const [url, ask, artefacts] = process.argv.slice(2);
const { check, eq, failures } = require('./report.js')('live');

// A row's name: its label's first text (the description follows in a tspan).
const rows = (page) => page.$$eval('#statemap-labels-0 text', (ts) => ts.map((t) => t.childNodes[0].textContent));

(async () => {
	const browser = await chromium.launch({
		executablePath: process.env.BROWSER || '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu']
	});
	const page = await browser.newPage({ viewport: { width: 1500, height: 700 } });
	const errors = [];
	page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
	page.on('pageerror', (e) => errors.push(e.message));
	try {
		await page.goto(url);
		await page.waitForFunction(() => window.statemapViewer !== undefined &&
		    window.statemapLive !== undefined, null, { timeout: 20000 });
		const live = await page.evaluate(() => window.statemapLive);
		eq('the page says it is live', [live.version, live.api, live.events, live.generation],
		    [1, '/api/statemap', '/api/events', 1]);
		eq('with the token of its URL', live.token, url.replace(/.*token=/, ''));
		eq('and its first window', [live.begin, live.end, live.width], [0, 10000000, 862]);
		eq('the statemap of that window', await rows(page), ['t1', 't2', 't3']);
		eq('the viewer runs on it', await page.textContent('#statemap-timelabel'), 'span = 10.000ms');
		await page.keyboard.press('+');
		check('and zooms', (await page.textContent('#statemap-timelabel')).startsWith('span = 5.000ms'),
		    await page.textContent('#statemap-timelabel'));
		const answer = await page.evaluate(async (l) => {
			const r = await fetch(l.api + '?token=' + l.token + '&begin=1000000&end=5000000&width=100');
			return { status: r.status, body: await r.json() };
		}, live);
		eq('the page may ask the API', answer.status, 200);
		eq('which answers exactly for a few transitions', answer.body.live.exact, true);
		eq('with t1\'s transitions in the window',
		    answer.body.statemaps[0].entities[0].rects.map((r) => [r.start, r.duration, r.n]),
		    [[1000000, 3000000, 1], [4000000, 1000000, 1]]);
		const logged = errors.length;
		const foreign = await page.evaluate(async () => {
			try {
				const r = await fetch('/api/statemap?begin=0&end=1&width=1');
				return r.status;
			} catch (e) {
				return 'error';
			}
		});
		eq('but not without the token', foreign, 403);
		errors.splice(logged);	/* the browser logs that 403 */
		await page.screenshot({ path: path.join(artefacts, 'live.png') }).catch(() => {});
		// The same trace served again: the page asks again, in place.
		await truth.settled(page);
		const before = (await page.evaluate(() => window.statemapViewer.timing())).answers;
		await page.evaluate(() => { window.notReloaded = true; });
		fs.writeFileSync(ask + '.1', 'again\n');
		await page.waitForFunction(() => window.statemapViewer.generation() === 2, null, { timeout: 60000 });
		await truth.settled(page, before);
		eq('the same statemaps served again: fetched in place, no reload',
		    await page.evaluate(() => window.notReloaded === true), true);
		// Rows change: the page hears and reloads.
		const reloaded = page.waitForEvent('load', { timeout: 60000 });
		fs.writeFileSync(ask + '.2', 'drop\n');
		await reloaded;
		await page.waitForFunction(() => window.statemapViewer !== undefined &&
		    window.statemapLive !== undefined && window.statemapLive.generation === 3,
		    null, { timeout: 20000 });
		eq('other rows: the page reloads with them', await rows(page), ['t1', 't3']);
		await page.screenshot({ path: path.join(artefacts, 'live-replaced.png') }).catch(() => {});
		// Zoomed in, states change (t:map): a reload with them, at that view.
		await truth.settled(page);
		const n = (await page.evaluate(() => window.statemapViewer.timing())).answers;
		await page.keyboard.type('4ms');
		await page.keyboard.press('Enter');
		await truth.settled(page, n);
		const view = await page.evaluate(() => window.statemapViewer.view());
		const mapped = page.waitForEvent('load', { timeout: 60000 });
		fs.writeFileSync(ask + '.3', 'map\n');
		await mapped;
		await page.waitForFunction(() => window.statemapViewer !== undefined &&
		    window.statemapLive.generation === 4, null, { timeout: 20000 });
		await truth.settled(page, 0);
		const legend = await page.$$eval('.statemap-legendlabel', (ts) => ts.map((t) => t.childNodes[0].textContent));
		check('the mapped states in the legend', legend.includes('blocked') && !legend.includes('wait'),
		    JSON.stringify(legend));
		eq('and the rows', await rows(page), ['t1', 't2', 't3']);
		const now = await page.evaluate(() => window.statemapViewer.view());
		check('at the view the page had', Math.abs(now.t0 - view.t0) <= 1 && Math.abs(now.width - view.width) <= 2,
		    JSON.stringify([view, now]));
		const drawn = await page.evaluate(() => window.statemapViewer.drawn());
		// plain.out at [3ms, 7ms): t1 run, wait from 1ms to 4ms -> blocked.
		const states = drawn.statemaps[0].map((rs) => rs.map((r) => Object.keys(r.states).join('+')));
		eq('the painted answer has them', states, [['blocked', 'run'], ['run', 'blocked'], ['blocked', 'idle']]);
		eq('exactly', await page.evaluate(() => window.statemapViewer.indicator()), 'exact');
		await page.screenshot({ path: path.join(artefacts, 'live-mapped.png') }).catch(() => {});
	} catch (e) {
		check('runs', false, e.message.split('\n')[0]);
	}
	// Nothing else was refused (a favicon asked for without the token).
	eq('no console errors', errors, []);
	await browser.close();
	process.exit(failures() === 0 ? 0 : 1);
})();
