#include "ringbuf/kvconf.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_space(const char *p, const char *end) {
    while (p < end && isspace((unsigned char)*p)) {
        p++;
    }
    return p;
}

/* The length of `text[0..len)` without its trailing white space. */
static size_t trimmed_length(const char *text, size_t len) {
    while (len > 0 && isspace((unsigned char)text[len - 1])) {
        len--;
    }
    return len;
}

/**
 * Whether a key is usable: 1 to KV_KEY_MAX - 1 characters, each a letter, a digit, `_`,
 * `.` or `-`.
 *
 * @param key the NUL-terminated key
 * @return 1 when it is valid, 0 otherwise
 */
static int valid_key(const char *key) {
    const char *p = key;
    char c;
    if (*p == '\0') {
        return 0;
    }
    while (c = *p++) {
        if (!isalnum((unsigned char)c) && c != '_' && c != '.' && c != '-') {
            return 0;
        }
    }
    return (size_t)(p - key) <= KV_KEY_MAX;
}

static int same_word(const char *a, const char *b) {
    while (*a != '\0' && tolower((unsigned char)*a) == tolower((unsigned char)*b)) {
        a++;
        b++;
    }
    return *a == '\0' && *b == '\0';
}

static long find_index(const kvconf_t *conf, const char *key) {
    for (size_t i = 0; i < conf->count; i++) {
        if (strcmp(conf->entries[i].key, key) == 0) {
            return (long)i;
        }
    }
    return -1;
}

/**
 * Read one line: nothing for a blank or comment line, else `key = value` with the white
 * space around the key and the value trimmed, stored with kv_set.
 *
 * @param conf the configuration
 * @param line the line's first character
 * @param len the line's length, without its `\n`
 * @return RB_OK, RB_ESYNTAX, RB_ETOOBIG or RB_EFULL
 */
static int parse_line(kvconf_t *conf, const char *line, size_t len) {
    char key[KV_KEY_MAX];
    char value[KV_VALUE_MAX];
    const char *end = line + len;
    const char *p = skip_space(line, end);
    if (p == end || *p == '#' || *p == ';') {
        return RB_OK;
    }
    const char *equals = memchr(p, '=', (size_t)(end - p));
    if (equals == NULL) {
        return RB_ESYNTAX;
    }
    size_t key_len = trimmed_length(p, (size_t)(equals - p));
    const char *v = skip_space(equals + 1, end);
    size_t value_len = trimmed_length(v, (size_t)(end - v));
    if (key_len >= sizeof key || value_len >= sizeof value) {
        return RB_ETOOBIG;
    }
    memcpy(key, p, key_len);
    key[key_len] = '\0';
    memcpy(value, v, value_len);
    value[value_len] = '\0';
    if (!valid_key(key)) {
        return RB_ESYNTAX;
    }
    return kv_set(conf, key, value);
}

void kv_init(kvconf_t *conf) {
    memset(conf, 0, sizeof *conf);
}

/**
 * Read configuration text line by line, stopping at the first line that cannot be stored
 * and recording its number in `conf->error_line`.
 *
 * @param conf the configuration the settings are added to
 * @param text the lines, separated by `\n`
 * @return RB_OK, RB_EINVAL when an argument is NULL, else the failing line's status
 *         (RB_ESYNTAX, RB_ETOOBIG or RB_EFULL)
 */
int kv_parse(kvconf_t *conf, const char *text) {
    const char *line = text;
    int number = 0;
    if (conf == NULL || text == NULL) {
        return RB_EINVAL;
    }
    conf->error_line = 0;
    while (*line != '\0') {
        const char *newline = strchr(line, '\n');
        size_t len = newline != NULL ? (size_t)(newline - line) : strlen(line);
        number++;
        int status = parse_line(conf, line, len);
        if (status != RB_OK) {
            conf->error_line = number;
            return status;
        }
        line += len;
        if (*line == '\n') {
            line++;
        }
    }
    return RB_OK;
}

/**
 * Store a setting: replace the value when the key is already set, else take the next free
 * entry.
 *
 * @param conf the configuration
 * @param key the key (letters, digits, `_`, `.`, `-`; shorter than KV_KEY_MAX)
 * @param value the value, shorter than KV_VALUE_MAX
 * @return RB_OK, RB_EINVAL for a NULL argument or a bad key, RB_ETOOBIG for a long value,
 *         RB_EFULL when all KV_MAX_ENTRIES entries are taken
 */
int kv_set(kvconf_t *conf, const char *key, const char *value) {
    if (conf == NULL || key == NULL || value == NULL || !valid_key(key)) {
        return RB_EINVAL;
    }
    size_t value_len = strlen(value);
    if (value_len >= KV_VALUE_MAX) {
        return RB_ETOOBIG;
    }
    long at = find_index(conf, key);
    if (at < 0) {
        if (conf->count == KV_MAX_ENTRIES) {
            return RB_EFULL;
        }
        at = (long)conf->count++;
        memcpy(conf->entries[at].key, key, strlen(key) + 1);
    }
    memcpy(conf->entries[at].value, value, value_len + 1);
    return RB_OK;
}

const char *kv_get(const kvconf_t *conf, const char *key) {
    if (conf == NULL || key == NULL) {
        return NULL;
    }
    long at = find_index(conf, key);
    return at < 0 ? NULL : conf->entries[at].value;
}

/**
 * Parse a setting with strtol (base 0: `0x` hexadecimal, a leading `0` octal), rejecting
 * empty values, trailing characters and numbers out of range.
 *
 * @param conf the configuration
 * @param key the key
 * @param out where the number goes (unchanged on failure)
 * @return RB_OK, RB_ENOTFOUND when the key is not set, RB_EINVAL when the value is not a
 *         number that fits a long
 */
int kv_get_long(const kvconf_t *conf, const char *key, long *out) {
    const char *value = kv_get(conf, key);
    char *end = NULL;
    if (value == NULL) {
        return RB_ENOTFOUND;
    }
    errno = 0;
    long number = strtol(value, &end, 0);
    if (end == value || *end != '\0' || errno == ERANGE) {
        return RB_EINVAL;
    }
    *out = number;
    return RB_OK;
}

/**
 * Read a setting as a flag, ignoring letter case: true, yes, on and 1 give 1; false, no, off
 * and 0 give 0.
 *
 * @param conf the configuration
 * @param key the key
 * @param out where 1 or 0 goes (unchanged on failure)
 * @return RB_OK, RB_ENOTFOUND when the key is not set, RB_EINVAL for any other value
 */
int kv_get_bool(const kvconf_t *conf, const char *key, int *out) {
    const char *value = kv_get(conf, key);
    if (value == NULL) {
        return RB_ENOTFOUND;
    }
    if (same_word(value, "true") || same_word(value, "yes") || same_word(value, "1")) {
        *out = 1;
    } else if (same_word(value, "on")) {
        *out = 1;
    } else if (same_word(value, "false") || same_word(value, "no") || same_word(value, "off") ||
               same_word(value, "0")) {
        *out = 0;
    } else {
        return RB_EINVAL;
    }
    return RB_OK;
}
