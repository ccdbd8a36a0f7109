#include "output/xml_escape.h"

void
xml_escape(FILE *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
				fputs("\xef\xbf\xbd", out);	/* U+FFFD */
			} else if (c == 0xef && len - i >= 3 &&
			    (unsigned char)s[i + 1] == 0xbf &&
			    ((unsigned char)s[i + 2] & 0xfe) == 0xbe) {
				/* U+FFFE and U+FFFF are not XML characters. */
				fputs("\xef\xbf\xbd", out);
				i += 2;
			} else {
				fputc(c, out);
			}
		}
	}
}
