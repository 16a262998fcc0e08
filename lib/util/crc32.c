#include "binding/util/crc32.h"
#include "binding/hooks/crc32.h"

#include <pthread.h>

#define CRC_POLY 0xEDB88320u

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? CRC_POLY ^ (c >> 1) : c >> 1;
		crc_table[0][i] = c;
	}
	for (int t = 1; t < 8; t++)
		for (int i = 0; i < 256; i++)
			crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^
					  crc_table[0][crc_table[t - 1][i] & 0xFF];
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* c: the running (inverted) value. */
static uint32_t table_update(uint32_t c, const unsigned char *p, size_t len)
{
	for (; len >= 8; len -= 8, p += 8) {
		uint32_t lo = c ^ le32(p), hi = le32(p + 4);
		c = crc_table[7][lo & 0xFF] ^ crc_table[6][(lo >> 8) & 0xFF] ^
		    crc_table[5][(lo >> 16) & 0xFF] ^ crc_table[4][lo >> 24] ^
		    crc_table[3][hi & 0xFF] ^ crc_table[2][(hi >> 8) & 0xFF] ^
		    crc_table[1][(hi >> 16) & 0xFF] ^ crc_table[0][hi >> 24];
	}
	while (len--)
		c = crc_table[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
	return c;
}

uint32_t bnd_crc32_table(const void *data, size_t len)
{
	pthread_once(&crc_once, crc_init);
	return table_update(0xFFFFFFFFu, data, len) ^ 0xFFFFFFFFu;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* Folding constants of the bit-reflected polynomial: x^(k) mod P for the
 * distances folded (4 x 128 bits, 128 bits, 64 bits), then P and the
 * Barrett constant floor(x^64 / P), all bit-reflected and shifted as the
 * reflected algorithm wants. They are properties of the polynomial, the
 * same in every implementation of the method. */
#define K1 0x0154442bd4ULL
#define K2 0x01c6e41596ULL
#define K3 0x01751997d0ULL
#define K4 0x00ccaa009eULL
#define K5 0x0163cd6124ULL
#define KP 0x01db710641ULL
#define KMU 0x01f7011641ULL

/* The same two for folding 4 x 512 bits at once (x^(2048+32), x^(2048-32)
 * mod P), by the wide path. */
#define K1W 0x011542778aULL
#define K2W 0x01322d1430ULL

/* Four 128-bit accumulators, each 16 bytes of the last 64 folded. */
struct lanes {
	__m128i x[4];
};

__attribute__((target("pclmul,sse4.1")))
static __m128i fold(__m128i acc, __m128i k, __m128i next)
{
	__m128i lo = _mm_clmulepi64_si128(acc, k, 0x00);
	__m128i hi = _mm_clmulepi64_si128(acc, k, 0x11);
	return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

/* The first 64 bytes, c (the running inverted value) folded in. */
__attribute__((target("pclmul,sse4.1")))
static void lanes_start(struct lanes *l, uint32_t c, const unsigned char *p)
{
	for (int i = 0; i < 4; i++)
		l->x[i] = _mm_loadu_si128((const __m128i *)(p + 16 * i));
	l->x[0] = _mm_xor_si128(l->x[0], _mm_cvtsi32_si128((int)c));
}

/* Every 64 bytes of len (a multiple of 64) folded in. */
__attribute__((target("pclmul,sse4.1")))
static void lanes_fold64(struct lanes *l, const unsigned char *p, size_t len)
{
	__m128i k = _mm_set_epi64x((long long)K2, (long long)K1);
	for (; len >= 64; p += 64, len -= 64)
		for (int i = 0; i < 4; i++)
			l->x[i] = fold(l->x[i], k, _mm_loadu_si128((const __m128i *)(p + 16 * i)));
}

/* The lanes into one, the last len bytes (a multiple of 16, less than 64)
 * folded in, then 128 -> 64 bits and 64 -> 32 by Barrett reduction. */
__attribute__((target("pclmul,sse4.1")))
static uint32_t lanes_finish(struct lanes *l, const unsigned char *p, size_t len)
{
	__m128i k = _mm_set_epi64x((long long)K4, (long long)K3);
	__m128i x1 = fold(l->x[0], k, l->x[1]);
	x1 = fold(x1, k, l->x[2]);
	x1 = fold(x1, k, l->x[3]);
	for (; len >= 16; p += 16, len -= 16)
		x1 = fold(x1, k, _mm_loadu_si128((const __m128i *)p));
	const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);
	__m128i t = _mm_clmulepi64_si128(x1, k, 0x10);
	x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), t);
	t = _mm_srli_si128(x1, 4);
	x1 = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), _mm_set_epi64x(0, (long long)K5), 0x00);
	x1 = _mm_xor_si128(x1, t);
	k = _mm_set_epi64x((long long)KMU, (long long)KP);
	t = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), k, 0x10);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), k, 0x00);
	return (uint32_t)_mm_extract_epi32(_mm_xor_si128(x1, t), 1);
}

#define WIDE "avx512f,vpclmulqdq,pclmul,sse4.1"

__attribute__((target(WIDE)))
static __m512i fold_wide(__m512i acc, __m512i k, __m512i next)
{
	__m512i lo = _mm512_clmulepi64_epi128(acc, k, 0x00);
	__m512i hi = _mm512_clmulepi64_epi128(acc, k, 0x11);
	return _mm512_ternarylogic_epi64(lo, hi, next, 0x96); /* lo ^ hi ^ next */
}

/* The wide path's start: len (a multiple of 256, at least 256) folded 256
 * bytes a round in four 512-bit accumulators, which then fold into one,
 * whose four 128-bit lanes are where the narrow path would be. A state of
 * 1000 records is read and written every transaction: the narrow loop was
 * a tenth of one. */
__attribute__((target(WIDE)))
static void wide_start(struct lanes *l, uint32_t c, const unsigned char *p, size_t len)
{
	__m512i z[4];
	for (int i = 0; i < 4; i++)
		z[i] = _mm512_loadu_si512((const void *)(p + 64 * i));
	z[0] = _mm512_xor_si512(z[0], _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)c)));
	__m512i k = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)K2W, (long long)K1W));
	for (p += 256, len -= 256; len >= 256; p += 256, len -= 256)
		for (int i = 0; i < 4; i++)
			z[i] = fold_wide(z[i], k, _mm512_loadu_si512((const void *)(p + 64 * i)));
	k = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)K2, (long long)K1));
	__m512i one = fold_wide(z[0], k, z[1]);
	one = fold_wide(one, k, z[2]);
	one = fold_wide(one, k, z[3]);
	l->x[0] = _mm512_extracti32x4_epi32(one, 0);
	l->x[1] = _mm512_extracti32x4_epi32(one, 1);
	l->x[2] = _mm512_extracti32x4_epi32(one, 2);
	l->x[3] = _mm512_extracti32x4_epi32(one, 3);
}

enum crc_path { PATH_TABLE, PATH_NARROW, PATH_WIDE };

static enum crc_path best_path = PATH_TABLE;

static void path_init(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1"))
		best_path = __builtin_cpu_supports("avx512f") &&
				    __builtin_cpu_supports("vpclmulqdq")
			    ? PATH_WIDE
			    : PATH_NARROW;
}

static pthread_once_t path_once = PTHREAD_ONCE_INIT;

/* len >= 64; c the running (inverted) value. Returns it, past the bytes
 * taken (*taken, a multiple of 16). */
static uint32_t folded(enum crc_path path, uint32_t c, const unsigned char *p, size_t len,
		       size_t *taken)
{
	struct lanes l;
	size_t bulk = len & ~(size_t)15, done;
	if (path == PATH_WIDE && bulk >= 256) {
		done = bulk & ~(size_t)255;
		wide_start(&l, c, p, done);
	} else {
		lanes_start(&l, c, p);
		done = 64;
	}
	size_t more = (bulk - done) & ~(size_t)63;
	lanes_fold64(&l, p + done, more);
	done += more;
	*taken = bulk;
	return lanes_finish(&l, p + done, bulk - done);
}

static uint32_t crc_by(enum crc_path path, const void *data, size_t len)
{
	const unsigned char *p = data;
	uint32_t c = 0xFFFFFFFFu;
	pthread_once(&crc_once, crc_init);
	if (path != PATH_TABLE && len >= 64) {
		size_t taken;
		c = folded(path, c, p, len, &taken);
		p += taken;
		len -= taken;
	}
	return table_update(c, p, len) ^ 0xFFFFFFFFu;
}

uint32_t bnd_crc32(const void *data, size_t len)
{
	pthread_once(&path_once, path_init);
	return crc_by(best_path, data, len);
}

uint32_t bnd_crc32_narrow(const void *data, size_t len)
{
	pthread_once(&path_once, path_init);
	return crc_by(best_path == PATH_TABLE ? PATH_TABLE : PATH_NARROW, data, len);
}

#else

uint32_t bnd_crc32(const void *data, size_t len)
{
	return bnd_crc32_table(data, len);
}

uint32_t bnd_crc32_narrow(const void *data, size_t len)
{
	return bnd_crc32_table(data, len);
}

#endif
