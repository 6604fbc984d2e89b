# MD5 in C, shared by the compiled twins that hash: the sentence digests of
# ingest/_fingerprint.pyx (the paper's sentence hash) and the line hashes of ingest/_chrome.pyx.
# Included (``include "_md5.pxi"``): each module gets its own static copy, inlined where it is
# called.

cdef extern from *:
    """
    /* MD5 (RFC 1321), one-shot: hashlib costs ~1 us per call (an EVP context per digest),
       this ~0.2 us per sentence or line. Tested against hashlib
       (tests/ingest/test_fingerprint.py). */
    #include <stdint.h>
    #include <string.h>
    static inline void nd_md5_block(uint32_t h[4], const unsigned char *p) {
        /* RFC 1321, the 64 steps unrolled: T[i] = floor(2^32 |sin(i + 1)|), shifts
           7 12 17 22 / 5 9 14 20 / 4 11 16 23 / 6 10 15 21 by round. */
        uint32_t m[16], a = h[0], b = h[1], c = h[2], d = h[3];
        for (int i = 0; i < 16; i++)
            m[i] = (uint32_t)p[4 * i] | ((uint32_t)p[4 * i + 1] << 8)
                 | ((uint32_t)p[4 * i + 2] << 16) | ((uint32_t)p[4 * i + 3] << 24);
        a += (d ^ (b & (c ^ d))) + m[0] + 0xd76aa478u; a = ((a << 7) | (a >> 25)) + b;
        d += (c ^ (a & (b ^ c))) + m[1] + 0xe8c7b756u; d = ((d << 12) | (d >> 20)) + a;
        c += (b ^ (d & (a ^ b))) + m[2] + 0x242070dbu; c = ((c << 17) | (c >> 15)) + d;
        b += (a ^ (c & (d ^ a))) + m[3] + 0xc1bdceeeu; b = ((b << 22) | (b >> 10)) + c;
        a += (d ^ (b & (c ^ d))) + m[4] + 0xf57c0fafu; a = ((a << 7) | (a >> 25)) + b;
        d += (c ^ (a & (b ^ c))) + m[5] + 0x4787c62au; d = ((d << 12) | (d >> 20)) + a;
        c += (b ^ (d & (a ^ b))) + m[6] + 0xa8304613u; c = ((c << 17) | (c >> 15)) + d;
        b += (a ^ (c & (d ^ a))) + m[7] + 0xfd469501u; b = ((b << 22) | (b >> 10)) + c;
        a += (d ^ (b & (c ^ d))) + m[8] + 0x698098d8u; a = ((a << 7) | (a >> 25)) + b;
        d += (c ^ (a & (b ^ c))) + m[9] + 0x8b44f7afu; d = ((d << 12) | (d >> 20)) + a;
        c += (b ^ (d & (a ^ b))) + m[10] + 0xffff5bb1u; c = ((c << 17) | (c >> 15)) + d;
        b += (a ^ (c & (d ^ a))) + m[11] + 0x895cd7beu; b = ((b << 22) | (b >> 10)) + c;
        a += (d ^ (b & (c ^ d))) + m[12] + 0x6b901122u; a = ((a << 7) | (a >> 25)) + b;
        d += (c ^ (a & (b ^ c))) + m[13] + 0xfd987193u; d = ((d << 12) | (d >> 20)) + a;
        c += (b ^ (d & (a ^ b))) + m[14] + 0xa679438eu; c = ((c << 17) | (c >> 15)) + d;
        b += (a ^ (c & (d ^ a))) + m[15] + 0x49b40821u; b = ((b << 22) | (b >> 10)) + c;
        a += (c ^ (d & (b ^ c))) + m[1] + 0xf61e2562u; a = ((a << 5) | (a >> 27)) + b;
        d += (b ^ (c & (a ^ b))) + m[6] + 0xc040b340u; d = ((d << 9) | (d >> 23)) + a;
        c += (a ^ (b & (d ^ a))) + m[11] + 0x265e5a51u; c = ((c << 14) | (c >> 18)) + d;
        b += (d ^ (a & (c ^ d))) + m[0] + 0xe9b6c7aau; b = ((b << 20) | (b >> 12)) + c;
        a += (c ^ (d & (b ^ c))) + m[5] + 0xd62f105du; a = ((a << 5) | (a >> 27)) + b;
        d += (b ^ (c & (a ^ b))) + m[10] + 0x02441453u; d = ((d << 9) | (d >> 23)) + a;
        c += (a ^ (b & (d ^ a))) + m[15] + 0xd8a1e681u; c = ((c << 14) | (c >> 18)) + d;
        b += (d ^ (a & (c ^ d))) + m[4] + 0xe7d3fbc8u; b = ((b << 20) | (b >> 12)) + c;
        a += (c ^ (d & (b ^ c))) + m[9] + 0x21e1cde6u; a = ((a << 5) | (a >> 27)) + b;
        d += (b ^ (c & (a ^ b))) + m[14] + 0xc33707d6u; d = ((d << 9) | (d >> 23)) + a;
        c += (a ^ (b & (d ^ a))) + m[3] + 0xf4d50d87u; c = ((c << 14) | (c >> 18)) + d;
        b += (d ^ (a & (c ^ d))) + m[8] + 0x455a14edu; b = ((b << 20) | (b >> 12)) + c;
        a += (c ^ (d & (b ^ c))) + m[13] + 0xa9e3e905u; a = ((a << 5) | (a >> 27)) + b;
        d += (b ^ (c & (a ^ b))) + m[2] + 0xfcefa3f8u; d = ((d << 9) | (d >> 23)) + a;
        c += (a ^ (b & (d ^ a))) + m[7] + 0x676f02d9u; c = ((c << 14) | (c >> 18)) + d;
        b += (d ^ (a & (c ^ d))) + m[12] + 0x8d2a4c8au; b = ((b << 20) | (b >> 12)) + c;
        a += (b ^ c ^ d) + m[5] + 0xfffa3942u; a = ((a << 4) | (a >> 28)) + b;
        d += (a ^ b ^ c) + m[8] + 0x8771f681u; d = ((d << 11) | (d >> 21)) + a;
        c += (d ^ a ^ b) + m[11] + 0x6d9d6122u; c = ((c << 16) | (c >> 16)) + d;
        b += (c ^ d ^ a) + m[14] + 0xfde5380cu; b = ((b << 23) | (b >> 9)) + c;
        a += (b ^ c ^ d) + m[1] + 0xa4beea44u; a = ((a << 4) | (a >> 28)) + b;
        d += (a ^ b ^ c) + m[4] + 0x4bdecfa9u; d = ((d << 11) | (d >> 21)) + a;
        c += (d ^ a ^ b) + m[7] + 0xf6bb4b60u; c = ((c << 16) | (c >> 16)) + d;
        b += (c ^ d ^ a) + m[10] + 0xbebfbc70u; b = ((b << 23) | (b >> 9)) + c;
        a += (b ^ c ^ d) + m[13] + 0x289b7ec6u; a = ((a << 4) | (a >> 28)) + b;
        d += (a ^ b ^ c) + m[0] + 0xeaa127fau; d = ((d << 11) | (d >> 21)) + a;
        c += (d ^ a ^ b) + m[3] + 0xd4ef3085u; c = ((c << 16) | (c >> 16)) + d;
        b += (c ^ d ^ a) + m[6] + 0x04881d05u; b = ((b << 23) | (b >> 9)) + c;
        a += (b ^ c ^ d) + m[9] + 0xd9d4d039u; a = ((a << 4) | (a >> 28)) + b;
        d += (a ^ b ^ c) + m[12] + 0xe6db99e5u; d = ((d << 11) | (d >> 21)) + a;
        c += (d ^ a ^ b) + m[15] + 0x1fa27cf8u; c = ((c << 16) | (c >> 16)) + d;
        b += (c ^ d ^ a) + m[2] + 0xc4ac5665u; b = ((b << 23) | (b >> 9)) + c;
        a += (c ^ (b | ~d)) + m[0] + 0xf4292244u; a = ((a << 6) | (a >> 26)) + b;
        d += (b ^ (a | ~c)) + m[7] + 0x432aff97u; d = ((d << 10) | (d >> 22)) + a;
        c += (a ^ (d | ~b)) + m[14] + 0xab9423a7u; c = ((c << 15) | (c >> 17)) + d;
        b += (d ^ (c | ~a)) + m[5] + 0xfc93a039u; b = ((b << 21) | (b >> 11)) + c;
        a += (c ^ (b | ~d)) + m[12] + 0x655b59c3u; a = ((a << 6) | (a >> 26)) + b;
        d += (b ^ (a | ~c)) + m[3] + 0x8f0ccc92u; d = ((d << 10) | (d >> 22)) + a;
        c += (a ^ (d | ~b)) + m[10] + 0xffeff47du; c = ((c << 15) | (c >> 17)) + d;
        b += (d ^ (c | ~a)) + m[1] + 0x85845dd1u; b = ((b << 21) | (b >> 11)) + c;
        a += (c ^ (b | ~d)) + m[8] + 0x6fa87e4fu; a = ((a << 6) | (a >> 26)) + b;
        d += (b ^ (a | ~c)) + m[15] + 0xfe2ce6e0u; d = ((d << 10) | (d >> 22)) + a;
        c += (a ^ (d | ~b)) + m[6] + 0xa3014314u; c = ((c << 15) | (c >> 17)) + d;
        b += (d ^ (c | ~a)) + m[13] + 0x4e0811a1u; b = ((b << 21) | (b >> 11)) + c;
        a += (c ^ (b | ~d)) + m[4] + 0xf7537e82u; a = ((a << 6) | (a >> 26)) + b;
        d += (b ^ (a | ~c)) + m[11] + 0xbd3af235u; d = ((d << 10) | (d >> 22)) + a;
        c += (a ^ (d | ~b)) + m[2] + 0x2ad7d2bbu; c = ((c << 15) | (c >> 17)) + d;
        b += (d ^ (c | ~a)) + m[9] + 0xeb86d391u; b = ((b << 21) | (b >> 11)) + c;
        h[0] += a; h[1] += b; h[2] += c; h[3] += d;
    }

    static void nd_md5(const unsigned char *data, size_t len, unsigned char out[16]) {
        uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
        unsigned char tail[128];
        size_t full = len & ~(size_t)63, rest = len - full, padded;
        for (size_t off = 0; off < full; off += 64) nd_md5_block(h, data + off);
        memcpy(tail, data + full, rest);
        tail[rest] = 0x80;
        padded = rest < 56 ? 64 : 128;
        memset(tail + rest + 1, 0, padded - rest - 1);
        uint64_t bits = (uint64_t)len * 8;
        for (int i = 0; i < 8; i++) tail[padded - 8 + i] = (unsigned char)(bits >> (8 * i));
        for (size_t off = 0; off < padded; off += 64) nd_md5_block(h, tail + off);
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 4; k++) out[4 * i + k] = (unsigned char)(h[i] >> (8 * k));
    }
    """
    void nd_md5(const unsigned char *data, size_t length, unsigned char *out) nogil
