/*
 * viewport_json.c: a viewport's answer as the -T json document
 * (viewport.h), each job's entities written on all cores and sent in
 * pieces, the glue between them written here.
 */
#include "output/viewport.h"

#include <stdlib.h>
#include <string.h>

#include "base/threads.h"
#include "base/util.h"
#include "output/jsonout.h"
#include "output/kindjson.h"
#include "output/viewport_state.h"

static void
write_job(void *arg)
{
	job *j = arg;
	const catalog *cat = j->vp->t->cat;
	FILE *out = open_memstream(&j->json, &j->json_len);
	jsonout_names *names = jsonout_names_new(cat, 0);
	const vpanel *vp = j->vp;
	uint32_t i, *ids = xcalloc(cat->nstates + 1, sizeof (uint32_t));
	uint64_t *times = xcalloc(cat->nstates + 1, sizeof (uint64_t));

	if (out == NULL)
		out_of_memory(0);
	for (i = j->from; i < j->to; i++) {
		size_t r, last = j->entity_rects[i - j->from + 1];
		uint32_t e = vp->ids[i];
		int nested = vp->depths != NULL &&
		    depthrows_ndepths(vp->depths, e) > 0;

		if (vp->values != NULL && valuerects_seen(vp->values, e)) {
			kindjson_values(out, cat, vp->values, e, i == 0, 1);
			continue;
		}
		if (nested)
			kindjson_nested_open(out, cat, e, i == 0);
		else
			jsonout_entity_open(out, cat, e, i == 0, NULL);
		for (r = j->entity_rects[i - j->from]; r < last; r++) {
			jsonout_rect jr = rect_for_json(j, &j->rects[r]);

			jsonout_rect_write(out, names, &jr,
			    r == j->entity_rects[i - j->from]);
		}
		if (nested)
			kindjson_nested_close(out, cat, vp->depths, names, e,
			    ids, times);
		else
			jsonout_entity_close(out);
	}
	free(ids);
	free(times);
	jsonout_names_free(names);
	if (fclose(out) != 0)
		out_of_memory(j->json_len);
}

/* Collects pieces: the glue between the jobs' texts is written here. */
typedef struct pieces {
	viewport_piece *p;
	size_t n, cap;
	FILE *glue;		/* the piece being written, or NULL */
} pieces;

static FILE *
glue(pieces *ps)
{
	if (ps->glue == NULL) {
		grow_array(&ps->p, &ps->cap, ps->n + 1,
		    sizeof (viewport_piece));
		memset(&ps->p[ps->n], 0, sizeof (viewport_piece));
		ps->glue = open_memstream(&ps->p[ps->n].text,
		    &ps->p[ps->n].len);
		if (ps->glue == NULL)
			out_of_memory(0);
		ps->n++;
	}
	return (ps->glue);
}

static void
take(pieces *ps, char *text, size_t len)
{
	if (ps->glue != NULL && fclose(ps->glue) != 0)
		out_of_memory(0);
	ps->glue = NULL;
	grow_array(&ps->p, &ps->cap, ps->n + 1, sizeof (viewport_piece));
	ps->p[ps->n].text = text;
	ps->p[ps->n++].len = len;
}

size_t
viewport_json_pieces(viewport *v, const char *members,
    viewport_piece **out)
{
	pieces ps;
	size_t i, k = 0;

	memset(&ps, 0, sizeof (ps));
	threads_run(write_job, v->jobs, v->njobs, sizeof (job));
	jsonout_open(glue(&ps));
	for (i = 0; i < v->n; i++) {
		const vpanel *vp = &v->panels[i];
		const catalog *cat = vp->t->cat;

		jsonout_statemap_open(glue(&ps), cat, vp->begin, vp->end_field,
		    i == 0);
		for (; k < v->njobs && v->jobs[k].vp == vp; k++) {
			take(&ps, v->jobs[k].json, v->jobs[k].json_len);
			v->jobs[k].json = NULL;
		}
		jsonout_statemap_close(glue(&ps), cat, vp->begin,
		    vp->end_field, vp->end, vp->p->received);
	}
	jsonout_close(glue(&ps), members);
	if (fclose(ps.glue) != 0)
		out_of_memory(0);
	*out = ps.p;
	return (ps.n);
}

void
viewport_write_json(FILE *out, viewport *v, const char *members)
{
	viewport_piece *p;
	size_t n = viewport_json_pieces(v, members, &p), i;

	for (i = 0; i < n; i++) {
		fwrite(p[i].text, 1, p[i].len, out);
		free(p[i].text);
	}
	free(p);
}
