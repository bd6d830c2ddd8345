#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "ringbuf/crc16.h"
#include "ringbuf/frame.h"
#include "ringbuf/ringbuf.h"

namespace {
const uint8_t kHello[] = {'h', 'e', 'l', 'l', 'o'};
}

TEST(Frame, EncodedSizeAddsHeaderAndTrailer) {
    EXPECT_EQ(frame_encoded_size(0), 5u);
    EXPECT_EQ(frame_encoded_size(10), 15u);
}

TEST(Frame, EncodeWritesSyncLengthPayloadAndCrc) {
    uint8_t out[16];
    size_t len = 0;
    ASSERT_EQ(frame_encode(kHello, sizeof kHello, out, sizeof out, &len), RB_OK);
    ASSERT_EQ(len, 10u);
    EXPECT_EQ(out[0], 0x7E);
    EXPECT_EQ(out[1], 0x00);
    EXPECT_EQ(out[2], 0x05);
    EXPECT_EQ(std::memcmp(out + 3, kHello, sizeof kHello), 0);
    const uint16_t crc = crc16(out + 1, 7);
    EXPECT_EQ(out[8], crc >> 8);
    EXPECT_EQ(out[9], crc & 0xFF);
}

TEST(Frame, EncodeRejectsSmallOutputsAndLargePayloads) {
    uint8_t out[8];
    size_t len = 0;
    EXPECT_EQ(frame_encode(kHello, sizeof kHello, out, sizeof out, &len), RB_EFULL);
    EXPECT_EQ(frame_encode(nullptr, 3, out, sizeof out, &len), RB_EINVAL);
    std::vector<uint8_t> big(FRAME_MAX_PAYLOAD + 1, 0x55);
    std::vector<uint8_t> room(big.size() + 8);
    EXPECT_EQ(frame_encode(big.data(), big.size(), room.data(), room.size(), &len), RB_ETOOBIG);
}

TEST(Frame, DecodeReadsBackAnEncodedFrame) {
    uint8_t wire[16];
    size_t wire_len = 0;
    ASSERT_EQ(frame_encode(kHello, sizeof kHello, wire, sizeof wire, &wire_len), RB_OK);
    uint8_t payload[8];
    size_t payload_len = 0;
    ASSERT_EQ(frame_decode(wire, wire_len, payload, sizeof payload, &payload_len), RB_OK);
    ASSERT_EQ(payload_len, sizeof kHello);
    EXPECT_EQ(std::memcmp(payload, kHello, sizeof kHello), 0);
    EXPECT_EQ(frame_decode(wire, wire_len, payload, 2, &payload_len), RB_ETOOBIG);
}

TEST(Frame, DecodeRejectsDamagedAndShortFrames) {
    uint8_t wire[16];
    size_t wire_len = 0;
    ASSERT_EQ(frame_encode(kHello, sizeof kHello, wire, sizeof wire, &wire_len), RB_OK);
    uint8_t payload[8];
    size_t payload_len = 0;
    EXPECT_EQ(frame_decode(wire, wire_len - 1, payload, sizeof payload, &payload_len), RB_EEMPTY);
    EXPECT_EQ(frame_decode(wire, 3, payload, sizeof payload, &payload_len), RB_EEMPTY);
    wire[4] ^= 0x20;
    EXPECT_EQ(frame_decode(wire, wire_len, payload, sizeof payload, &payload_len), RB_ECRC);
    wire[0] = 0x00;
    EXPECT_EQ(frame_decode(wire, wire_len, payload, sizeof payload, &payload_len), RB_EINVAL);
}

TEST(Frame, SendThenReceiveRoundTrips) {
    ringbuf_t rb;
    uint8_t storage[64];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    ASSERT_EQ(frame_send(&rb, kHello, sizeof kHello), RB_OK);
    ASSERT_EQ(frame_send(&rb, nullptr, 0), RB_OK);
    EXPECT_EQ(rb_size(&rb), 15u);
    uint8_t payload[16];
    size_t len = 0;
    frame_stats_t stats = {0, 0, 0};
    ASSERT_EQ(frame_receive(&rb, payload, sizeof payload, &len, &stats), RB_OK);
    ASSERT_EQ(len, sizeof kHello);
    EXPECT_EQ(std::memcmp(payload, kHello, sizeof kHello), 0);
    ASSERT_EQ(frame_receive(&rb, payload, sizeof payload, &len, &stats), RB_OK);
    EXPECT_EQ(len, 0u);
    EXPECT_EQ(stats.frames, 2u);
    EXPECT_EQ(frame_receive(&rb, payload, sizeof payload, &len, &stats), RB_EEMPTY);
}

TEST(Frame, SendFailsWithoutRoomForTheWholeFrame) {
    ringbuf_t rb;
    uint8_t storage[8];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    EXPECT_EQ(frame_send(&rb, kHello, sizeof kHello), RB_EFULL);
    EXPECT_EQ(rb_size(&rb), 0u);
    EXPECT_EQ(frame_send(nullptr, kHello, sizeof kHello), RB_EINVAL);
}

TEST(Frame, ReceiveWaitsForTheRestOfAFrame) {
    uint8_t wire[16];
    size_t wire_len = 0;
    ASSERT_EQ(frame_encode(kHello, sizeof kHello, wire, sizeof wire, &wire_len), RB_OK);
    ringbuf_t rb;
    uint8_t storage[32];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    ASSERT_EQ(rb_write(&rb, wire, 6), RB_OK);
    uint8_t payload[16];
    size_t len = 0;
    EXPECT_EQ(frame_receive(&rb, payload, sizeof payload, &len, nullptr), RB_EEMPTY);
    EXPECT_EQ(rb_size(&rb), 6u);  // kept for the next call
    ASSERT_EQ(rb_write(&rb, wire + 6, wire_len - 6), RB_OK);
    ASSERT_EQ(frame_receive(&rb, payload, sizeof payload, &len, nullptr), RB_OK);
    EXPECT_EQ(len, sizeof kHello);
}

TEST(Frame, ReceiveSkipsNoiseBeforeAFrame) {
    ringbuf_t rb;
    uint8_t storage[64];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    const uint8_t noise[] = {0x01, 0x02, 0x7E, 0xFF, 0xFF};  // a sync with an impossible length
    ASSERT_EQ(rb_write(&rb, noise, sizeof noise), RB_OK);
    ASSERT_EQ(frame_send(&rb, kHello, sizeof kHello), RB_OK);
    uint8_t payload[16];
    size_t len = 0;
    frame_stats_t stats = {0, 0, 0};
    ASSERT_EQ(frame_receive(&rb, payload, sizeof payload, &len, &stats), RB_OK);
    EXPECT_EQ(len, sizeof kHello);
    EXPECT_EQ(stats.skipped, 5u);
    EXPECT_EQ(rb_size(&rb), 0u);
}

TEST(Frame, ReceiveDropsACorruptFrameAndRecovers) {
    uint8_t wire[16];
    size_t wire_len = 0;
    ASSERT_EQ(frame_encode(kHello, sizeof kHello, wire, sizeof wire, &wire_len), RB_OK);
    wire[5] ^= 0x01;
    ringbuf_t rb;
    uint8_t storage[64];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    ASSERT_EQ(rb_write(&rb, wire, wire_len), RB_OK);
    ASSERT_EQ(frame_send(&rb, kHello, 2), RB_OK);
    uint8_t payload[16];
    size_t len = 0;
    frame_stats_t stats = {0, 0, 0};
    EXPECT_EQ(frame_receive(&rb, payload, sizeof payload, &len, &stats), RB_ECRC);
    EXPECT_EQ(stats.crc_errors, 1u);
    ASSERT_EQ(frame_receive(&rb, payload, sizeof payload, &len, &stats), RB_OK);
    EXPECT_EQ(len, 2u);
    EXPECT_EQ(payload[0], 'h');
    EXPECT_EQ(stats.skipped, wire_len - 1);
}

TEST(Frame, ReceiveDropsAFrameTooBigForTheCaller) {
    ringbuf_t rb;
    uint8_t storage[64];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    ASSERT_EQ(frame_send(&rb, kHello, sizeof kHello), RB_OK);
    uint8_t payload[2];
    size_t len = 0;
    EXPECT_EQ(frame_receive(&rb, payload, sizeof payload, &len, nullptr), RB_ETOOBIG);
    EXPECT_EQ(rb_size(&rb), 0u);
}
