/*
 * The job key and the few cryptographic operations rdmpi needs, all done by
 * libsodium (never by hand): random bytes, a keyed MAC for challenge-response
 * handshakes, constant-time comparison, and key derivation so that one
 * per-job key can name shm objects, set the UD Q_Key and answer tcp
 * challenges without any of those revealing it or each other.
 *
 * Every member of a job holds the same 32-byte job key (rt->job_key). Under
 * rdmpirun it comes from the launcher through PMIx job data (key
 * CORE_JOB_KEY_PMIX); under another PMIx launcher rank 0 makes it and shares
 * it in an extra startup fence. It never crosses a network in clear: the
 * launcher's daemons learn their secret through ssh, and peers prove they
 * hold the key by MACs of fresh challenges.
 *
 * Shared by the library and the launcher, so it depends on nothing but
 * libsodium.
 */
#ifndef RDMPI_CORE_SECRET_H
#define RDMPI_CORE_SECRET_H

#include <stddef.h>
#include <stdint.h>

#define CORE_KEY_LEN 32
#define CORE_MAC_LEN 32
/* The PMIx job-level key (a 32-byte PMIX_BYTE_OBJECT) holding the job key. */
#define CORE_JOB_KEY_PMIX "rdmpi.job_key"
/* rdmpirun's job info: where this job's ranks start in the numbering of every process the
 * launcher runs (its job's, then each spawned job's), a uint32. Transports name processes of
 * other jobs by these numbers (core/procs.h); absent under other launchers (0). */
#define CORE_UBASE_PMIX "rdmpi.ubase"
/* A spawn request's app info (a string): directories, ':' separated, where the launcher looks
 * for the app's command before PATH (MPI_Comm_spawn's info key "path"). */
#define CORE_SPAWN_PATH_PMIX "rdmpi.spawn.path"

/* Initializes libsodium; safe to call more than once and from any layer. */
int core_crypto_init(void);
/* Fills buf with unpredictable bytes (the kernel's CSPRNG). */
void core_random(void *buf, size_t len);
/* A subkey or tag for one purpose: out = BLAKE2b keyed with key, over the label.
 * outlen from 16 to 64 bytes; different labels give independent outputs. */
void core_kdf(const uint8_t key[CORE_KEY_LEN], const char *label, void *out, size_t outlen);
/* HMAC-SHA-256 of msg under key. */
void core_mac(const uint8_t key[CORE_KEY_LEN], const void *msg, size_t len,
              uint8_t mac[CORE_MAC_LEN]);
/* HMAC-SHA-256 under key of the concatenation of n parts (no copy into one buffer). */
typedef struct core_mac_part {
    const void *p;
    size_t len;
} core_mac_part_t;
void core_mac_parts(const uint8_t key[CORE_KEY_LEN], const core_mac_part_t *parts, int n,
                    uint8_t mac[CORE_MAC_LEN]);
/* 1 when mac is the MAC of msg under key; the comparison takes the same time wherever
 * the MACs differ. */
int core_mac_ok(const uint8_t key[CORE_KEY_LEN], const void *msg, size_t len,
                const uint8_t mac[CORE_MAC_LEN]);
/* 1 when the n bytes at a and b are equal, in time independent of their contents. */
int core_mem_eq(const void *a, const void *b, size_t n);
/* An ephemeral key agreement (X25519, libsodium crypto_kx): a key pair, then the key both
 * sides get from their own pair and the other's public key (the same at both: lo is the
 * side whose public key sorts first, which both can tell). 0, or CORE_EPROTO for a public
 * key that gives no secret (a low-order point). */
#define CORE_KX_PUBLIC 32
#define CORE_KX_SECRET 32
void core_kx_keypair(uint8_t pk[CORE_KX_PUBLIC], uint8_t sk[CORE_KX_SECRET]);
int core_kx_shared(const uint8_t pk[CORE_KX_PUBLIC], const uint8_t sk[CORE_KX_SECRET],
                   const uint8_t their_pk[CORE_KX_PUBLIC], uint8_t key[CORE_KEY_LEN]);
/* Writes 2*n lowercase hex digits and a NUL into out. */
void core_hex(const void *bytes, size_t n, char *out);

#endif
