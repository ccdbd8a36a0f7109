// zoom.test.js: live zoom (statemap-lua --serve) in headless Chromium
// through playwright-core.
//
//   node zoom.test.js SM DIR ARTEFACTS
//
// Writes into DIR a trace whose every transition it knows (six threads,
// about 30000 transitions over a second, and a burst of 40 transitions
// 250 ns apart in the middle of t0) and one of 1000 entities, serves each
// with SM --serve (-c 2000 for the first, so that its whole is merged),
// and checks, from the page, that:
//   - at the whole trace the indicator says merged, counting every
//     transition; zooming (18 presses of +, each halving the span) down to
//     under 4 us draws exactly the trace's transitions there (positions,
//     durations, states, and the painted pixels), and says exact;
//   - a wrong token is refused (403), the indicator says so and the
//     picture stays; the right one works again;
//   - two pages zoom independently, each drawing its own view;
//   - a 1920-pixel view of 1000 entities: the time from answer to drawing
//     is reported (INFO lines), never asserted.
// Prints "PASS name" or "FAIL name: why" lines.
'use strict';
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { chromium } = require('playwright-core');
const truth = require('./truth.js');

const [sm, dir, artefacts] = process.argv.slice(2);
const { check, eq, failures } = require('./report.js')('zoom');

// Park-Miller: the same numbers in every run.
function rng(seed) {
	let x = seed;
	return () => (x = (x * 16807) % 2147483647);
}

const SPAN = 1000000000, BURST = 500000000;

// Six threads, transitions at random gaps up to 400 us, one datum a line
// in time order; t0 has a burst of 40 transitions 250 ns apart at BURST.
function writeTrace(file) {
	const next = rng(7), data = [];
	for (let e = 0; e < 6; e++) {
		let t = 0, burst = e !== 0;
		while (t < SPAN) {
			if (!burst && t >= BURST - 20000) {
				for (let i = 0; i < 40; i++)
					data.push([BURST - 5000 + i * 250, e, i % 3]);
				t = Math.max(t, BURST + 20000);
				burst = true;
			}
			data.push([t, e, next() % 3]);
			t += 1 + next() % 400000;
		}
	}
	data.push([SPAN, 0, 0]);
	data.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
	const lines = ['{"start": [1700000000, 0], "title": "zoom", "states": {"run": {"value": 0, ' +
	    '"color": "#2ca02c"}, "wait": {"value": 1, "color": "#d62728"}, "idle": {"value": 2, ' +
	    '"color": "#4060c0"}}}'];
	for (const d of data)
		lines.push('{"time": "' + d[0] + '", "entity": "t' + d[1] + '", "state": ' + d[2] + '}');
	fs.writeFileSync(file, lines.join('\n') + '\n');
}

// 1000 entities, 250 transitions each, four states.
function writeBig(file) {
	const next = rng(11), lines = ['{"start": [1700000000, 0], "title": "big", "states": {"a": ' +
	    '{"value": 0}, "b": {"value": 1}, "c": {"value": 2}, "d": {"value": 3}}}'];
	for (let i = 0; i < 250000; i++)
		lines.push('{"time": "' + i * 4000 + '", "entity": "e' + (i % 1000) + '", "state": ' +
		    next() % 4 + '}');
	fs.writeFileSync(file, lines.join('\n') + '\n');
}

// Starts SM --serve ARGS...; resolves with { url, proc } once it serves.
function serve(args) {
	return new Promise((resolve, reject) => {
		const proc = spawn(sm, ['--serve'].concat(args), { stdio: ['ignore', 'ignore', 'pipe'] });
		let err = '';
		proc.stderr.on('data', (b) => {
			err += b;
			const m = /serving (\S+)/.exec(err);
			if (m)
				resolve({ url: m[1], proc: proc });
		});
		proc.on('exit', (code) => reject(new Error('the server exited (' + code + '): ' + err)));
	});
}

function stop(server) {
	return new Promise((resolve) => {
		if (server.proc.exitCode !== null)
			return resolve(server.proc.exitCode);
		server.proc.removeAllListeners('exit');
		server.proc.on('exit', (code) => resolve(code));
		server.proc.kill('SIGINT');
	});
}

async function openPage(browser, url, options) {
	const page = await browser.newPage(options || { viewport: { width: 1500, height: 800 } });
	page.errors = [];
	page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
	page.on('pageerror', (e) => page.errors.push(e.message));
	await page.goto(url);
	await truth.settled(page, 0);
	return page;
}

const viewer = (page, what) => page.evaluate((w) => window.statemapViewer[w](), what);

// Sets the time bar at offset `off` on row 0 (a click there).
async function barAt(page, off) {
	const p = await page.evaluate((o) => {
		const svg = document.getElementById('statemap-0');
		const v = window.statemapViewer.view();
		const root = document.documentElement.tagName === 'svg' ? document.documentElement :
		    document.querySelector('svg');
		const pt = root.createSVGPoint();
		pt.x = +svg.getAttribute('x') + (o - v.t0) / v.width * +svg.getAttribute('width');
		pt.y = +svg.getAttribute('y') + 5;
		const q = pt.matrixTransform(root.getScreenCTM());
		return { x: q.x, y: q.y };
	}, off);
	await page.mouse.click(p.x, p.y);
}

// Zooms to `span` (typed, as a user would) around offset `off` (null: the
// time bar, or the middle).
async function zoomTo(page, off, span) {
	const n = (await viewer(page, 'timing')).answers;
	if (off !== null)
		await barAt(page, off);
	await page.keyboard.type(span);
	await page.keyboard.press('Enter');
	await truth.settled(page, n);
}

// What is drawn on a page, against the trace.
async function agrees(page, t, name) {
	const d = await viewer(page, 'drawn');
	const v = await viewer(page, 'view');
	const bad = truth.compare(t, d, ['t0', 't1', 't2', 't3', 't4', 't5'], 0, v);
	eq(name, bad, []);
	return d;
}

(async () => {
	const trace = path.join(dir, 'zoom.out'), big = path.join(dir, 'big.out');
	writeTrace(trace);
	writeBig(big);
	const t = truth.parse(fs.readFileSync(trace, 'utf8'));
	const servers = [];
	const browser = await chromium.launch({
		executablePath: process.env.BROWSER || '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu']
	});
	const pages = [];
	try {
		const s = await serve(['-c', '2000', trace]);
		servers.push(s);
		const page = await openPage(browser, s.url);
		pages.push(page);
		eq('the page reads from the server', await viewer(page, 'source'), 'live');
		// The whole trace: merged, every transition counted.
		const all = truth.count(t, 0, SPAN);
		eq('the whole trace is merged, every transition counted', await viewer(page, 'indicator'),
		    'merged (' + all + ' transitions in ' +
		    (await page.evaluate(() => window.statemapViewer.drawn().statemaps[0]
		    .reduce((a, r) => a + r.length, 0))) + ' rectangles)');
		check('the page asked at its own width', (await viewer(page, 'drawn')).pixels === 862,
		    (await viewer(page, 'drawn')).pixels);
		await page.screenshot({ path: path.join(artefacts, 'zoom-whole.png') });

		// Down to a few microseconds: 18 halvings around the burst.
		const before = (await viewer(page, 'timing')).answers;
		await barAt(page, BURST);
		for (let i = 0; i < 18; i++)
			await page.keyboard.press('+');
		await truth.settled(page, before);
		const v = await viewer(page, 'view');
		check('18 halvings: a view of under 4 us', v.width < 4000 && v.width > 3000, JSON.stringify(v));
		console.log('INFO zoom: 18 zoom steps drew ' + ((await viewer(page, 'timing')).answers - before) +
		    ' answer(s) (the others were debounced or cancelled)');
		const d = await agrees(page, t, 'a few microseconds: every transition of the trace, as it is');
		const shown = d.statemaps[0].reduce((a, r) => a + r.length, 0);
		check('with the burst in it', d.statemaps[0][0].length >= 10, d.statemaps[0][0].length + ' rectangles on t0');
		eq('the indicator says exact', await viewer(page, 'indicator'), 'exact');
		const colors = await truth.legendColors(page);
		const px = await truth.pixels(page, 0, colors);
		eq('each rectangle painted in its state\'s colour', px.bad, []);
		check('(sampled enough of them)', px.sampled >= shown / 2, px.sampled + ' of ' + shown);
		// The painted strip lies where the strips are.
		const boxes = await page.evaluate(() => {
			const r = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.right]; };
			return [r(document.querySelector('#statemap-0 foreignObject')),
			    r(document.querySelector('.statemap-nodata'))];
		});
		check('the painting covers the strips', Math.abs(boxes[0][0] - boxes[1][0]) < 1 &&
		    Math.abs(boxes[0][1] - boxes[1][1]) < 1, JSON.stringify(boxes));
		await page.screenshot({ path: path.join(artefacts, 'zoom-burst.png') });

		// A token refused: by the API, and for the viewer's own requests.
		const refused = await page.evaluate(async () => {
			const l = window.statemapLive;
			const ask = (tok) => fetch(l.api + (tok === null ? '' : '?token=' + tok) +
			    (tok === null ? '?' : '&') + 'begin=0&end=1000&width=10').then((r) => r.status);
			return [await ask(null), await ask('0123456789abcdef0123456789abcdef'), await ask(l.token)];
		});
		eq('the API: no token and a wrong one refused, the right one answered', refused, [403, 403, 200]);
		const kept = await viewer(page, 'drawn');
		const token = await page.evaluate(() => window.statemapLive.token);
		await page.evaluate(() => { window.statemapLive.token = 'feedfacefeedfacefeedfacefeedface'; });
		await page.keyboard.press('ArrowRight');
		await page.waitForFunction(() => !window.statemapViewer.pending() &&
		    window.statemapViewer.indicator() !== 'exact', null, { timeout: 20000 });
		eq('the viewer with a wrong token: refused, and says so', await viewer(page, 'indicator'),
		    'refused by the server (HTTP 403)');
		eq('the picture stays', (await viewer(page, 'drawn')).range, kept.range);
		await page.evaluate((tok) => { window.statemapLive.token = tok; }, token);
		const n = (await viewer(page, 'timing')).answers;
		await page.keyboard.press('ArrowLeft');
		await truth.settled(page, n);
		eq('with the token again, it answers', await viewer(page, 'indicator'), 'exact');
		page.errors = page.errors.filter((e) => !/403/.test(e));

		// Two pages at once, each its own view.
		await zoomTo(page, null, '1s');
		eq('back to the whole trace: merged again', /^merged \(\d+ transitions in \d+ rectangles\)$/
		    .test(await viewer(page, 'indicator')), true);
		const other = await openPage(browser, s.url);
		pages.push(other);
		const a = (await viewer(page, 'timing')).answers, b = (await viewer(other, 'timing')).answers;
		await barAt(page, 100000000);
		await barAt(other, 750000000);
		await page.keyboard.type('2ms');
		await other.keyboard.type('80us');
		await page.keyboard.press('Enter');
		await other.keyboard.press('Enter');
		await Promise.all([truth.settled(page, a), truth.settled(other, b)]);
		const va = await viewer(page, 'view'), vb = await viewer(other, 'view');
		check('two pages: each at its own view', Math.abs(va.width - 2e6) < 1 &&
		    Math.abs(vb.width - 8e4) < 1 && va.t0 < 2e8 && vb.t0 > 7e8,
		    JSON.stringify([va, vb]));
		await agrees(other, t, 'two pages: the second draws its 80 us exactly');
		const da = await viewer(page, 'drawn');
		check('two pages: the first draws its 2 ms (merged, at its width)',
		    da.range.t0 === Math.floor(va.t0) && da.pixels === 862, JSON.stringify(da.range));
		const ia = await viewer(page, 'indicator');
		check('two pages: each its own indicator', /^(merged|exact)/.test(ia) &&
		    (await viewer(other, 'indicator')) === 'exact', ia);
		await other.screenshot({ path: path.join(artefacts, 'zoom-second-page.png') });

		// A 1920-pixel view of 1000 entities: how long an answer takes.
		const sb = await serve([big]);
		servers.push(sb);
		const perf = await openPage(browser, sb.url, { viewport: { width: 1600, height: 900 },
		    deviceScaleFactor: 1920 / 862 });
		pages.push(perf);
		eq('1000 entities: the page asks for 1920 pixels', (await viewer(perf, 'drawn')).pixels, 1920);
		const draws = [], frames = [], fetches = [], rects = [];
		for (const k of ['+', '+', 'ArrowRight', '-', 'ArrowLeft', '+', '+', '-']) {
			const m = (await viewer(perf, 'timing')).answers;
			await perf.keyboard.press(k);
			await truth.settled(perf, m);
			await perf.waitForTimeout(50);	/* the frame after the answer is timed */
			const tm = await viewer(perf, 'timing');
			draws.push(tm.draw);
			frames.push(tm.frame);
			fetches.push(tm.fetch);
			rects.push(tm.rects);
		}
		const median = (xs) => xs.slice().sort((x, y) => x - y)[xs.length >> 1];
		console.log('INFO zoom: 1000 entities at 1920 pixels, ' + median(rects) + ' rectangles an answer: ' +
		    'drawn in ' + median(draws).toFixed(1) + ' ms (median; ' + Math.min(...draws).toFixed(1) + ' to ' +
		    Math.max(...draws).toFixed(1) + '), on screen ' + median(frames).toFixed(1) + ' ms after the answer ' +
		    '(median), the request ' + median(fetches).toFixed(1) + ' ms (median, server and parse)');
		check('1000 entities: every answer drawn', draws.length === 8 && draws.every((x) => x > 0),
		    JSON.stringify(draws));
		await perf.screenshot({ path: path.join(artefacts, 'zoom-1000.png') });
	} catch (e) {
		check('runs', false, e.message.split('\n')[0]);
	}
	for (const p of pages)
		eq('no console errors (' + pages.indexOf(p) + ')', p.errors, []);
	await browser.close();
	for (const s of servers)
		eq('the server stops on SIGINT with status 0', await stop(s), 0);
	process.exit(failures() === 0 ? 0 : 1);
})();
