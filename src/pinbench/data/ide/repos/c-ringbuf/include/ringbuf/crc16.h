#ifndef RINGBUF_CRC16_H
#define RINGBUF_CRC16_H

#include <stddef.h>
#include <stdint.h>

#include "ringbuf/ringbuf.h"

#ifdef __cplusplus
extern "C" {
#endif

/** CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR. */
#define CRC16_POLY 0x1021u
#define CRC16_INIT 0xFFFFu

/**
 * Continue a CRC over more bytes (table-driven).
 *
 * @param crc the CRC so far (CRC16_INIT to start)
 * @param data the bytes
 * @param len how many bytes
 * @return the updated CRC
 */
uint16_t crc16_update(uint16_t crc, const uint8_t *data, size_t len);

/**
 * The CRC of a block of bytes; "123456789" gives 0x29B1.
 *
 * @param data the bytes (may be NULL when `len` is 0)
 * @param len how many bytes
 * @return the CRC
 */
uint16_t crc16(const uint8_t *data, size_t len);

/**
 * The same CRC as crc16_update, computed a bit at a time (the reference the table is checked
 * against).
 *
 * @param crc the CRC so far (CRC16_INIT to start)
 * @param data the bytes
 * @param len how many bytes
 * @return the updated CRC
 */
uint16_t crc16_bitwise(uint16_t crc, const uint8_t *data, size_t len);

/**
 * Check a block whose last two bytes are its CRC, high byte first.
 *
 * @param data the block, CRC included
 * @param len its length, CRC included
 * @return 1 when the CRC matches, 0 when it does not or the block is shorter than 2 bytes
 */
int crc16_verify(const uint8_t *data, size_t len);

/**
 * The CRC of bytes stored in a ring buffer, without copying or removing them.
 *
 * @param rb the buffer
 * @param offset how many stored bytes to skip first
 * @param len how many bytes to include
 * @param out where the CRC goes
 * @return RB_OK, RB_EINVAL on NULL, RB_EEMPTY when fewer than `offset + len` bytes are stored
 */
int crc16_ringbuf(const ringbuf_t *rb, size_t offset, size_t len, uint16_t *out);

#ifdef __cplusplus
}
#endif

#endif /* RINGBUF_CRC16_H */
