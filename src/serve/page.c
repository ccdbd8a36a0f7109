#include "serve/page.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/util.h"
#include "output/svg.h"
#include "output/viewer.h"
#include "output/viewport.h"
#include "output/xml_escape.h"

/* Where the SVG's own copy of the viewer starts (svg.c, write_viewer). */
#define SVG_VIEWER_MARK	"<style type=\"text/css\" id=\"statemap-viewer-style\">"

static const char live_js[] =
"/*\n"
" * live.js: the live page's link to its server (statemap-lua --serve).\n"
" * It reads the page's statemap-live block into window.statemapLive and\n"
" * follows the server's events: when what is served changes, it calls\n"
" * window.statemapLive.onchange(generation) if the viewer set one, or\n"
" * else reloads the page.\n"
" */\n"
"(function () {\n"
"\t'use strict';\n"
"\tvar block = document.getElementById('statemap-live');\n"
"\tif (!block)\n"
"\t\treturn;\n"
"\tvar live = JSON.parse(block.textContent);\n"
"\twindow.statemapLive = live;\n"
"\tif (typeof EventSource !== 'function')\n"
"\t\treturn;\n"
"\tvar events = new EventSource(live.events + '?token=' +\n"
"\t    encodeURIComponent(live.token));\n"
"\tevents.addEventListener('generation', function (ev) {\n"
"\t\tvar generation = JSON.parse(ev.data).generation;\n"
"\t\tif (generation === live.generation)\n"
"\t\t\treturn;\n"
"\t\tlive.generation = generation;\n"
"\t\tif (typeof live.onchange === 'function')\n"
"\t\t\tlive.onchange(generation);\n"
"\t\telse\n"
"\t\t\twindow.location.reload();\n"
"\t});\n"
"})();\n";

static const char viewer_head[] =
"/*\n"
" * The live page's viewer: src/output/viewer*.js, which takes\n"
" * document.documentElement for the statemap's <svg>.  In this HTML page\n"
" * that is <html>, so the viewer runs with a document whose\n"
" * documentElement is the page's statemap until it reads the live block\n"
" * itself.\n"
" */\n"
"(function (page) {\n"
"\t'use strict';\n"
"\tvar svg = page.querySelector('svg');\n"
"\tvar document = new Proxy(page, {\n"
"\t\tget: function (target, key) {\n"
"\t\t\tif (key === 'documentElement')\n"
"\t\t\t\treturn svg;\n"
"\t\t\tvar value = Reflect.get(target, key);\n"
"\t\t\treturn typeof value === 'function' ? value.bind(target) :\n"
"\t\t\t    value;\n"
"\t\t},\n"
"\t\tset: function (target, key, value) {\n"
"\t\t\ttarget[key] = value;\n"
"\t\t\treturn true;\n"
"\t\t}\n"
"\t});\n";

static const char viewer_tail[] = "\n})(window.document);\n";

static char *viewer_page_js;
static size_t viewer_page_len;
static pthread_once_t viewer_once = PTHREAD_ONCE_INIT;

static void
make_viewer(void)
{
	size_t h = sizeof (viewer_head) - 1, t = sizeof (viewer_tail) - 1;

	viewer_page_len = h + viewer_js_len + t;
	viewer_page_js = xmalloc(viewer_page_len + 1);
	memcpy(viewer_page_js, viewer_head, h);
	memcpy(viewer_page_js + h, viewer_js, viewer_js_len);
	memcpy(viewer_page_js + h + viewer_js_len, viewer_tail, t + 1);
}

const char *
page_asset(const char *path, size_t *len, const char **type)
{
	if (strcmp(path, "/viewer.js") == 0) {
		pthread_once(&viewer_once, make_viewer);
		*len = viewer_page_len;
		*type = "text/javascript; charset=utf-8";
		return (viewer_page_js);
	}
	if (strcmp(path, "/live.js") == 0) {
		*len = sizeof (live_js) - 1;
		*type = "text/javascript; charset=utf-8";
		return (live_js);
	}
	if (strcmp(path, "/viewer.css") == 0) {
		*len = viewer_css_len;
		*type = "text/css; charset=utf-8";
		return (viewer_css);
	}
	return (NULL);
}

/* The first window as the classic SVG draws it. */
static void
draw(const served *s, FILE *out)
{
	viewport_query q = { s->begin, s->end, PAGE_WIDTH, s->budget, NULL };
	viewport *v = viewport_compute(s->panels, s->n, &q);
	smap *maps = xcalloc(s->n, sizeof (smap));
	size_t *order = xcalloc(s->n, sizeof (size_t)), i;
	svg_options so;

	svg_defaults(&so);
	so.strip_height = s->strip_height;
	so.strip_width = PAGE_WIDTH;
	so.labels = s->labels;
	viewport_to_smaps(v, maps);
	viewport_free(v);
	for (i = 0; i < s->n; i++)
		order[i] = i;
	svg_write(out, maps, s->n, order, &so);
	for (i = 0; i < s->n; i++)
		smap_free(&maps[i]);
	free(maps);
	free(order);
}

/* Takes out buf[from, to) of a text of *len bytes. */
static void
cut(char *buf, size_t *len, size_t from, size_t to)
{
	memmove(buf + from, buf + to, *len - to + 1);	/* and the NUL */
	*len -= to - from;
}

char *
page_html(const served *s, const char *token, uint64_t generation,
    size_t *len)
{
	char *buf = NULL, *root, *mark;
	long svg_at, svg_end;
	FILE *out;

	if ((out = open_memstream(&buf, len)) == NULL)
		out_of_memory(0);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n"
	    "<meta name=\"referrer\" content=\"no-referrer\">\n"
	    "<link rel=\"icon\" href=\"data:,\">\n<title>", out);
	xml_escape(out, s->title, strlen(s->title));
	fprintf(out, "</title>\n<link rel=\"stylesheet\" "
	    "href=\"/viewer.css?token=%s\">\n</head>\n<body>\n", token);
	fputs("<script type=\"application/json\" id=\"statemap-live\">"
	    "{\"version\": 1, \"api\": \"/api/statemap\", "
	    "\"events\": \"/api/events\", \"token\": ", out);
	json_write_string(out, token, strlen(token));
	fprintf(out, ", \"generation\": %" PRIu64 ", \"begin\": %" PRIu64
	    ", \"end\": %" PRIu64 ", \"width\": %d, \"coalesce\": %" PRIu64
	    ", \"stripHeight\": %u, \"title\": ", generation, s->begin,
	    s->end, PAGE_WIDTH, s->budget, s->strip_height);
	json_write_string(out, s->title, strlen(s->title));
	fputs("}</script>\n", out);
	svg_at = ftell(out);
	draw(s, out);
	svg_end = ftell(out);
	fprintf(out, "<script src=\"/live.js?token=%s\"></script>\n"
	    "<script src=\"/viewer.js?token=%s\"></script>\n"
	    "</body>\n</html>\n", token, token);
	if (fclose(out) != 0 || svg_at < 0 || svg_end < svg_at)
		out_of_memory(*len);
	/*
	 * Written in place, the SVG loses its XML declaration and its own
	 * copy of the viewer (from the mark to its closing tag): the page
	 * has the viewer as an asset.  Nothing from a trace can hold the
	 * mark or "<svg ": every '<' in a name or the data is escaped.
	 */
	mark = memmem(buf + svg_at, (size_t)(svg_end - svg_at), SVG_VIEWER_MARK,
	    strlen(SVG_VIEWER_MARK));
	if (mark != NULL && (size_t)svg_end >= strlen("</svg>\n"))
		cut(buf, len, (size_t)(mark - buf), (size_t)svg_end -
		    strlen("</svg>\n"));
	root = memmem(buf + svg_at, (size_t)(svg_end - svg_at), "<svg ", 5);
	if (root != NULL)
		cut(buf, len, (size_t)svg_at, (size_t)(root - buf));
	return (buf);
}
