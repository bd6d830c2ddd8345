#include "ringbuf/frame.h"

#include <string.h>

#include "ringbuf/crc16.h"

/* Bytes a frame adds around its payload. */
#define FRAME_OVERHEAD FRAME_HEADER_SIZE + FRAME_TRAILER_SIZE

static void put_u16(uint8_t *out, uint16_t value) {
    out[0] = (uint8_t)(value >> 8);
    out[1] = (uint8_t)(value & 0xFFu);
}

static uint16_t get_u16(const uint8_t *in) {
    return (uint16_t)((in[0] << 8) | in[1]);
}

/**
 * Drop stored bytes up to the next sync byte (all of them when there is none), so that the
 * buffer starts where a frame may start.
 *
 * @param rb the buffer
 * @return the number of bytes dropped
 */
static size_t skip_to_sync(ringbuf_t *rb) {
    long at = rb_find(rb, (uint8_t)FRAME_SYNC);
    if (at < 0) {
        return rb_discard(rb, rb_size(rb));
    }
    if (at > 0) {
        return rb_discard(rb, (size_t)at);
    }
    return 0;
}

size_t frame_encoded_size(size_t payload_len) {
    return payload_len + FRAME_OVERHEAD;
}

/**
 * Write a whole frame into a flat buffer: the sync byte, the payload length (big-endian),
 * the payload, and the CRC-16 of length and payload (big-endian).
 *
 * @param payload the payload (may be NULL when `len` is 0)
 * @param len its length, at most FRAME_MAX_PAYLOAD
 * @param out where the frame goes
 * @param out_cap the size of `out`
 * @param out_len where the frame's length goes
 * @return RB_OK, RB_EINVAL when a pointer is NULL, RB_ETOOBIG for a payload over
 *         FRAME_MAX_PAYLOAD, RB_EFULL when `out` cannot hold the frame
 */
int frame_encode(const uint8_t *payload, size_t len, uint8_t *out, size_t out_cap,
                 size_t *out_len) {
    size_t total = frame_encoded_size(len);
    if ((payload == NULL && len > 0) || out == NULL || out_len == NULL) {
        return RB_EINVAL;
    }
    if (len > FRAME_MAX_PAYLOAD) {
        return RB_ETOOBIG;
    }
    if (total > out_cap) {
        return RB_EFULL;
    }
    out[0] = (uint8_t)FRAME_SYNC;
    put_u16(out + 1, (uint16_t)len);
    if (len > 0) {
        memcpy(out + FRAME_HEADER_SIZE, payload, len);
    }
    put_u16(out + FRAME_HEADER_SIZE + len, crc16(out + 1, 2 + len));
    *out_len = total;
    return RB_OK;
}

/**
 * Check and unpack the frame at the start of a flat buffer: the sync byte, a length within
 * FRAME_MAX_PAYLOAD, enough bytes for the whole frame, and the CRC over length and payload.
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
                 size_t *payload_len) {
    if (buf == NULL || payload_len == NULL || (payload == NULL && cap > 0)) {
        return RB_EINVAL;
    }
    if (len < FRAME_OVERHEAD) {
        return RB_EEMPTY;
    }
    size_t body = get_u16(buf + 1);
    if (buf[0] != FRAME_SYNC || body > FRAME_MAX_PAYLOAD) {
        return RB_EINVAL;
    }
    if (len < frame_encoded_size(body)) {
        return RB_EEMPTY;
    }
    if (!crc16_verify(buf + 1, 2 + body + FRAME_TRAILER_SIZE)) {
        return RB_ECRC;
    }
    if (body > cap) {
        return RB_ETOOBIG;
    }
    if (body > 0) {
        memcpy(payload, buf + FRAME_HEADER_SIZE, body);
    }
    *payload_len = body;
    return RB_OK;
}

int frame_send(ringbuf_t *rb, const uint8_t *payload, size_t len) {
    uint8_t header[FRAME_HEADER_SIZE];
    uint8_t trailer[FRAME_TRAILER_SIZE];
    int status;
    if (rb == NULL || (payload == NULL && len > 0)) {
        return RB_EINVAL;
    }
    if (len > FRAME_MAX_PAYLOAD) {
        return RB_ETOOBIG;
    }
    if (frame_encoded_size(len) > rb_space(rb)) {
        return RB_EFULL;
    }
    header[0] = (uint8_t)FRAME_SYNC;
    put_u16(header + 1, (uint16_t)len);
    uint16_t crc = crc16_update((uint16_t)CRC16_INIT, header + 1, 2);
    put_u16(trailer, crc16_update(crc, payload, len));
    rb_write(rb, header, sizeof header);
    status = rb_write(rb, payload, len);
    status = rb_write(rb, trailer, sizeof trailer);
    return status;
}

/**
 * Deliver the oldest complete, intact frame. Bytes before a sync byte are skipped; a sync
 * byte followed by an impossible length is skipped as noise; a frame that fails its CRC loses
 * its sync byte (so the next call looks for the following frame) and is reported.
 *
 * @param rb the buffer
 * @param payload where the payload goes
 * @param cap the size of `payload`
 * @param payload_len where the payload's length goes
 * @param stats counters to update (may be NULL)
 * @return RB_OK; RB_EEMPTY when no complete frame is stored yet; RB_ECRC when a frame was
 *         dropped for its checksum; RB_ETOOBIG when a frame was dropped because `payload` is
 *         too small; RB_EINVAL on NULL
 */
int frame_receive(ringbuf_t *rb, uint8_t *payload, size_t cap, size_t *payload_len,
                  frame_stats_t *stats) {
    frame_stats_t ignored = {0, 0, 0};
    uint8_t header[FRAME_HEADER_SIZE];
    uint8_t trailer[FRAME_TRAILER_SIZE];
    size_t body;
    if (rb == NULL || payload_len == NULL || (payload == NULL && cap > 0)) {
        return RB_EINVAL;
    }
    if (stats == NULL) {
        stats = &ignored;
    }
    for (;;) {
        stats->skipped += skip_to_sync(rb);
        if (rb_peek(rb, 0, header, sizeof header) != RB_OK) {
            return RB_EEMPTY;
        }
        body = get_u16(header + 1);
        if (body <= FRAME_MAX_PAYLOAD) {
            break;
        }
        rb_discard(rb, 1);
        stats->skipped++;
    }
    if (rb_size(rb) < frame_encoded_size(body)) {
        return RB_EEMPTY;
    }
    uint16_t expected = 0;
    crc16_ringbuf(rb, 1, 2 + body, &expected);
    rb_peek(rb, FRAME_HEADER_SIZE + body, trailer, sizeof trailer);
    if (get_u16(trailer) != expected) {
        rb_discard(rb, 1);
        stats->crc_errors++;
        return RB_ECRC;
    }
    if (body > cap) {
        rb_discard(rb, frame_encoded_size(body));
        return RB_ETOOBIG;
    }
    rb_discard(rb, FRAME_HEADER_SIZE);
    rb_read(rb, payload, body);
    rb_discard(rb, FRAME_TRAILER_SIZE);
    *payload_len = body;
    stats->frames++;
    return RB_OK;
}
