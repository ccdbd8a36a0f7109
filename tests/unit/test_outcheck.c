/*
 * Tests for the output checks of the fuzz harnesses (tests/fuzz/
 * outcheck.c): the XML well-formedness checker accepts what XML allows
 * and refuses each way a writer could go wrong, and the JSON walk finds
 * duplicate keys at any depth.  A checker that accepted everything would
 * make the writers' harness pass for nothing: these are its known-bad
 * samples.
 */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "unit.h"

#include "../fuzz/outcheck.c"

typedef struct sample {
	const char *doc;
	size_t len;		/* 0: strlen(doc) */
	const char *what;
} sample;

static const sample good[] = {
	{ "<a/>", 0, "an empty root" },
	{ "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg a=\"1\" "
	    "b='2'>x</svg>\n", 0, "a declaration, attributes, text" },
	{ "\xef\xbb\xbf<a></a>", 0, "a byte-order mark" },
	{ "<a>&lt;&gt;&amp;&apos;&quot;&#39;&#x1F600;&#65;</a>", 0,
	    "every predefined entity, character references" },
	{ "<a t=\"&lt;&amp;&#10;\tx\">]]</a>", 0,
	    "references and a tab in an attribute; \"]]\" in text" },
	{ "<a><![CDATA[<&]]]></a>", 0, "CDATA holding < & ]" },
	{ "<a><!-- - a comment - --><?pi some data?><?p?></a>", 0,
	    "a comment and processing instructions" },
	{ "<!-- before --><a/>\n<!-- after -->\n", 0, "comments outside" },
	{ "<\xc3\xa9l\xc3\xa9ment at-tr.x_1:y=\"\"/>", 0,
	    "names beyond ASCII, with - . _ : and digits" },
	{ "<a>\xf0\x9f\x98\x80 \xef\xbf\xbd \xe2\x80\xa8 \x7f</a>", 0,
	    "astral, U+FFFD, U+2028 and DEL in text" },
	{ "<a\n  b = \"1\"\n></a  >", 0, "whitespace in tags" },
	{ "<a><b><c/></b><b/></a>", 0, "nesting" },
};

static const sample bad[] = {
	{ "", 0, "an empty document" },
	{ "  \n", 0, "only whitespace" },
	{ "<a>\x01</a>", 0, "a control character in text" },
	{ "<a b=\"\x1b\"/>", 0, "a control character in an attribute" },
	{ "<a>\0</a>", 8, "NUL in text" },
	{ "<a>\xef\xbf\xbe</a>", 0, "U+FFFE in text" },
	{ "<a>\xef\xbf\xbf</a>", 0, "U+FFFF in text" },
	{ "<a b=\"\xef\xbf\xbf\"/>", 0, "U+FFFF in an attribute" },
	{ "<a><![CDATA[\xef\xbf\xbe]]></a>", 0, "U+FFFE in CDATA" },
	{ "<a><![CDATA[\x0c]]></a>", 0, "a form feed in CDATA" },
	{ "<a><!--\x02--></a>", 0, "a control character in a comment" },
	{ "<a>\xc0\x80</a>", 0, "an overlong NUL" },
	{ "<a>\xe0\x80\xaf</a>", 0, "an overlong '/'" },
	{ "<a>\xed\xa0\x80</a>", 0, "a UTF-8 surrogate" },
	{ "<a>\xf4\x90\x80\x80</a>", 0, "beyond U+10FFFF" },
	{ "<a>\x80</a>", 0, "a stray continuation byte" },
	{ "<a>\xe2\x82</a>", 0, "a character cut short" },
	{ "<a>\xe2\x82", 0, "a character cut by the end" },
	{ "<a>\xff</a>", 0, "the byte 0xff" },
	{ "<a\xc3\x97/>", 0, "U+00D7 in a name" },
	{ "<1a/>", 0, "a name starting with a digit" },
	{ "<a b\x7f=\"1\"/>", 0, "DEL in an attribute name" },
	{ "<a><b></a></b>", 0, "crossed tags" },
	{ "<a><b></a>", 0, "an unclosed inner element" },
	{ "<a>", 0, "an unclosed root" },
	{ "<a/></a>", 0, "a closing tag too many" },
	{ "</a>", 0, "only a closing tag" },
	{ "<a></A>", 0, "a closing tag in another case" },
	{ "<a/><b/>", 0, "two roots" },
	{ "x<a/>", 0, "text before the root" },
	{ "<a/>x", 0, "text after the root" },
	{ "<a>x < y</a>", 0, "a bare '<' in text" },
	{ "<a>AT&T</a>", 0, "a bare '&' in text" },
	{ "<a>&amp</a>", 0, "a reference without ';'" },
	{ "<a>&nbsp;</a>", 0, "an undeclared entity" },
	{ "<a>&#0;</a>", 0, "a reference to NUL" },
	{ "<a>&#xFFFE;</a>", 0, "a reference to U+FFFE" },
	{ "<a>&#xD800;</a>", 0, "a reference to a surrogate" },
	{ "<a>&#x110000;</a>", 0, "a reference past U+10FFFF" },
	{ "<a>&#99999999999999999999;</a>", 0, "a reference that overflows" },
	{ "<a>&#;</a>", 0, "a reference without digits" },
	{ "<a>&#x;</a>", 0, "a hex reference without digits" },
	{ "<a b=\"<\"/>", 0, "'<' in an attribute" },
	{ "<a b=\"&\"/>", 0, "'&' in an attribute" },
	{ "<a b=\"&foo;\"/>", 0, "an undeclared entity in an attribute" },
	{ "<a b=\"1\" b=\"2\"/>", 0, "an attribute twice" },
	{ "<a b=1/>", 0, "an unquoted attribute" },
	{ "<a b=\"1'/>", 0, "mismatched quotes" },
	{ "<a b=\"1\"c=\"2\"/>", 0, "attributes without space between" },
	{ "<a b/>", 0, "an attribute without a value" },
	{ "<a>]]></a>", 0, "\"]]>\" in text" },
	{ "<a><![CDATA[x]]>]]></a>", 0, "\"]]>\" inside CDATA" },
	{ "<a><![CDATA[x</a>", 0, "an unterminated CDATA section" },
	{ "<![CDATA[x]]><a/>", 0, "CDATA outside the root" },
	{ "<a><!-- a -- b --></a>", 0, "\"--\" in a comment" },
	{ "<a><!-- a ---></a>", 0, "a comment ending in '-'" },
	{ "<a><!-- a </a>", 0, "an unterminated comment" },
	{ "<a><?xml version=\"1.0\"?></a>", 0, "a declaration inside" },
	{ " <?xml version=\"1.0\"?><a/>", 0, "a declaration after space" },
	{ "<?xml version=\"2.0\"?><a/>", 0, "XML version 2.0" },
	{ "<?xml version=\"1.0\" encoding=\"latin1\"?><a/>", 0,
	    "an encoding other than UTF-8" },
	{ "<?xml encoding=\"UTF-8\"?><a/>", 0, "a declaration without version" },
	{ "<!DOCTYPE a><a/>", 0, "a document type declaration" },
	{ "<a><!foo></a>", 0, "unknown markup" },
	{ "<a><?pi x</a>", 0, "an unterminated processing instruction" },
};

static size_t
length(const sample *s)
{
	return (s->len ? s->len : strlen(s->doc));
}

static void
test_xml(void)
{
	size_t i, where;
	char name[160];
	const char *why;

	for (i = 0; i < sizeof (good) / sizeof (good[0]); i++) {
		snprintf(name, sizeof (name), "xml_check accepts %s",
		    good[i].what);
		why = xml_check(good[i].doc, length(&good[i]), &where);
		UNIT_REPORT(why == NULL, name, "refused at %zu: %s", where,
		    why);
	}
	for (i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
		snprintf(name, sizeof (name), "xml_check refuses %s",
		    bad[i].what);
		why = xml_check(bad[i].doc, length(&bad[i]), &where);
		UNIT_REPORT(why != NULL && where <= length(&bad[i]), name,
		    "accepted %s", bad[i].doc);
	}
}

static int
allow_a(const json_dup *d)
{
	return (d->member->key_len == 1 && d->member->key[0] == 'a');
}

static void
test_json(void)
{
	json_arena *arena = json_arena_new();
	json_error err;
	json_value *v, *w;
	json_dup dup;
	const char *text;

	text = "{\"a\": 1, \"b\": [{\"c\": 2, \"d\": {\"e\": 3, \"\\u0065\": 4}}]}";
	v = json_parse_document(arena, text, strlen(text), &err);
	CHECK("json_find_duplicate finds a key repeated deep down (as "
	    "decoded)", v != NULL && json_find_duplicate(v, NULL, &dup) &&
	    dup.member->key_len == 1 && dup.member->key[0] == 'e' &&
	    dup.member->offset > dup.object->child->offset &&
	    dup.object->key_len == 1 && dup.object->key[0] == 'd' &&
	    dup.container != NULL && dup.container->type == JSON_OBJECT &&
	    dup.container->key == NULL);

	text = "{\"x\": {\"k\": 1, \"kk\": 2, \"k \": 3}, \"y\": [1, 1], "
	    "\"z\": {\"\": 1, \"\\u0000\": 2}}";
	v = json_parse_document(arena, text, strlen(text), &err);
	CHECK("json_find_duplicate: none among like keys and arrays",
	    v != NULL && !json_find_duplicate(v, NULL, &dup));

	text = "[{\"a\": 1, \"a\": 2}, {\"b\": 1, \"c\": 2, \"b\": 3}]";
	v = json_parse_document(arena, text, strlen(text), &err);
	CHECK("json_find_duplicate: allow excuses one, finds the next",
	    v != NULL && json_find_duplicate(v, allow_a, &dup) &&
	    dup.member->key[0] == 'b' && dup.container == v);

	text = "{\"s\": \"\\u00e9\\ufffe\", \"n\": [1.50, null, true]}";
	v = json_parse_document(arena, text, strlen(text), &err);
	text = "{\"s\": \"\xc3\xa9\xef\xbf\xbe\", \"n\": [1.50, null, true]}";
	w = json_parse_document(arena, text, strlen(text), &err);
	CHECK("json_same: escaped and raw strings are the same", v != NULL &&
	    w != NULL && json_same(v, w));
	text = "{\"s\": \"\xc3\xa9\xef\xbf\xbe\", \"n\": [1.5, null, true]}";
	w = json_parse_document(arena, text, strlen(text), &err);
	CHECK("json_same: numbers compare as written", w != NULL &&
	    !json_same(v, w));
	text = "{\"s\": \"\xc3\xa9\xef\xbf\xbe\", \"n\": [1.50, null]}";
	w = json_parse_document(arena, text, strlen(text), &err);
	CHECK("json_same: a member fewer differs", w != NULL &&
	    !json_same(v, w));
	text = "{\"t\": \"\xc3\xa9\xef\xbf\xbe\", \"n\": [1.50, null, true]}";
	w = json_parse_document(arena, text, strlen(text), &err);
	CHECK("json_same: another key differs", w != NULL &&
	    !json_same(v, w));
	json_arena_free(arena);
}

int
main(void)
{
	test_xml();
	test_json();
	return (unit_exit());
}
