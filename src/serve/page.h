/*
 * page.h: the live server's page and its built-in assets.
 *
 * The page (GET /) is an HTML document:
 *
 *   <script type="application/json" id="statemap-live">
 *     {"version": 1, "api": "/api/statemap", "events": "/api/events",
 *      "token": "...", "generation": 1, "begin": 0, "end": 2000000000,
 *      "width": 862, "coalesce": 25000, "stripHeight": 10,
 *      "title": "..."}
 *   </script>
 *
 * tells the viewer it is live: where to ask for answers (with the token)
 * and which window and width the page opened on; see statemap-lua(1),
 * "Live zoom".  Then comes the statemap of that window as the classic SVG
 * draws it (inline, with its data block of the -T json document), and
 * the scripts, each a built-in asset: /live.js follows the server's
 * events and reloads the page when what is served changes (unless the
 * viewer set window.statemapLive.onchange, which is then called with the
 * new generation), and /viewer.js is the viewer (src/output/viewer*.js
 * joined), run with a document
 * whose documentElement is the statemap's <svg> until the viewer reads
 * the live block itself.  /viewer.css is src/output/viewer.css.
 *
 * Scripts and styles come only from these assets (the page's
 * Content-Security-Policy, PAGE_POLICY, allows no inline script); every
 * name from a trace is escaped for where it lands.
 */
#ifndef SM_PAGE_H
#define SM_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "output/svg.h"
#include "serve/served_traces.h"

#define PAGE_POLICY	"default-src 'none'; script-src 'self'; " \
	"style-src 'self' 'unsafe-inline'; img-src 'self' data:; " \
	"connect-src 'self'; base-uri 'none'; form-action 'none'; " \
	"frame-ancestors 'none'"

/* The strips' width on the page, in pixels (the classic SVG's). */
#define PAGE_WIDTH	SVG_STRIP_WIDTH

/*
 * The page for what is served, at this generation, for a client that
 * holds token (hex).  Returns the text (malloc'd), its length in *len.
 */
char *page_html(const served *s, const char *token, uint64_t generation,
    size_t *len);

/*
 * A built-in asset by path ("/viewer.js", "/viewer.css", "/live.js"):
 * its bytes (static), their length and Content-Type; NULL for any other
 * path.
 */
const char *page_asset(const char *path, size_t *len, const char **type);

#endif
