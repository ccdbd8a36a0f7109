// The lines every browser test prints, and the exit status they add up to:
// "PASS suite: name" or "FAIL suite: name: why", one per check.
'use strict';

module.exports = function report(suite) {
	let failures = 0;
	const r = {
		check(name, ok, why) {
			if (ok) {
				console.log('PASS ' + suite + ': ' + name);
			} else {
				failures++;
				console.log('FAIL ' + suite + ': ' + name + ': ' + why);
			}
		},
		// got and want compared as JSON text.
		eq(name, got, want) {
			const g = JSON.stringify(got), w = JSON.stringify(want);
			r.check(name, g === w, 'got ' + g + ', want ' + w);
		},
		failures: () => failures,
	};
	return r;
};
