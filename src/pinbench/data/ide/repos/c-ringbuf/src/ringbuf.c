#include "ringbuf/ringbuf.h"

#include <stdlib.h>
#include <string.h>

/* Where a position lands after moving `n` bytes forward in a buffer of `capacity` bytes. */
static size_t wrap(size_t position, size_t n, size_t capacity) {
    size_t next = position + n;
    return next >= capacity ? next - capacity : next;
}

/**
 * Copy bytes into the storage at `head`, in at most two pieces when the copy wraps past the
 * end; the caller has checked that they fit.
 *
 * @param rb the buffer written to
 * @param src the bytes to store
 * @param len how many bytes to store
 */
static void copy_in(ringbuf_t *rb, const uint8_t *src, size_t len) {
    size_t first = rb->capacity - rb->head;
    if (first > len) {
        first = len;
    }
    memcpy(rb->data + rb->head, src, first);
    memcpy(rb->data, src + first, len - first);
    rb->head = wrap(rb->head, len, rb->capacity);
    rb->count += len;
}

/**
 * Copy stored bytes out, starting `offset` bytes after `tail`, in at most two pieces; the
 * buffer is not changed.
 *
 * @param rb the buffer read from
 * @param offset how many stored bytes to skip
 * @param dst where the copies go
 * @param len how many bytes to copy (at most the stored count minus `offset`)
 */
static void copy_out(const ringbuf_t *rb, size_t offset, uint8_t *dst, size_t len) {
    size_t start = wrap(rb->tail, offset, rb->capacity);
    size_t first = rb->capacity - start;
    if (first > len) {
        first = len;
    }
    memcpy(dst, rb->data + start, first);
    memcpy(dst + first, rb->data, len - first);
}

const char *rb_strerror(int status) {
    switch (status) {
    case RB_OK:
        return "ok";
    case RB_EFULL:
        return "buffer full";
    case RB_EEMPTY:
        return "buffer empty";
    case RB_EINVAL:
        return "invalid argument";
    case RB_ENOMEM:
        return "out of memory";
    case RB_ECRC:
        return "checksum mismatch";
    case RB_ETOOBIG:
        return "too big";
    case RB_ESYNTAX:
        return "syntax error";
    case RB_ENOTFOUND:
        return "not found";
    default:
        return "unknown status";
    }
}

int rb_init(ringbuf_t *rb, uint8_t *storage, size_t capacity) {
    if (rb == NULL || storage == NULL || capacity == 0) {
        return RB_EINVAL;
    }
    rb->data = storage;
    rb->capacity = capacity;
    rb->owns_data = 0;
    rb_reset(rb);
    return RB_OK;
}

/**
 * Allocate a ring buffer and its storage in one call; release both with rb_destroy.
 *
 * @param capacity the number of bytes the buffer can hold (at least 1)
 * @return the new, empty buffer, or NULL when the capacity is 0 or an allocation fails
 */
ringbuf_t *rb_create(size_t capacity) {
    if (capacity == 0) {
        return NULL;
    }
    ringbuf_t *rb = malloc(sizeof *rb);
    if (rb == NULL) {
        return NULL;
    }
    uint8_t *storage = malloc(capacity);
    if (storage == NULL) {
        return NULL;
    }
    rb_init(rb, storage, capacity);
    rb->owns_data = 1;
    return rb;
}

void rb_destroy(ringbuf_t *rb) {
    if (rb == NULL) {
        return;
    }
    if (rb->owns_data) {
        free(rb->data);
    }
    free(rb);
}

void rb_reset(ringbuf_t *rb) {
    rb->head = 0;
    rb->tail = 0;
    rb->count = 0;
}

size_t rb_size(const ringbuf_t *rb) {
    return rb->count;
}

size_t rb_space(const ringbuf_t *rb) {
    return rb->capacity - rb->count;
}

double rb_fill_ratio(const ringbuf_t *rb) {
    if (rb->capacity == 0) {
        return 0.0;
    }
    return (double)(rb->count / rb->capacity);
}

unsigned rb_fill_percent(const ringbuf_t *rb) {
    if (rb->capacity == 0) {
        return 0;
    }
    double percent = 100.0 * (double)rb->count / (double)rb->capacity;
    return (unsigned)(percent + 0.5);
}

int rb_push(ringbuf_t *rb, uint8_t byte) {
    if (rb->count == rb->capacity) {
        return RB_EFULL;
    }
    rb->data[rb->head] = byte;
    rb->head = wrap(rb->head, 1, rb->capacity);
    rb->count++;
    return RB_OK;
}

/**
 * Take the oldest byte out of the buffer.
 *
 * @param rb the buffer
 * @param out where the byte goes, or NULL to drop it
 * @return RB_OK, or RB_EEMPTY when nothing is stored (`out` is left unchanged)
 */
int rb_pop(ringbuf_t *rb, uint8_t *out) {
    if (rb->count == 0) {
        return RB_EEMPTY;
    }
    if (out != NULL) {
        *out = rb->data[rb->tail];
    }
    rb->tail = wrap(rb->tail, 1, rb->capacity);
    rb->count--;
    return RB_OK;
}

/**
 * Append a block of bytes, all or nothing: when they do not all fit the buffer is left as it
 * was, so a caller can retry after the reader has made room.
 *
 * @param rb the buffer
 * @param src the bytes to append
 * @param len how many bytes (0 is allowed and writes nothing)
 * @return RB_OK, RB_EFULL when fewer than `len` bytes are free, RB_EINVAL when `src` is NULL
 */
int rb_write(ringbuf_t *rb, const uint8_t *src, size_t len) {
    if (src == NULL && len > 0) {
        return RB_EINVAL;
    }
    if (len > rb_space(rb)) {
        return RB_EFULL;
    }
    if (len > 0) {
        copy_in(rb, src, len);
    }
    return RB_OK;
}

/**
 * Remove up to `len` of the oldest bytes, copying them out unless `dst` is NULL.
 *
 * @param rb the buffer
 * @param dst where the bytes go, or NULL to drop them
 * @param len the most bytes to read
 * @return the number of bytes read: `len`, or fewer when fewer are stored
 */
size_t rb_read(ringbuf_t *rb, uint8_t *dst, size_t len) {
    size_t n = len < rb->count ? len : rb->count;
    if (n == 0) {
        return 0;
    }
    if (dst != NULL) {
        copy_out(rb, 0, dst, n);
    }
    rb->tail = wrap(rb->tail, n, rb->capacity);
    rb->count -= n;
    if (rb->count == 0) {
        rb->head = 0;
        rb->tail = 0;
    }
    return n;
}

/**
 * Copy stored bytes out without consuming them, so a parser can look ahead (at a frame
 * header, say) before deciding how much to read.
 *
 * @param rb the buffer
 * @param offset how many of the oldest stored bytes to skip
 * @param dst where the copies go (may be NULL only when `len` is 0)
 * @param len how many bytes to copy
 * @return RB_OK, RB_EINVAL when `dst` is NULL, RB_EEMPTY when fewer than `offset + len`
 *         bytes are stored
 */
int rb_peek(const ringbuf_t *rb, size_t offset, uint8_t *dst, size_t len) {
    if (dst == NULL && len > 0) {
        return RB_EINVAL;
    }
    if (offset > rb->count || len > rb->count - offset) {
        return RB_EEMPTY;
    }
    if (len > 0) {
        copy_out(rb, offset, dst, len);
    }
    return RB_OK;
}

size_t rb_discard(ringbuf_t *rb, size_t len) {
    return rb_read(rb, NULL, len);
}

/**
 * Scan the stored bytes, oldest first, for the first one equal to `byte`.
 *
 * @param rb the buffer
 * @param byte the value to look for
 * @return its offset from the oldest stored byte, or -1 when no stored byte has that value
 */
long rb_find(const ringbuf_t *rb, uint8_t byte) {
    size_t position = rb->tail;
    for (size_t i = 0; i < rb->count; i++) {
        if (rb->data[position] == byte) {
            return (long)i;
        }
        position = wrap(position, 1, rb->capacity);
    }
    return -1;
}
