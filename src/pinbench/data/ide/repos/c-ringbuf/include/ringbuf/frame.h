#ifndef RINGBUF_FRAME_H
#define RINGBUF_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "ringbuf/ringbuf.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A frame on the wire:
 *
 *   0x7E | length (2 bytes, big-endian) | payload (length bytes) | CRC-16 (2 bytes, big-endian)
 *
 * The CRC (crc16.h) covers the length and the payload. A reader that loses its place skips
 * to the next 0x7E.
 */
#define FRAME_SYNC 0x7Eu
#define FRAME_HEADER_SIZE 3u
#define FRAME_TRAILER_SIZE 2u
#define FRAME_MAX_PAYLOAD 1024u

/** What a receiver has seen so far. */
typedef struct frame_stats {
    unsigned long frames;      /**< frames delivered */
    unsigned long crc_errors;  /**< frames dropped for a bad checksum */
    unsigned long skipped;     /**< bytes skipped while looking for a frame start */
} frame_stats_t;

/**
 * The number of bytes a payload takes once framed.
 *
 * @param payload_len the payload's length
 * @return header + payload + trailer
 */
size_t frame_encoded_size(size_t payload_len);

/**
 * Frame a payload into a flat buffer.
 *
 * @param payload the payload (may be NULL when `len` is 0)
 * @param len its length, at most FRAME_MAX_PAYLOAD
 * @param out where the frame goes
 * @param out_cap the size of `out`
 * @param out_len where the frame's length goes
 * @return RB_OK, RB_EINVAL on NULL, RB_ETOOBIG for a long payload, RB_EFULL when `out` is short
 */
int frame_encode(const uint8_t *payload, size_t len, uint8_t *out, size_t out_cap,
                 size_t *out_len);

/**
 * Read one frame from the start of a flat buffer.
 *
 * @param buf the bytes, a frame first
 * @param len how many bytes
 * @param payload where the payload goes
 * @param cap the size of `payload`
 * @param payload_len where the payload's length goes
 * @return RB_OK, RB_EINVAL when `buf` does not start with a frame, RB_EEMPTY when it is cut
 *         short, RB_ECRC on a bad checksum, RB_ETOOBIG when `payload` is too small
 */
int frame_decode(const uint8_t *buf, size_t len, uint8_t *payload, size_t cap,
                 size_t *payload_len);

/**
 * Frame a payload into a ring buffer, all or nothing.
 *
 * @param rb the buffer
 * @param payload the payload (may be NULL when `len` is 0)
 * @param len its length, at most FRAME_MAX_PAYLOAD
 * @return RB_OK, RB_EINVAL, RB_ETOOBIG, or RB_EFULL when the whole frame does not fit
 */
int frame_send(ringbuf_t *rb, const uint8_t *payload, size_t len);

/**
 * Take the next complete frame out of a ring buffer, skipping garbage before it.
 *
 * @param rb the buffer
 * @param payload where the payload goes
 * @param cap the size of `payload`
 * @param payload_len where the payload's length goes
 * @param stats counters to update (may be NULL)
 * @return RB_OK; RB_EEMPTY when no complete frame is stored yet (call again after more
 *         bytes arrive); RB_ECRC when a frame was dropped for its checksum; RB_ETOOBIG when
 *         the frame was dropped because `payload` is too small; RB_EINVAL on NULL
 */
int frame_receive(ringbuf_t *rb, uint8_t *payload, size_t cap, size_t *payload_len,
                  frame_stats_t *stats);

#ifdef __cplusplus
}
#endif

#endif /* RINGBUF_FRAME_H */
