#include "output/xml_escape.h"

#include "base/utf8.h"

void
xml_escape(FILE *out, const char *s, size_t len)
{
	const unsigned char *b = (const unsigned char *)s;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = b[i];
		int n;

		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
				fputs("\xef\xbf\xbd", out);	/* U+FFFD */
			} else if (c < 0x80) {
				fputc(c, out);
			} else if ((n = utf8_char(b + i, len - i)) <= 0) {
				/*
				 * Not UTF-8 (names a script made are checked
				 * before they get here, but a writer of XML
				 * must not trust that): a U+FFFD a byte, as
				 * the JSON writer does.
				 */
				fputs("\xef\xbf\xbd", out);
			} else if (n == 3 && c == 0xef && b[i + 1] == 0xbf &&
			    (b[i + 2] & 0xfe) == 0xbe) {
				/* U+FFFE and U+FFFF are not XML characters. */
				fputs("\xef\xbf\xbd", out);
				i += 2;
			} else {
				fwrite(b + i, 1, (size_t)n, out);
				i += (size_t)n - 1;
			}
		}
	}
}
