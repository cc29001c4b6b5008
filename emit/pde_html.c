/*
 * pde_html.c - the Content-Security-Policy of emit/'s HTML pages (issue
 * 11, finding 2): an annotation or a flame graph is opened from disk by
 * someone who did not write the binary or the capture it shows, so even
 * if a name from one ever slipped past the escaping, the page would run
 * only the script and style pdtool wrote, and could send nothing
 * anywhere.
 *
 * The hashes are computed when the page is written, from the very bytes
 * written, so a change to the script or the style cannot leave a stale
 * hash behind (the page would then run nothing).
 */
#include "pde_html_int.h"
#include "pdc_sha256.h"
#include "pdc_text.h"

#include <string.h>

/* " 'sha256-BASE64'" for text, or " 'none'" without any */
static void source(FILE *out, const char *text)
{
	unsigned char md[PDC_SHA256_SIZE];
	char b64[PDC_SHA256_B64_SIZE];

	if (!text) {
		fputs(" 'none'", out);
		return;
	}
	pdc_sha256(text, strlen(text), md);
	pdc_sha256_base64(md, b64);
	fprintf(out, " 'sha256-%s'", b64);
}

void pde_html_csp(FILE *out, const char *script, const char *style, bool xml)
{
	fputs("<meta http-equiv=\"Content-Security-Policy\" "
	      "content=\"default-src 'none'; script-src",
	      out);
	source(out, script);
	fputs("; style-src", out);
	source(out, style);
	fprintf(out, "; base-uri 'none'; form-action 'none'\"%s>\n",
		xml ? "/" : "");
}

void pde_html_text(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < n && s[i];) {
		size_t len;
		char esc[PDC_TEXT_ESC_LEN];

		switch (s[i]) {
		case '&':
			fputs("&amp;", out);
			i++;
			continue;
		case '<':
			fputs("&lt;", out);
			i++;
			continue;
		case '>':
			fputs("&gt;", out);
			i++;
			continue;
		case '"':
			fputs("&quot;", out);
			i++;
			continue;
		case '\'':
			fputs("&#39;", out);
			i++;
			continue;
		default:
			break;
		}
		len = pdc_text_char(s + i, n - i);
		if (len) {
			fwrite(s + i, 1, len, out);
			i += len;
			continue;
		}
		pdc_text_esc(s[i], esc);
		fwrite(esc, 1, sizeof(esc), out);
		i++;
	}
}
