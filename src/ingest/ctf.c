/*
 * ctf.c: CTF traces through libbabeltrace2: a graph of the ctf plugin's
 * source (src.ctf.fs), the utils plugin's muxer (flt.utils.muxer: the
 * streams merged in time order) and a simple sink of ours that hands
 * each event on.
 *
 * The event classes are known only once the source has made its trace,
 * so opening runs a first graph up to its first message to list them
 * (by stream class and event class ids, which do not change between
 * graphs), and iterating runs a second one.  LTTng's kernel events say
 * neither their CPU nor the running task in their own fields: the CPU
 * is the packet context's cpu_id, and the task the one that the last
 * sched_switch on that CPU switched to (or a tid context field, where
 * the trace has one).
 */
#include "ingest/ctf.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <babeltrace2/babeltrace.h>

#include "base/util.h"
#include "ingest/kev_names.h"
#include "ingest/pidmap.h"

#define MAX_CPUS	4096

/* What is known of one kind of event (an event class). */
typedef struct kind_info {
	int64_t member[KF_NFIELDS];	/* payload member index, or -1 */
} kind_info;

typedef struct ctf {
	kev_source src;
	char *dir;
	kind_info *kinds;
	char **names;
	kev_type *types;
	size_t cap;
	pidmap ids;		/* (stream class id, event class id) -> kind */
	int listed;		/* the kinds are listed */
	/* while iterating */
	kev_fn fn;
	void *ctx;
	const unsigned char *wanted;
	uint64_t last;
	int have_first;
	int stopped;		/* what fn returned, when not 0 */
	int iterated;
	int32_t *running;	/* by CPU: the task running there, or -1 */
	const bt_packet *packet;	/* the last event's, and its CPU */
	uint32_t packet_cpu;
} ctf;

static uint64_t
kind_key(uint64_t stream_class, uint64_t event_class)
{
	return (stream_class << 32 ^ event_class);
}

/* ---- fields ---- */

static int
int_value(const bt_field *f, int64_t *v)
{
	bt_field_class_type t = bt_field_get_class_type(f);

	if (t == BT_FIELD_CLASS_TYPE_BOOL)
		*v = bt_field_bool_get_value(f) ? 1 : 0;
	else if (bt_field_class_type_is(t,
	    BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		*v = bt_field_integer_signed_get_value(f);
	else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER))
		*v = (int64_t)bt_field_integer_unsigned_get_value(f);
	else
		return (-1);
	return (0);
}

/* An event's payload member of that role, or NULL. */
static const bt_field *
member_of(const kev *e, kev_field f)
{
	const kind_info *k = e->info;

	if (e->raw == NULL || k->member[f] < 0)
		return (NULL);
	return (bt_field_structure_borrow_member_field_by_index_const(
	    e->raw, (uint64_t)k->member[f]));
}

static int
ctf_integer(const kev *e, kev_field f, int64_t *v)
{
	const bt_field *m = member_of(e, f);

	return (m == NULL ? -1 : int_value(m, v));
}

static const char *
ctf_string(const kev *e, kev_field f, size_t *len)
{
	const bt_field *m = member_of(e, f);

	if (m == NULL || bt_field_get_class_type(m) !=
	    BT_FIELD_CLASS_TYPE_STRING)
		return (NULL);
	*len = bt_field_string_get_length(m);
	return (bt_field_string_get_value(m));
}

/* LTTng's prev_state has the kernel's bits (TASK_INTERRUPTIBLE: 1...). */
static int
ctf_task_state(const kev *e, kev_task_state *ts)
{
	int64_t v;

	if (ctf_integer(e, KF_PREV_STATE, &v) != 0)
		return (-1);
	*ts = kev_task_state_bits((uint64_t)v, kev_default_state_bits,
	    kev_default_state_letters, 8);
	return (0);
}

static void
visit_field(const bt_field *f, const char *name, const kev_visitor *v,
    void *ctx, int depth)
{
	bt_field_class_type t = bt_field_get_class_type(f);
	uint64_t i, n;
	int64_t x;

	if (depth > 32)
		return;
	if (int_value(f, &x) == 0) {
		v->integer(ctx, name, x, bt_field_class_type_is(t,
		    BT_FIELD_CLASS_TYPE_SIGNED_INTEGER) ? 1 : 0);
	} else if (t == BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL) {
		v->real(ctx, name, bt_field_real_single_precision_get_value(f));
	} else if (t == BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL) {
		v->real(ctx, name, bt_field_real_double_precision_get_value(f));
	} else if (t == BT_FIELD_CLASS_TYPE_STRING) {
		v->string(ctx, name, bt_field_string_get_value(f),
		    bt_field_string_get_length(f));
	} else if (t == BT_FIELD_CLASS_TYPE_BIT_ARRAY) {
		v->integer(ctx, name,
		    (int64_t)bt_field_bit_array_get_value_as_integer(f), 0);
	} else if (t == BT_FIELD_CLASS_TYPE_STRUCTURE) {
		const bt_field_class *fc = bt_field_borrow_class_const(f);

		if (name != NULL || depth > 0)
			v->begin(ctx, name, 0);
		n = bt_field_class_structure_get_member_count(fc);
		for (i = 0; i < n; i++)
			visit_field(
			    bt_field_structure_borrow_member_field_by_index_const(
			    f, i), bt_field_class_structure_member_get_name(
			    bt_field_class_structure_borrow_member_by_index_const(
			    fc, i)), v, ctx, depth + 1);
		if (name != NULL || depth > 0)
			v->end(ctx);
	} else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY)) {
		v->begin(ctx, name, 1);
		n = bt_field_array_get_length(f);
		for (i = 0; i < n; i++)
			visit_field(bt_field_array_borrow_element_field_by_index_const(
			    f, i), NULL, v, ctx, depth + 1);
		v->end(ctx);
	} else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_VARIANT)) {
		visit_field(bt_field_variant_borrow_selected_option_field_const(
		    f), name, v, ctx, depth + 1);
	} else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_OPTION)) {
		const bt_field *o = bt_field_option_borrow_field_const(f);

		if (o != NULL)
			visit_field(o, name, v, ctx, depth + 1);
	}
}

static void
ctf_visit(const kev *e, const kev_visitor *v, void *ctx)
{
	if (e->raw != NULL)
		visit_field(e->raw, NULL, v, ctx, 0);
}

static const kev_ops ctf_ops = {
	ctf_integer, ctf_string, ctf_task_state, ctf_visit
};

/* ---- the kinds ---- */

static void
add_kind(ctf *c, const bt_event_class *ec, uint64_t sc_id)
{
	const bt_field_class *payload =
	    bt_event_class_borrow_payload_field_class_const(ec);
	const char *name = bt_event_class_get_name(ec);
	int added;
	uint32_t k = pidmap_add(&c->ids, kind_key(sc_id,
	    bt_event_class_get_id(ec)), &added);
	kind_info *ki;
	int f;

	if (!added)
		return;
	if (k >= c->cap) {
		size_t cap = c->cap;

		grow_array(&c->kinds, &cap, (size_t)k + 1, sizeof (kind_info));
		cap = c->cap;
		grow_array(&c->names, &cap, (size_t)k + 1, sizeof (char *));
		cap = c->cap;
		grow_array(&c->types, &cap, (size_t)k + 1, sizeof (kev_type));
		c->cap = cap;
	}
	if (name == NULL)
		name = "";
	c->names[k] = xstrndup(name, strlen(name));
	c->types[k] = kev_type_of(name);
	ki = &c->kinds[k];
	for (f = 0; f < KF_NFIELDS; f++) {
		const char *const *nm = kev_field_names(c->types[k],
		    (kev_field)f);
		const bt_field_class_structure_member *m = NULL;
		uint64_t i, n;

		ki->member[f] = -1;
		if (c->types[k] == KEV_OTHER || payload == NULL ||
		    bt_field_class_get_type(payload) !=
		    BT_FIELD_CLASS_TYPE_STRUCTURE)
			continue;
		n = bt_field_class_structure_get_member_count(payload);
		for (; *nm != NULL && ki->member[f] < 0; nm++) {
			for (i = 0; i < n; i++) {
				m = bt_field_class_structure_borrow_member_by_index_const(
				    payload, i);
				if (strcmp(bt_field_class_structure_member_get_name(
				    m), *nm) == 0) {
					ki->member[f] = (int64_t)i;
					break;
				}
			}
		}
	}
	c->src.nkinds = k + 1;
}

/* Every event class of the trace a stream belongs to. */
static void
list_kinds(ctf *c, const bt_stream *stream)
{
	const bt_trace_class *tc = bt_trace_borrow_class_const(
	    bt_stream_borrow_trace_const(stream));
	uint64_t i, j, n = bt_trace_class_get_stream_class_count(tc);

	for (i = 0; i < n; i++) {
		const bt_stream_class *sc =
		    bt_trace_class_borrow_stream_class_by_index_const(tc, i);
		uint64_t m = bt_stream_class_get_event_class_count(sc);

		for (j = 0; j < m; j++)
			add_kind(c, bt_stream_class_borrow_event_class_by_index_const(
			    sc, j), bt_stream_class_get_id(sc));
	}
	c->listed = 1;
	c->src.names = (const char *const *)c->names;
	c->src.types = c->types;
}

/* ---- the events ---- */

static uint32_t
cpu_of(ctf *c, const bt_event *ev)
{
	const bt_packet *p = bt_event_borrow_packet_const(ev);
	const bt_field *ctx, *f;
	int64_t v;

	if (p == c->packet)
		return (c->packet_cpu);
	c->packet = p;
	c->packet_cpu = 0;
	if (p != NULL && (ctx = bt_packet_borrow_context_field_const(p)) !=
	    NULL && (f = bt_field_structure_borrow_member_field_by_name_const(
	    ctx, "cpu_id")) != NULL && int_value(f, &v) == 0 && v >= 0 &&
	    v < MAX_CPUS)
		c->packet_cpu = (uint32_t)v;
	if (c->packet_cpu >= c->src.ncpus)
		c->src.ncpus = c->packet_cpu + 1;
	return (c->packet_cpu);
}

/* The task running: a tid context field, else the CPU's last switch. */
static int32_t
pid_of(const ctf *c, const bt_event *ev, uint32_t cpu)
{
	const bt_field *ctx = bt_event_borrow_common_context_field_const(ev);
	const bt_field *f;
	int64_t v;

	if (ctx == NULL)
		ctx = bt_event_borrow_specific_context_field_const(ev);
	if (ctx != NULL && bt_field_get_class_type(ctx) ==
	    BT_FIELD_CLASS_TYPE_STRUCTURE &&
	    (f = bt_field_structure_borrow_member_field_by_name_const(ctx,
	    "tid")) != NULL && int_value(f, &v) == 0 && v >= 0 &&
	    v <= INT32_MAX)
		return ((int32_t)v);
	return (c->running[cpu]);
}

/* One event message: 0 to go on, 1 to stop. */
static int
on_event(ctf *c, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);
	const bt_clock_snapshot *cs;
	int64_t ns = 0, v;
	uint64_t t;
	uint32_t kind;
	kev e;

	if (!bt_stream_class_borrow_default_clock_class_const(sc))
		return (0);
	cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	if (bt_clock_snapshot_get_ns_from_origin(cs, &ns) !=
	    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK || ns < 0)
		return (0);
	if (!c->have_first) {
		c->src.first = (uint64_t)ns;
		c->have_first = 1;
	}
	kind = pidmap_find(&c->ids, kind_key(bt_stream_class_get_id(sc),
	    bt_event_class_get_id(ec)));
	if (kind == PIDMAP_NONE)
		return (0);
	memset(&e, 0, sizeof (e));
	e.ops = &ctf_ops;
	e.cpu = cpu_of(c, ev);
	e.pid = pid_of(c, ev, e.cpu);
	e.type = c->types[kind];
	e.kind = kind;
	e.name = c->names[kind];
	e.raw = bt_event_borrow_payload_field_const(ev);
	e.info = &c->kinds[kind];
	/* The CPU runs next from this switch on. */
	if (e.type == KEV_SCHED_SWITCH && ctf_integer(&e, KF_NEXT_PID, &v) ==
	    0 && v >= 0 && v <= INT32_MAX)
		c->running[e.cpu] = (int32_t)v;
	if (c->wanted != NULL && !c->wanted[kind])
		return (0);
	t = (uint64_t)ns >= c->src.first ? (uint64_t)ns - c->src.first : 0;
	if (t < c->last)
		t = c->last;
	c->last = t;
	e.time = t;
	if ((c->stopped = c->fn(c->ctx, &e)) != 0)
		return (1);
	return (0);
}

/* ---- the graph ---- */

typedef struct run {
	ctf *c;
	int listing;		/* only list the kinds, then stop */
} run;

static bt_graph_simple_sink_component_consume_func_status
consume(bt_message_iterator *it, void *arg)
{
	run *r = arg;
	bt_message_array_const msgs;
	uint64_t n, i;
	int stop = 0;

	switch (bt_message_iterator_next(it, &msgs, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return (BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END);
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return (BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN);
	default:
		return (BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR);
	}
	for (i = 0; i < n; i++) {
		const bt_message *m = msgs[i];

		if (stop) {
			/* put below */
		} else if (r->listing) {
			if (bt_message_get_type(m) ==
			    BT_MESSAGE_TYPE_STREAM_BEGINNING) {
				list_kinds(r->c,
				    bt_message_stream_beginning_borrow_stream_const(
				    m));
				stop = 1;
			}
		} else if (bt_message_get_type(m) == BT_MESSAGE_TYPE_EVENT) {
			stop = on_event(r->c, m);
		}
		bt_message_put_ref(m);
	}
	return (stop ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END :
	    BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK);
}

/*
 * The system's ctf and utils plugins, found once and kept for the
 * process's life (so neither found nor loaded again for each trace).
 */
static const bt_plugin *plugin_ctf, *plugin_utils;
static pthread_once_t plugins_once = PTHREAD_ONCE_INIT;

static void
find_plugins(void)
{
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE,
	    &plugin_ctf) != BT_PLUGIN_FIND_STATUS_OK)
		plugin_ctf = NULL;
	if (bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE,
	    BT_TRUE, &plugin_utils) != BT_PLUGIN_FIND_STATUS_OK)
		plugin_utils = NULL;
	bt_current_thread_clear_error();
}

/*
 * Builds and runs the graph over the trace: 0, or -1 with err (the
 * trace cannot be read: babeltrace2's own reason is not printed).
 */
static int
run_graph(ctf *c, int listing, sm_error *err)
{
	const bt_plugin *pctf, *putils;
	bt_graph *g = NULL;
	bt_value *params = NULL, *inputs = NULL;
	const bt_component_source *src;
	const bt_component_filter *mux;
	const bt_component_sink *sink;
	run r = { c, listing };
	const char *why = NULL;
	uint64_t i, n;
	int rv = -1;

	(void)pthread_once(&plugins_once, find_plugins);
	pctf = plugin_ctf;
	putils = plugin_utils;
	if (pctf == NULL || putils == NULL) {
		why = "babeltrace2's ctf and utils plugins are not installed";
		goto out;
	}
	g = bt_graph_create(0);
	params = bt_value_map_create();
	inputs = bt_value_array_create();
	if (g == NULL || params == NULL || inputs == NULL ||
	    bt_value_array_append_string_element(inputs, c->dir) !=
	    BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK ||
	    bt_value_map_insert_entry(params, "inputs", inputs) !=
	    BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK) {
		why = "out of memory";
		goto out;
	}
	if (bt_graph_add_source_component(g,
	    bt_plugin_borrow_source_component_class_by_name_const(pctf, "fs"),
	    "src", params, BT_LOGGING_LEVEL_NONE, &src) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		why = "not a CTF trace that libbabeltrace2 can read (its "
		    "metadata or its streams are damaged)";
		goto out;
	}
	if (bt_graph_add_filter_component(g,
	    bt_plugin_borrow_filter_component_class_by_name_const(putils,
	    "muxer"), "mux", NULL, BT_LOGGING_LEVEL_NONE, &mux) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_add_simple_sink_component(g, "sink", NULL, consume, NULL,
	    &r, &sink) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		why = "babeltrace2's muxer cannot be made";
		goto out;
	}
	n = bt_component_source_get_output_port_count(src);
	for (i = 0; i < n; i++)
		if (bt_graph_connect_ports(g,
		    bt_component_source_borrow_output_port_by_index_const(src,
		    i), bt_component_filter_borrow_input_port_by_index_const(
		    mux, i), NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
			break;
	if (i < n || bt_graph_connect_ports(g,
	    bt_component_filter_borrow_output_port_by_name_const(mux, "out"),
	    bt_component_sink_borrow_input_port_by_name_const(sink, "in"),
	    NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		why = "babeltrace2's graph cannot be connected";
		goto out;
	}
	for (;;) {
		bt_graph_run_status s = bt_graph_run(g);

		if (s == BT_GRAPH_RUN_STATUS_OK)
			break;
		if (s != BT_GRAPH_RUN_STATUS_AGAIN) {
			why = "a CTF trace that libbabeltrace2 cannot read to "
			    "its end (damaged or cut short)";
			goto out;
		}
	}
	rv = 0;
out:
	if (why != NULL)
		error_at(err, c->src.path, 0, 0, "%s", why);
	bt_current_thread_clear_error();
	bt_value_put_ref(inputs);
	bt_value_put_ref(params);
	bt_graph_put_ref(g);
	return (rv);
}

static int
ctf_iterate(kev_source *s, const unsigned char *wanted, kev_fn fn,
    void *ctx, sm_error *err)
{
	ctf *c = (ctf *)s;
	int rv;
	size_t i;

	if (c->iterated) {
		error_at(err, s->path, 0, 0, "read twice (an internal error)");
		return (-1);
	}
	c->iterated = 1;
	c->fn = fn;
	c->ctx = ctx;
	c->wanted = wanted;
	c->running = xmalloc(MAX_CPUS * sizeof (int32_t));
	for (i = 0; i < MAX_CPUS; i++)
		c->running[i] = -1;
	rv = run_graph(c, 0, err);
	free(c->running);
	c->running = NULL;
	return (c->stopped < 0 ? -1 : rv);
}

static int
ctf_has_field(const kev_source *s, uint32_t kind, kev_field f)
{
	const ctf *c = (const ctf *)s;

	return (kind < s->nkinds && c->kinds[kind].member[f] >= 0);
}

static void
ctf_close(kev_source *s)
{
	ctf *c = (ctf *)s;
	uint32_t i;

	for (i = 0; i < s->nkinds; i++)
		free(c->names[i]);
	free(c->names);
	free(c->types);
	free(c->kinds);
	pidmap_free(&c->ids);
	free(c->dir);
	free(c);
}

kev_source *
ctf_open(const char *path, const char *dir, sm_error *err)
{
	ctf *c = xcalloc(1, sizeof (*c));

	c->src.path = path;
	c->dir = xstrndup(dir, strlen(dir));
	c->src.iterate = ctf_iterate;
	c->src.has_field = ctf_has_field;
	c->src.close = ctf_close;
	c->src.saved_comm = NULL;
	pidmap_init(&c->ids);
	bt_logging_set_global_level(BT_LOGGING_LEVEL_NONE);
	if (run_graph(c, 1, err) != 0) {
		ctf_close(&c->src);
		return (NULL);
	}
	if (!c->listed) {
		error_at(err, path, 0, 0, "a CTF trace that holds no events");
		ctf_close(&c->src);
		return (NULL);
	}
	return (&c->src);
}
