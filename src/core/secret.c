/*
 * Thin wrappers over libsodium (see secret.h): the one place rdmpi's
 * cryptography is chosen, so a change of primitive is a change here.
 */
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include "core/errors.h"
#include "core/secret.h"

int core_crypto_init(void)
{
    /* 0: initialized now, 1: already was, -1: failure (no entropy source). */
    return sodium_init() < 0 ? -1 : 0;
}

void core_random(void *buf, size_t len)
{
    randombytes_buf(buf, len);
}

void core_kdf(const uint8_t key[CORE_KEY_LEN], const char *label, void *out, size_t outlen)
{
    size_t n = 0;
    while (label[n])
        n++;
    crypto_generichash(out, outlen, (const unsigned char *)label, n, key, CORE_KEY_LEN);
}

void core_mac(const uint8_t key[CORE_KEY_LEN], const void *msg, size_t len,
              uint8_t mac[CORE_MAC_LEN])
{
    crypto_auth_hmacsha256(mac, msg, len, key);
}

void core_mac_parts(const uint8_t key[CORE_KEY_LEN], const core_mac_part_t *parts, int n,
                    uint8_t mac[CORE_MAC_LEN])
{
    crypto_auth_hmacsha256_state st;

    crypto_auth_hmacsha256_init(&st, key, CORE_KEY_LEN);
    for (int i = 0; i < n; i++)
        crypto_auth_hmacsha256_update(&st, parts[i].p, parts[i].len);
    crypto_auth_hmacsha256_final(&st, mac);
    sodium_memzero(&st, sizeof(st));
}

int core_mac_ok(const uint8_t key[CORE_KEY_LEN], const void *msg, size_t len,
                const uint8_t mac[CORE_MAC_LEN])
{
    return crypto_auth_hmacsha256_verify(mac, msg, len, key) == 0;
}

int core_mem_eq(const void *a, const void *b, size_t n)
{
    return sodium_memcmp(a, b, n) == 0;
}

void core_hex(const void *bytes, size_t n, char *out)
{
    sodium_bin2hex(out, 2 * n + 1, bytes, n);
}

void core_kx_keypair(uint8_t pk[CORE_KX_PUBLIC], uint8_t sk[CORE_KX_SECRET])
{
    crypto_kx_keypair(pk, sk);
}

int core_kx_shared(const uint8_t pk[CORE_KX_PUBLIC], const uint8_t sk[CORE_KX_SECRET],
                   const uint8_t their_pk[CORE_KX_PUBLIC], uint8_t key[CORE_KEY_LEN])
{
    /* crypto_kx names the two sides client and server; its session keys are the same
     * pair at both, so either serves as the one shared key */
    uint8_t rx[crypto_kx_SESSIONKEYBYTES], tx[crypto_kx_SESSIONKEYBYTES];
    int lo = memcmp(pk, their_pk, CORE_KX_PUBLIC) < 0;
    int rc = lo ? crypto_kx_client_session_keys(rx, tx, pk, sk, their_pk)
                : crypto_kx_server_session_keys(rx, tx, pk, sk, their_pk);
    if (rc) {
        sodium_memzero(rx, sizeof(rx));
        sodium_memzero(tx, sizeof(tx));
        return CORE_EPROTO;
    }
    memcpy(key, lo ? tx : rx, CORE_KEY_LEN); /* client's tx == server's rx */
    sodium_memzero(rx, sizeof(rx));
    sodium_memzero(tx, sizeof(tx));
    return 0;
}
