// labels.test.js: names that never overlap and a details panel that
// never covers rows, in headless Chromium through playwright-core.
//
//   node labels.test.js SM DIR ARTEFACTS
//
// Writes two traces into DIR and draws each with SM:
//   - few: three threads of two processes named by paths, as a Chrome
//     trace converts ("1/CrBrowserMain/1", "2/CrRendererMain/5",
//     "2/Compositor/102"): four group headers and three rows in the
//     height of three strips;
//   - many: 400 threads named COMM/TID under 40 commands, as the /proc
//     sampler writes them: 440 slots.
// At 1280x720 and 1920x1080, before and after a click shows the panel:
//   - no two names drawn (entity labels and group headers) overlap: their
//     em boxes (the bounding box's height over DejaVu Sans's 1.164 line)
//     are apart wherever their columns meet;
//   - each name drawn is on its own slot (its middle within the slot);
//   - every row keeps a slot at least a pixel high;
//   - the details panel's box meets no statemap.
// Prints "PASS name" or "FAIL name: why" lines.
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { chromium } = require('playwright-core');

const [sm, dir, artefacts] = process.argv.slice(2);
const { check, eq, failures } = require('./report.js')('labels');

function write(name, entities) {
	const lines = ['{"start": [1700000000, 0], "title": "' + name + '", "states": {' +
	    '"run": {"value": 0, "color": "#2ca02c"}, "wait": {"value": 1, "color": "#d62728"}}}'];
	entities.forEach((e, k) => {
		if (e.description)
			lines.push(JSON.stringify({ entity: e.name, description: e.description }));
		for (let t = 0; t < 10; t++)
			lines.push(JSON.stringify({ time: String(t * 1000000 + k), entity: e.name, state: (t + k) % 2 }));
	});
	lines.push(JSON.stringify({ time: '10000000', entity: entities[0].name, state: 0 }));
	const out = path.join(dir, name + '.out');
	fs.writeFileSync(out, lines.join('\n') + '\n');
	const r = spawnSync(sm, ['--no-cache', '-o', path.join(dir, name + '.svg'), out], { encoding: 'utf8' });
	check(name + ': drawn', r.status === 0, r.stderr);
}

write('few', [
	{ name: '1/CrBrowserMain/1', description: 'Browser: CrBrowserMain' },
	{ name: '2/CrRendererMain/5', description: 'Renderer: CrRendererMain' },
	{ name: '2/Compositor/102', description: 'Renderer: Compositor' },
]);
const many = [];
for (let i = 0; i < 400; i++)
	many.push({ name: 'comm' + (i % 40) + '/' + (1000 + i) });
write('many', many);

// What the page draws, in window coordinates: each name drawn with the
// slot it stands for, each statemap's box, each row's slot height, and
// the panel's box.
function measure(page) {
	return page.evaluate(() => {
		const shown = (e) => !e.closest('[display="none"]') && e.getClientRects().length > 0;
		const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
		const maps = [], names = [];
		const heights = window.statemapViewer.slotHeights();
		const slots = window.statemapViewer.slots();
		for (let i = 0; document.getElementById('statemap-' + i); i++) {
			const svg = document.getElementById('statemap-' + i);
			/* Its viewport, not its content's box. */
			const ctm = document.documentElement.getScreenCTM();
			const x = +svg.getAttribute('x'), y = +svg.getAttribute('y');
			const b = [ctm.e + x * ctm.a, ctm.f + y * ctm.d, ctm.e + (x + +svg.getAttribute('width')) * ctm.a,
			    ctm.f + (y + +svg.getAttribute('height')) * ctm.d];
			const n = slots[i].length;
			maps.push({ box: b, slot: (b[3] - b[1]) / n, n: n, h: heights[i] });
			const labels = document.getElementById('statemap-labels-' + i);
			if (labels) {
				Array.from(labels.getElementsByTagName('text')).forEach((t, k) => {
					if (!shown(t) || t.textContent === '')
						return;
					const name = JSON.parse(document.getElementById('statemap-data').textContent)
					    .statemaps[i].entities[k].name;
					names.push({ text: t.textContent, box: box(t), map: i, slot: slots[i].indexOf(name) });
				});
			}
			const heads = document.getElementById('statemap-group-heads-' + i);
			if (heads) {
				Array.from(heads.querySelectorAll('.statemap-group-head')).forEach((t) => {
					if (!shown(t))
						return;
					const label = Array.from(t.childNodes).filter((c) => c.nodeType === 3)
					    .map((c) => c.data).join('');
					const title = t.querySelector('title').textContent;
					const group = title.replace(/^(un)?fold /, '').replace(/: \d+ entit(y|ies)$/, '');
					names.push({ text: label, box: box(t), map: i, slot: slots[i].indexOf(group + '/') });
				});
			}
		}
		const p = document.getElementById('statemap-panel-box');
		const panel = p && shown(p) && document.querySelector('#statemap-panel text') ? box(p) : null;
		return { maps: maps, names: names, panel: panel };
	});
}

function judge(name, m) {
	const em = (b) => (b[3] - b[1]) / 1.164;
	const bad = [];
	for (let i = 0; i < m.names.length; i++) {
		for (let j = i + 1; j < m.names.length; j++) {
			const a = m.names[i], b = m.names[j];
			if (a.box[2] <= b.box[0] || b.box[2] <= a.box[0])
				continue;
			const ca = (a.box[1] + a.box[3]) / 2, cb = (b.box[1] + b.box[3]) / 2;
			if (Math.abs(ca - cb) < (em(a.box) + em(b.box)) / 2 - 0.5)
				bad.push(a.text + ' / ' + b.text + ' ' + ca.toFixed(1) + ' ' + cb.toFixed(1));
		}
	}
	eq(name + ': no two names overlap', bad.slice(0, 5), []);
	const off = m.names.filter((x) => {
		const mp = m.maps[x.map], c = (x.box[1] + x.box[3]) / 2;
		return x.slot < 0 || c < mp.box[1] + x.slot * mp.slot - 0.5 || c > mp.box[1] + (x.slot + 1) * mp.slot + 0.5;
	}).map((x) => x.text + ' @' + x.slot);
	eq(name + ': each name on its slot', off.slice(0, 5), []);
	check(name + ': names are drawn', m.names.length >= 3, m.names.length + ' names');
	check(name + ': every row keeps a pixel', m.maps.every((mp) => mp.slot >= 1), JSON.stringify(m.maps));
	if (m.panel) {
		const over = m.maps.filter((mp) => !(m.panel[3] <= mp.box[1] || m.panel[1] >= mp.box[3] ||
		    m.panel[2] <= mp.box[0] || m.panel[0] >= mp.box[2]));
		eq(name + ': the panel covers no rows', over.map((mp) => mp.box), []);
	}
}

async function run(browser, trace, viewport) {
	const name = trace + '-' + viewport.width;
	const page = await browser.newPage({ viewport: viewport });
	const errors = [];
	page.on('pageerror', (e) => errors.push(e.message));
	try {
		await page.goto('file://' + path.resolve(dir, trace + '.svg'));
		await page.waitForFunction(() => window.statemapViewer !== undefined, null, { timeout: 10000 });
		judge(name, await measure(page));
		await page.screenshot({ path: path.join(artefacts, 'labels-' + name + '.png') });
		// A click on the last row shows the panel.
		const at = await page.evaluate(() => {
			const svg = document.getElementById('statemap-0');
			const r = svg.getBoundingClientRect();
			return { x: r.left + r.width / 3, y: r.bottom - 1 };
		});
		await page.mouse.click(at.x, at.y);
		const m = await measure(page);
		check(name + ': the panel shows', m.panel !== null, 'no panel');
		judge(name + ' with details', m);
		await page.screenshot({ path: path.join(artefacts, 'labels-' + name + '-details.png') });
	} catch (e) {
		check(name + ': runs', false, e.message.split('\n')[0]);
	}
	eq(name + ': no page errors', errors, []);
	await page.close();
}

(async () => {
	const browser = await chromium.launch({
		executablePath: process.env.BROWSER || '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu'],
	});
	for (const viewport of [{ width: 1280, height: 720 }, { width: 1920, height: 1080 }])
		for (const trace of ['few', 'many'])
			await run(browser, trace, viewport);
	await browser.close();
	process.exit(failures() > 0 ? 1 : 0);
})().catch((e) => {
	console.log('FAIL labels: ' + e.message.split('\n')[0]);
	process.exit(1);
});
