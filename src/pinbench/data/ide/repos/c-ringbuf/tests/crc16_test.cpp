#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "ringbuf/crc16.h"
#include "ringbuf/ringbuf.h"

namespace {
const uint8_t kCheck[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
}

TEST(Crc16, MatchesTheCatalogueCheckValue) {
    EXPECT_EQ(crc16(kCheck, sizeof kCheck), 0x29B1);
}

TEST(Crc16, EmptyInputGivesTheInitialValue) {
    EXPECT_EQ(crc16(nullptr, 0), 0xFFFF);
    EXPECT_EQ(crc16(kCheck, 0), 0xFFFF);
}

TEST(Crc16, UpdatingInPiecesMatchesOneCall) {
    uint16_t crc = crc16_update(CRC16_INIT, kCheck, 4);
    crc = crc16_update(crc, kCheck + 4, sizeof kCheck - 4);
    EXPECT_EQ(crc, crc16(kCheck, sizeof kCheck));
}

TEST(Crc16, TableAgreesWithTheBitwiseReference) {
    for (int value = 0; value < 256; value++) {
        const uint8_t byte = static_cast<uint8_t>(value);
        EXPECT_EQ(crc16_update(CRC16_INIT, &byte, 1), crc16_bitwise(CRC16_INIT, &byte, 1))
            << value;
    }
    EXPECT_EQ(crc16_bitwise(CRC16_INIT, kCheck, sizeof kCheck), 0x29B1);
}

TEST(Crc16, VerifyChecksTheTrailingCrc) {
    uint8_t block[sizeof kCheck + 2];
    std::memcpy(block, kCheck, sizeof kCheck);
    block[sizeof kCheck] = 0x29;
    block[sizeof kCheck + 1] = 0xB1;
    EXPECT_EQ(crc16_verify(block, sizeof block), 1);
    block[0] ^= 0x01;
    EXPECT_EQ(crc16_verify(block, sizeof block), 0);
    EXPECT_EQ(crc16_verify(block, 1), 0);
    EXPECT_EQ(crc16_verify(nullptr, 4), 0);
}

TEST(Crc16, RingbufCrcMatchesTheFlatCrcAcrossTheWrap) {
    ringbuf_t rb;
    uint8_t storage[10];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    const uint8_t filler[] = {0, 0, 0, 0, 0, 0};
    ASSERT_EQ(rb_write(&rb, filler, sizeof filler), RB_OK);
    ASSERT_EQ(rb_discard(&rb, 5), 5u);
    ASSERT_EQ(rb_write(&rb, kCheck, sizeof kCheck), RB_OK);  // after one filler byte, wrapped
    uint16_t crc = 0;
    ASSERT_EQ(crc16_ringbuf(&rb, 1, sizeof kCheck, &crc), RB_OK);
    EXPECT_EQ(crc, 0x29B1);
    ASSERT_EQ(crc16_ringbuf(&rb, 1, 4, &crc), RB_OK);
    EXPECT_EQ(crc, crc16(kCheck, 4));
}

TEST(Crc16, RingbufCrcRejectsARangeBeyondTheStoredBytes) {
    ringbuf_t rb;
    uint8_t storage[4];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    ASSERT_EQ(rb_push(&rb, 1), RB_OK);
    uint16_t crc = 0;
    EXPECT_EQ(crc16_ringbuf(&rb, 0, 2, &crc), RB_EEMPTY);
    EXPECT_EQ(crc16_ringbuf(&rb, 2, 0, &crc), RB_EEMPTY);
    EXPECT_EQ(crc16_ringbuf(&rb, 0, 1, nullptr), RB_EINVAL);
    EXPECT_EQ(crc16_ringbuf(nullptr, 0, 1, &crc), RB_EINVAL);
}
