#ifndef RINGBUF_KVCONF_H
#define RINGBUF_KVCONF_H

#include <stddef.h>

#include "ringbuf/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KV_MAX_ENTRIES 16
#define KV_KEY_MAX 32
#define KV_VALUE_MAX 64

/** One `key = value` setting; both NUL-terminated. */
typedef struct kv_entry {
    char key[KV_KEY_MAX];
    char value[KV_VALUE_MAX];
} kv_entry_t;

/**
 * A small configuration: `key = value` lines, `#` or `;` comment lines, blank lines.
 * Keys are letters, digits, `_`, `.` and `-`; a later line with the same key wins.
 */
typedef struct kvconf {
    kv_entry_t entries[KV_MAX_ENTRIES];
    size_t count;    /**< entries in use */
    int error_line;  /**< the 1-based line kv_parse stopped at, 0 when it succeeded */
} kvconf_t;

/**
 * Empty a configuration.
 *
 * @param conf the configuration
 */
void kv_init(kvconf_t *conf);

/**
 * Read `key = value` lines into a configuration (added to what it holds).
 *
 * @param conf the configuration
 * @param text the lines, separated by `\n` (a `\r` before it is ignored)
 * @return RB_OK; RB_ESYNTAX for a line without `=` or with a bad key, RB_ETOOBIG for a key or
 *         value too long, RB_EFULL when the table is full (`error_line` says where), RB_EINVAL
 */
int kv_parse(kvconf_t *conf, const char *text);

/**
 * Add a setting, or replace the value of an existing key.
 *
 * @param conf the configuration
 * @param key the key
 * @param value the value
 * @return RB_OK, RB_EINVAL for NULL or a bad key, RB_ETOOBIG when the value has
 *         KV_VALUE_MAX characters or more, RB_EFULL when the table is full
 */
int kv_set(kvconf_t *conf, const char *key, const char *value);

/**
 * Look a key up.
 *
 * @param conf the configuration
 * @param key the key
 * @return its value, or NULL when it is not set
 */
const char *kv_get(const kvconf_t *conf, const char *key);

/**
 * Read a setting as an integer (decimal, or hexadecimal with `0x`).
 *
 * @param conf the configuration
 * @param key the key
 * @param out where the number goes
 * @return RB_OK, RB_ENOTFOUND, or RB_EINVAL when the value is not a number that fits a long
 */
int kv_get_long(const kvconf_t *conf, const char *key, long *out);

/**
 * Read a setting as a flag: true, yes, on, 1 or false, no, off, 0 (any case).
 *
 * @param conf the configuration
 * @param key the key
 * @param out where 1 or 0 goes
 * @return RB_OK, RB_ENOTFOUND, or RB_EINVAL for any other value
 */
int kv_get_bool(const kvconf_t *conf, const char *key, int *out);

#ifdef __cplusplus
}
#endif

#endif /* RINGBUF_KVCONF_H */
