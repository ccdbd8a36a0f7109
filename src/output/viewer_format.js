/*
 * viewer_format.js: times and durations as the viewer writes and reads
 * them, and the time axis's ticks.  No DOM: view is the viewer's view,
 * { t0, w } in ns, whose width sets how many decimals a point in time
 * gets.
 *
 *   viewerFormat(view) -> { fmt, fmtAt, epoch, parseDuration, tickStep,
 *       tickLabel }
 */
function viewerFormat(view) {
	/* A time in ns as the original shows it: 3 decimals in the largest unit. */
	function fmt(ns) {
		const a = Math.abs(ns), sign = ns < 0 ? '-' : '';
		/* Units by the rounded value, so 999999.9996ns is 1.000ms. */
		for (const u of [[1e9, 's'], [1e6, 'ms'], [1e3, 'μs']]) {
			if (a >= u[0] - u[0] / 2e3)
				return sign + (a / u[0]).toFixed(3) + u[1];
		}
		return sign + Math.round(a) + 'ns';
	}

	/*
	 * A point in time, with as many decimals as the view resolves (a
	 * thousandth of the visible span), at least 3: zoomed to 2ms around
	 * 1.075s, times read 1.075016s rather than 1.075s.
	 */
	function fmtAt(ns) {
		const a = Math.abs(ns), sign = ns < 0 ? '-' : '';
		const res = Math.max(view.w / 1e3, 1);
		for (const u of [[1e9, 's'], [1e6, 'ms'], [1e3, 'μs']]) {
			if (a >= u[0] - u[0] / 2e3) {
				const dec = Math.min(Math.max(3, Math.ceil(Math.log10(u[0] / res) - 1e-9)), 9);
				return sign + (a / u[0]).toFixed(dec) + u[1];
			}
		}
		return sign + Math.round(a) + 'ns';
	}

	/* Seconds since the epoch of a time relative to a metadata start. */
	function epoch(start, rel) {
		const ns = start[1] + Math.round(rel);
		const carry = Math.floor(ns / 1e9);
		const frac = String(ns - carry * 1e9);
		return (start[0] + carry) + '.' + '000000000'.slice(frac.length) + frac;
	}

	/* A typed duration ("2ms", "1.5 us", "300") in ns, or NaN. */
	function parseDuration(s) {
		const m = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ns|us|μs|ms|s|sec)?\s*$/.exec(s);
		if (!m)
			return NaN;
		const unit = { ns: 1, us: 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, sec: 1e9 };
		return parseFloat(m[1]) * unit[m[2] || 'ns'];
	}

	/* The step between ticks over a span w: 1, 2 or 5 times a power of ten, at most 10 ticks. */
	function tickStep(w) {
		let step = 1;
		for (;;) {
			for (const k of [1, 2, 5]) {
				if (w / (step * k) <= 10)
					return step * k;
			}
			step *= 10;
		}
	}

	/* Each tick in its own unit, as the static axis: 900ms, 1s, 1.1s. */
	function tickLabel(t, step) {
		const units = [[1e9, 's'], [1e6, 'ms'], [1e3, 'μs'], [1, 'ns']];
		let u = units[3];
		for (const cand of units) {
			if (t >= cand[0]) {
				u = cand;
				break;
			}
		}
		const dec = Math.max(0, Math.ceil(Math.log10(u[0] / step) - 1e-9));
		let s = (t / u[0]).toFixed(dec);
		if (s.indexOf('.') >= 0)
			s = s.replace(/0+$/, '').replace(/\.$/, '');
		return s + u[1];
	}

	return { fmt: fmt, fmtAt: fmtAt, epoch: epoch, parseDuration: parseDuration,
	    tickStep: tickStep, tickLabel: tickLabel };
}
