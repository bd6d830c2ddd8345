#ifndef RINGBUF_RINGBUF_H
#define RINGBUF_RINGBUF_H

#include <stddef.h>
#include <stdint.h>

#include "ringbuf/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A fixed-capacity FIFO of bytes over caller-provided (or rb_create-allocated) storage.
 * Bytes are written at `head` and read at `tail`; both wrap around at `capacity`.
 */
typedef struct ringbuf {
    uint8_t *data;    /**< the storage, `capacity` bytes */
    size_t capacity;  /**< how many bytes the buffer holds at most */
    size_t head;      /**< index of the next byte written */
    size_t tail;      /**< index of the next byte read */
    size_t count;     /**< bytes currently stored */
    int owns_data;    /**< whether rb_destroy frees `data` */
} ringbuf_t;

/**
 * Set up a ring buffer over storage the caller owns; the buffer starts empty.
 *
 * @param rb the buffer to initialize
 * @param storage at least `capacity` bytes, kept alive as long as the buffer is used
 * @param capacity the number of bytes the buffer can hold (at least 1)
 * @return RB_OK, or RB_EINVAL when an argument is NULL or the capacity is 0
 */
int rb_init(ringbuf_t *rb, uint8_t *storage, size_t capacity);

/**
 * Allocate a ring buffer and its storage on the heap.
 *
 * @param capacity the number of bytes the buffer can hold (at least 1)
 * @return the new, empty buffer, or NULL when the capacity is 0 or memory runs out
 */
ringbuf_t *rb_create(size_t capacity);

/**
 * Free a buffer made by rb_create (its storage included); NULL is ignored.
 *
 * @param rb the buffer to free
 */
void rb_destroy(ringbuf_t *rb);

/**
 * Drop every stored byte; the storage is kept.
 *
 * @param rb the buffer to empty
 */
void rb_reset(ringbuf_t *rb);

/**
 * The number of bytes stored.
 *
 * @param rb the buffer
 * @return how many bytes can be read
 */
size_t rb_size(const ringbuf_t *rb);

/**
 * The number of bytes that can still be written.
 *
 * @param rb the buffer
 * @return capacity minus size
 */
size_t rb_space(const ringbuf_t *rb);

/**
 * How full the buffer is.
 *
 * @param rb the buffer
 * @return a ratio between 0.0 (empty) and 1.0 (full)
 */
double rb_fill_ratio(const ringbuf_t *rb);

/**
 * How full the buffer is, in whole percent (rounded to the nearest).
 *
 * @param rb the buffer
 * @return 0 to 100
 */
unsigned rb_fill_percent(const ringbuf_t *rb);

/**
 * Append one byte.
 *
 * @param rb the buffer
 * @param byte the byte to store
 * @return RB_OK, or RB_EFULL when there is no room
 */
int rb_push(ringbuf_t *rb, uint8_t byte);

/**
 * Remove the oldest byte.
 *
 * @param rb the buffer
 * @param out where the byte goes (may be NULL to drop it)
 * @return RB_OK, or RB_EEMPTY when the buffer is empty
 */
int rb_pop(ringbuf_t *rb, uint8_t *out);

/**
 * Append `len` bytes, all or nothing.
 *
 * @param rb the buffer
 * @param src the bytes to append
 * @param len how many bytes
 * @return RB_OK, RB_EFULL when they do not all fit (nothing is written), RB_EINVAL on NULL
 */
int rb_write(ringbuf_t *rb, const uint8_t *src, size_t len);

/**
 * Remove up to `len` of the oldest bytes.
 *
 * @param rb the buffer
 * @param dst where the bytes go (may be NULL to drop them)
 * @param len the most bytes to read
 * @return the number of bytes read (0 when empty)
 */
size_t rb_read(ringbuf_t *rb, uint8_t *dst, size_t len);

/**
 * Copy bytes without removing them, starting `offset` bytes after the oldest.
 *
 * @param rb the buffer
 * @param offset how many stored bytes to skip
 * @param dst where the copies go
 * @param len how many bytes to copy
 * @return RB_OK, or RB_EEMPTY when fewer than `offset + len` bytes are stored
 */
int rb_peek(const ringbuf_t *rb, size_t offset, uint8_t *dst, size_t len);

/**
 * Drop up to `len` of the oldest bytes.
 *
 * @param rb the buffer
 * @param len the most bytes to drop
 * @return the number of bytes dropped
 */
size_t rb_discard(ringbuf_t *rb, size_t len);

/**
 * Find the first stored byte with a given value.
 *
 * @param rb the buffer
 * @param byte the value to look for
 * @return its offset from the oldest byte, or -1 when it is not stored
 */
long rb_find(const ringbuf_t *rb, uint8_t byte);

#ifdef __cplusplus
}
#endif

#endif /* RINGBUF_RINGBUF_H */
