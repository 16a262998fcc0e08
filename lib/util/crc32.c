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

__attribute__((target("pclmul,sse4.1")))
static __m128i fold(__m128i acc, __m128i k, __m128i next)
{
	__m128i lo = _mm_clmulepi64_si128(acc, k, 0x00);
	__m128i hi = _mm_clmulepi64_si128(acc, k, 0x11);
	return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

/* len >= 64 and a multiple of 16; c is the running (inverted) value. */
__attribute__((target("pclmul,sse4.1")))
static uint32_t clmul_update(uint32_t c, const unsigned char *p, size_t len)
{
	__m128i x1 = _mm_loadu_si128((const __m128i *)p);
	__m128i x2 = _mm_loadu_si128((const __m128i *)(p + 16));
	__m128i x3 = _mm_loadu_si128((const __m128i *)(p + 32));
	__m128i x4 = _mm_loadu_si128((const __m128i *)(p + 48));
	x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)c));
	__m128i k = _mm_set_epi64x((long long)K2, (long long)K1);
	for (p += 64, len -= 64; len >= 64; p += 64, len -= 64) {
		x1 = fold(x1, k, _mm_loadu_si128((const __m128i *)p));
		x2 = fold(x2, k, _mm_loadu_si128((const __m128i *)(p + 16)));
		x3 = fold(x3, k, _mm_loadu_si128((const __m128i *)(p + 32)));
		x4 = fold(x4, k, _mm_loadu_si128((const __m128i *)(p + 48)));
	}
	k = _mm_set_epi64x((long long)K4, (long long)K3);
	x1 = fold(x1, k, x2);
	x1 = fold(x1, k, x3);
	x1 = fold(x1, k, x4);
	for (; len >= 16; p += 16, len -= 16)
		x1 = fold(x1, k, _mm_loadu_si128((const __m128i *)p));

	/* 128 -> 64 bits, then 64 -> 32 by Barrett reduction. */
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

static int have_clmul = -1;

static void clmul_init(void)
{
	__builtin_cpu_init();
	have_clmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

static pthread_once_t clmul_once = PTHREAD_ONCE_INIT;

uint32_t bnd_crc32(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint32_t c = 0xFFFFFFFFu;
	pthread_once(&crc_once, crc_init);
	pthread_once(&clmul_once, clmul_init);
	if (have_clmul && len >= 64) {
		size_t bulk = len & ~(size_t)15;
		c = clmul_update(c, p, bulk);
		p += bulk;
		len -= bulk;
	}
	return table_update(c, p, len) ^ 0xFFFFFFFFu;
}

#else

uint32_t bnd_crc32(const void *data, size_t len)
{
	return bnd_crc32_table(data, len);
}

#endif
