#include "base/deflate_rle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/*
 * Symbols a block holds at most before its codes are made and it is
 * written: zlib's size at its default memory level, so that codes follow
 * the picture's rows about as closely.
 */
#define BLOCK_SYMBOLS	16384

#define LIT_CODES	286	/* literals, end of block, lengths */
/* code_lengths sorts a frequency and a symbol in 24 bits. */
_Static_assert(((BLOCK_SYMBOLS + 1) << 9) < (1 << 24),
    "a block's frequencies fit sort_keys");
#define END_OF_BLOCK	256
#define LIT_MAX_BITS	15
#define CL_CODES	19	/* the code of the codes' lengths */
#define CL_MAX_BITS	7
#define RUN_MIN		3	/* a shorter run is literals */
#define RUN_MAX		258

/* A run of n bytes: code 257 + i, n - len_base[i] in len_extra[i] bits. */
static const uint16_t len_base[29] = {
	3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51,
	59, 67, 83, 99, 115, 131, 163, 195, 227, 258
};
static const uint8_t len_extra[29] = {
	0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4,
	4, 5, 5, 5, 5, 0
};

/* The order in which a block's head gives the code lengths' lengths. */
static const uint8_t cl_order[CL_CODES] = {
	16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15
};

struct deflate_rle {
	/* A literal below 256; a run of n bytes, 256 + n - RUN_MIN. */
	uint16_t syms[BLOCK_SYMBOLS];
	uint32_t nsyms;
	uint32_t freq[LIT_CODES];
	uint8_t len_code[RUN_MAX + 1];	/* i of len_base for a run's length */
	int prev;		/* the byte before, or -1 at the start */
	uint32_t run;		/* bytes since, equal to prev, not yet symbols */

	unsigned char *out;
	size_t len, cap;
	uint64_t bits;		/* bits not yet bytes, the first lowest */
	unsigned nbits;
};

deflate_rle *
deflate_rle_new(void)
{
	deflate_rle *z = xcalloc(1, sizeof (*z));
	unsigned n, i = 0;

	for (n = RUN_MIN; n <= RUN_MAX; n++) {
		while (i + 1 < 29 && len_base[i + 1] <= n)
			i++;
		z->len_code[n] = (uint8_t)i;
	}
	z->prev = -1;
	return (z);
}

void
deflate_rle_free(deflate_rle *z)
{
	if (z == NULL)
		return;
	free(z->out);
	free(z);
}

/* ---- bits out ---- */

static void
reserve(deflate_rle *z, size_t more)
{
	if (z->cap - z->len >= more)
		return;
	grow_array(&z->out, &z->cap, z->len + more, 1);
}

/* Appends the n low bits of v (n <= 32); room is reserved before. */
static inline void
put_bits(deflate_rle *z, uint32_t v, unsigned n)
{
	z->bits |= (uint64_t)v << z->nbits;
	z->nbits += n;
	if (z->nbits >= 32) {
		unsigned char *p = z->out + z->len;

		p[0] = (unsigned char)z->bits;
		p[1] = (unsigned char)(z->bits >> 8);
		p[2] = (unsigned char)(z->bits >> 16);
		p[3] = (unsigned char)(z->bits >> 24);
		z->len += 4;
		z->bits >>= 32;
		z->nbits -= 32;
	}
}

/* Out to the byte boundary, the last byte padded with zeros. */
static void
align_bytes(deflate_rle *z)
{
	reserve(z, 8);
	while (z->nbits > 0) {
		z->out[z->len++] = (unsigned char)z->bits;
		z->bits >>= 8;
		z->nbits = z->nbits > 8 ? z->nbits - 8 : 0;
	}
	z->bits = 0;
}

/* ---- codes ---- */

/*
 * Sorts keys (below 2^24) in place, a byte at a time from the lowest:
 * a block's few hundred symbols, where qsort and its calls took a sixth
 * of the whole.
 */
static void
sort_keys(uint32_t *keys, unsigned n)
{
	uint32_t tmp[LIT_CODES], *from = keys, *to = tmp, *t;
	unsigned shift, i;

	for (shift = 0; shift < 24; shift += 8) {
		unsigned count[257] = { 0 };

		for (i = 0; i < n; i++)
			count[((from[i] >> shift) & 0xff) + 1]++;
		for (i = 1; i < 257; i++)
			count[i] += count[i - 1];
		for (i = 0; i < n; i++)
			to[count[(from[i] >> shift) & 0xff]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
	/* Three passes: the keys are in tmp. */
	memcpy(keys, from, n * sizeof (uint32_t));
}

/*
 * Huffman code lengths of the n symbols of freq, all with a frequency
 * (at least two of them), into len (0 for the others); returns the
 * longest.  Leaves in order of frequency and the nodes made of them,
 * which come in order too, are merged two queues' heads at a time.
 */
static unsigned
code_lengths(const uint32_t *freq, unsigned n, uint8_t *len)
{
	/* Frequency and symbol: frequencies are at most BLOCK_SYMBOLS. */
	uint32_t leaves[LIT_CODES];
	uint64_t weight[2 * LIT_CODES];
	uint16_t parent[2 * LIT_CODES];
	uint16_t depth[2 * LIT_CODES];
	unsigned m = 0, i, next_leaf = 0, next_node, made, longest = 0;

	for (i = 0; i < n; i++)
		if (freq[i] > 0)
			leaves[m++] = freq[i] << 9 | i;
	sort_keys(leaves, m);
	for (i = 0; i < m; i++)
		weight[i] = leaves[i] >> 9;
	/* Nodes m, m + 1, ...: each of the two lightest heads. */
	next_node = m;
	for (made = m; made < 2 * m - 1; made++) {
		unsigned k, pick[2];

		for (k = 0; k < 2; k++) {
			if (next_leaf < m && (next_node == made ||
			    weight[next_leaf] <= weight[next_node]))
				pick[k] = next_leaf++;
			else
				pick[k] = next_node++;
		}
		weight[made] = weight[pick[0]] + weight[pick[1]];
		parent[pick[0]] = parent[pick[1]] = (uint16_t)made;
	}
	/* The root is the last made; each node is one below its parent. */
	depth[2 * m - 2] = 0;
	for (i = 2 * m - 2; i-- > 0;)
		depth[i] = (uint16_t)(depth[parent[i]] + 1);
	memset(len, 0, n);
	for (i = 0; i < m; i++) {
		len[leaves[i] & 0x1ff] = (uint8_t)(depth[i] > 255 ? 255 :
		    depth[i]);
		if (depth[i] > longest)
			longest = depth[i];
	}
	return (longest);
}

/*
 * Code lengths of at most limit bits: while the Huffman code is too
 * deep, frequencies are halved (kept above zero), which flattens it; all
 * ones give a balanced code, within the limits here.  A code of one
 * symbol is given a second, so that every code is complete, as inflaters
 * require of the codes' lengths' code.
 */
static void
limited_lengths(const uint32_t *freq, unsigned n, unsigned limit,
    uint8_t *len)
{
	uint32_t f[LIT_CODES];
	unsigned i, used = 0;

	for (i = 0; i < n; i++)
		used += (f[i] = freq[i]) > 0;
	for (i = 0; used < 2 && i < n; i++)
		if (f[i] == 0) {
			f[i] = 1;
			used++;
		}
	while (code_lengths(f, n, len) > limit)
		for (i = 0; i < n; i++)
			if (f[i] > 0)
				f[i] = (f[i] >> 1) | 1;
}

/* The canonical codes of lengths len, bit-reversed as deflate sends them. */
static void
canonical_codes(const uint8_t *len, unsigned n, uint16_t *code)
{
	unsigned count[LIT_MAX_BITS + 1] = { 0 }, next[LIT_MAX_BITS + 1];
	unsigned i, bits, c = 0;

	for (i = 0; i < n; i++)
		count[len[i]]++;
	count[0] = 0;
	for (bits = 1; bits <= LIT_MAX_BITS; bits++) {
		c = (c + count[bits - 1]) << 1;
		next[bits] = c;
	}
	for (i = 0; i < n; i++) {
		unsigned v, r = 0, k;

		if (len[i] == 0)
			continue;
		v = next[len[i]]++;
		for (k = 0; k < len[i]; k++)
			r |= ((v >> k) & 1) << (len[i] - 1 - k);
		code[i] = (uint16_t)r;
	}
}

/* ---- blocks ---- */

/*
 * The code lengths of a block's two codes as the code of code lengths
 * has them: a length, or runs of the one before (16), of zeros (17, 18),
 * each with its count in the low byte of sym's high half.
 */
static unsigned
run_length_lengths(const uint8_t *lens, unsigned n, uint16_t *out,
    uint32_t *cl_freq)
{
	unsigned i = 0, nout = 0;

	while (i < n) {
		unsigned v = lens[i], run = 1;

		while (i + run < n && lens[i + run] == v)
			run++;
		i += run;
		if (v == 0) {
			while (run >= 11) {
				unsigned k = run > 138 ? 138 : run;

				out[nout++] = (uint16_t)(18 | (k - 11) << 8);
				cl_freq[18]++;
				run -= k;
			}
			if (run >= 3) {
				out[nout++] = (uint16_t)(17 | (run - 3) << 8);
				cl_freq[17]++;
				run = 0;
			}
		} else {
			/* The length once, then repeats of it. */
			out[nout++] = (uint16_t)v;
			cl_freq[v]++;
			run--;
			while (run >= 3) {
				unsigned k = run > 6 ? 6 : run;

				out[nout++] = (uint16_t)(16 | (k - 3) << 8);
				cl_freq[16]++;
				run -= k;
			}
		}
		while (run-- > 0) {
			out[nout++] = (uint16_t)v;
			cl_freq[v]++;
		}
	}
	return (nout);
}

/* Writes the symbols gathered as one block of dynamic codes. */
static void
write_block(deflate_rle *z, int final)
{
	static const uint8_t cl_extra[3] = { 2, 3, 7 };	/* 16, 17, 18 */
	uint8_t lens[LIT_CODES + 2], cl_len[CL_CODES];
	uint16_t lit_code[LIT_CODES], cl_code[CL_CODES];
	uint16_t runs[LIT_CODES + 2];
	uint32_t cl_freq[CL_CODES] = { 0 };
	unsigned hlit, hclen, nruns, i;

	z->freq[END_OF_BLOCK] = 1;
	limited_lengths(z->freq, LIT_CODES, LIT_MAX_BITS, lens);
	canonical_codes(lens, LIT_CODES, lit_code);
	for (hlit = LIT_CODES; lens[hlit - 1] == 0; hlit--)
		continue;
	/* Distances: only 1 (code 0), and code 1 to make the code whole. */
	lens[hlit] = 1;
	lens[hlit + 1] = 1;
	nruns = run_length_lengths(lens, hlit + 2, runs, cl_freq);
	limited_lengths(cl_freq, CL_CODES, CL_MAX_BITS, cl_len);
	canonical_codes(cl_len, CL_CODES, cl_code);
	for (hclen = CL_CODES; cl_len[cl_order[hclen - 1]] == 0; hclen--)
		continue;

	/* The head: at most 17 + 19 * 3 + 288 * 14 bits. */
	reserve(z, 600 + (size_t)z->nsyms * 3);
	put_bits(z, final ? 1 : 0, 1);
	put_bits(z, 2, 2);		/* dynamic codes */
	put_bits(z, hlit - 257, 5);
	put_bits(z, 1, 5);		/* two distance codes */
	put_bits(z, hclen - 4, 4);
	for (i = 0; i < hclen; i++)
		put_bits(z, cl_len[cl_order[i]], 3);
	for (i = 0; i < nruns; i++) {
		unsigned sym = runs[i] & 0xff;

		put_bits(z, cl_code[sym], cl_len[sym]);
		if (sym >= 16)
			put_bits(z, runs[i] >> 8, cl_extra[sym - 16]);
	}
	/*
	 * The data: a literal at most 15 bits, a run 15 + 5 + 1 (the
	 * distance's code, 0): 3 bytes a symbol, reserved above.
	 */
	for (i = 0; i < z->nsyms; i++) {
		unsigned s = z->syms[i];

		if (s < 256) {
			put_bits(z, lit_code[s], lens[s]);
		} else {
			unsigned n = s - 256 + RUN_MIN, c = z->len_code[n];

			put_bits(z, lit_code[257 + c], lens[257 + c]);
			put_bits(z, n - len_base[c], len_extra[c]);
			put_bits(z, 0, 1);	/* distance 1 */
		}
	}
	put_bits(z, lit_code[END_OF_BLOCK], lens[END_OF_BLOCK]);
	z->nsyms = 0;
	memset(z->freq, 0, sizeof (z->freq));
}

static inline void
add_literal(deflate_rle *z, unsigned c)
{
	if (z->nsyms == BLOCK_SYMBOLS)
		write_block(z, 0);
	z->syms[z->nsyms++] = (uint16_t)c;
	z->freq[c]++;
}

/* The run of prev pending: a match, or literals if too short. */
static void
end_run(deflate_rle *z)
{
	uint32_t n = z->run;

	z->run = 0;
	if (n >= RUN_MIN) {
		if (z->nsyms == BLOCK_SYMBOLS)
			write_block(z, 0);
		z->syms[z->nsyms++] = (uint16_t)(256 + n - RUN_MIN);
		z->freq[257 + z->len_code[n]]++;
		return;
	}
	while (n-- > 0)
		add_literal(z, (unsigned)z->prev);
}

/*
 * How many of the n bytes at p are c, from the first: eight at a time
 * where a word can be read in its byte order, so that the long runs of a
 * picture's rows (zeros, where a colour holds) cost a compare a word.
 */
static size_t
same_bytes(const unsigned char *p, size_t n, unsigned char c)
{
	size_t i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t all = 0x0101010101010101ULL * c, w;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, sizeof (w));
		if ((w ^= all) != 0)
			return (i + (size_t)__builtin_ctzll(w) / 8);
	}
#endif
	while (i < n && p[i] == c)
		i++;
	return (i);
}

void
deflate_rle_write(deflate_rle *z, const unsigned char *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned c = p[i];

		if ((int)c == z->prev) {
			/* The run goes on: a match of RUN_MAX each time it
			 * reaches that, the rest pending. */
			size_t m = same_bytes(p + i, n - i, (unsigned char)c);
			size_t total = z->run + m;

			for (; total >= RUN_MAX; total -= RUN_MAX) {
				z->run = RUN_MAX;
				end_run(z);
			}
			z->run = (uint32_t)total;
			i += m;
			continue;
		}
		if (z->run > 0)
			end_run(z);
		add_literal(z, c);
		z->prev = (int)c;
		i++;
	}
}

unsigned char *
deflate_rle_finish(deflate_rle *z, int final, size_t *len)
{
	unsigned char *out;

	if (z->run > 0)
		end_run(z);
	write_block(z, final);
	if (!final) {
		/* An empty stored block: the rest starts on a byte. */
		reserve(z, 16);
		put_bits(z, 0, 3);
		align_bytes(z);
		reserve(z, 4);
		memcpy(z->out + z->len, "\x00\x00\xff\xff", 4);
		z->len += 4;
	} else {
		align_bytes(z);
	}
	out = z->out;
	*len = z->len;
	z->out = NULL;
	z->len = z->cap = 0;
	return (out);
}
