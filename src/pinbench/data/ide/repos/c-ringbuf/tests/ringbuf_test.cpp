#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "ringbuf/ringbuf.h"
#include "ringbuf/status.h"

TEST(RingBuf, InitRejectsBadArguments) {
    ringbuf_t rb;
    uint8_t storage[4];
    EXPECT_EQ(rb_init(nullptr, storage, sizeof storage), RB_EINVAL);
    EXPECT_EQ(rb_init(&rb, nullptr, sizeof storage), RB_EINVAL);
    EXPECT_EQ(rb_init(&rb, storage, 0), RB_EINVAL);
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    EXPECT_EQ(rb_size(&rb), 0u);
    EXPECT_EQ(rb_space(&rb), 4u);
}

TEST(RingBuf, PushPopIsFirstInFirstOut) {
    ringbuf_t rb;
    uint8_t storage[3];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    EXPECT_EQ(rb_push(&rb, 'a'), RB_OK);
    EXPECT_EQ(rb_push(&rb, 'b'), RB_OK);
    uint8_t out = 0;
    EXPECT_EQ(rb_pop(&rb, &out), RB_OK);
    EXPECT_EQ(out, 'a');
    EXPECT_EQ(rb_push(&rb, 'c'), RB_OK);
    EXPECT_EQ(rb_push(&rb, 'd'), RB_OK);  // wraps to the start of the storage
    for (char expected : {'b', 'c', 'd'}) {
        EXPECT_EQ(rb_pop(&rb, &out), RB_OK);
        EXPECT_EQ(out, static_cast<uint8_t>(expected));
    }
}

TEST(RingBuf, PushOnFullAndPopOnEmptyFail) {
    ringbuf_t rb;
    uint8_t storage[2];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    uint8_t out = 7;
    EXPECT_EQ(rb_pop(&rb, &out), RB_EEMPTY);
    EXPECT_EQ(out, 7);
    EXPECT_EQ(rb_push(&rb, 1), RB_OK);
    EXPECT_EQ(rb_push(&rb, 2), RB_OK);
    EXPECT_EQ(rb_push(&rb, 3), RB_EFULL);
    EXPECT_EQ(rb_size(&rb), 2u);
    EXPECT_EQ(rb_pop(&rb, nullptr), RB_OK);  // dropped
    EXPECT_EQ(rb_size(&rb), 1u);
}

TEST(RingBuf, WriteIsAllOrNothing) {
    ringbuf_t rb;
    uint8_t storage[5];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    const uint8_t data[] = {1, 2, 3, 4};
    EXPECT_EQ(rb_write(&rb, data, 4), RB_OK);
    EXPECT_EQ(rb_write(&rb, data, 2), RB_EFULL);
    EXPECT_EQ(rb_size(&rb), 4u);
    EXPECT_EQ(rb_write(&rb, nullptr, 1), RB_EINVAL);
    EXPECT_EQ(rb_write(&rb, nullptr, 0), RB_OK);
}

TEST(RingBuf, ReadAndWriteWrapAround) {
    ringbuf_t rb;
    uint8_t storage[8];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    const uint8_t first[] = {1, 2, 3, 4, 5, 6};
    const uint8_t second[] = {7, 8, 9, 10, 11};
    uint8_t out[8] = {};
    ASSERT_EQ(rb_write(&rb, first, sizeof first), RB_OK);
    ASSERT_EQ(rb_read(&rb, out, 4), 4u);
    ASSERT_EQ(rb_write(&rb, second, sizeof second), RB_OK);  // crosses the end
    ASSERT_EQ(rb_size(&rb), 7u);
    ASSERT_EQ(rb_read(&rb, out, sizeof out), 7u);
    const uint8_t expected[] = {5, 6, 7, 8, 9, 10, 11};
    EXPECT_EQ(std::memcmp(out, expected, sizeof expected), 0);
    EXPECT_EQ(rb_read(&rb, out, sizeof out), 0u);
}

TEST(RingBuf, PeekCopiesWithoutConsuming) {
    ringbuf_t rb;
    uint8_t storage[4];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    const uint8_t data[] = {9, 8, 7};
    ASSERT_EQ(rb_write(&rb, data, sizeof data), RB_OK);
    uint8_t out[2] = {};
    EXPECT_EQ(rb_peek(&rb, 1, out, 2), RB_OK);
    EXPECT_EQ(out[0], 8);
    EXPECT_EQ(out[1], 7);
    EXPECT_EQ(rb_size(&rb), 3u);
    EXPECT_EQ(rb_peek(&rb, 2, out, 2), RB_EEMPTY);
    EXPECT_EQ(rb_peek(&rb, 4, out, 0), RB_EEMPTY);
    EXPECT_EQ(rb_peek(&rb, 0, nullptr, 1), RB_EINVAL);
}

TEST(RingBuf, DiscardDropsTheOldestBytes) {
    ringbuf_t rb;
    uint8_t storage[4];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    const uint8_t data[] = {1, 2, 3};
    ASSERT_EQ(rb_write(&rb, data, sizeof data), RB_OK);
    EXPECT_EQ(rb_discard(&rb, 2), 2u);
    uint8_t out = 0;
    EXPECT_EQ(rb_pop(&rb, &out), RB_OK);
    EXPECT_EQ(out, 3);
    EXPECT_EQ(rb_discard(&rb, 5), 0u);
}

TEST(RingBuf, FindReturnsTheOffsetAcrossTheWrap) {
    ringbuf_t rb;
    uint8_t storage[4];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    const uint8_t data[] = {1, 2, 3};
    ASSERT_EQ(rb_write(&rb, data, sizeof data), RB_OK);
    ASSERT_EQ(rb_discard(&rb, 2), 2u);
    const uint8_t more[] = {4, 5, 4};
    ASSERT_EQ(rb_write(&rb, more, sizeof more), RB_OK);  // stored: 3 4 5 4, wrapped
    EXPECT_EQ(rb_find(&rb, 3), 0);
    EXPECT_EQ(rb_find(&rb, 4), 1);
    EXPECT_EQ(rb_find(&rb, 5), 2);
    EXPECT_EQ(rb_find(&rb, 9), -1);
}

TEST(RingBuf, FillRatioOfEmptyAndFullBuffers) {
    ringbuf_t rb;
    uint8_t storage[4];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    EXPECT_DOUBLE_EQ(rb_fill_ratio(&rb), 0.0);
    const uint8_t data[] = {1, 2, 3, 4};
    ASSERT_EQ(rb_write(&rb, data, sizeof data), RB_OK);
    EXPECT_DOUBLE_EQ(rb_fill_ratio(&rb), 1.0);
}

TEST(RingBuf, FillPercentRoundsToTheNearest) {
    ringbuf_t rb;
    uint8_t storage[3];
    ASSERT_EQ(rb_init(&rb, storage, sizeof storage), RB_OK);
    EXPECT_EQ(rb_fill_percent(&rb), 0u);
    ASSERT_EQ(rb_push(&rb, 1), RB_OK);
    EXPECT_EQ(rb_fill_percent(&rb), 33u);
    ASSERT_EQ(rb_push(&rb, 2), RB_OK);
    EXPECT_EQ(rb_fill_percent(&rb), 67u);
    ASSERT_EQ(rb_push(&rb, 3), RB_OK);
    EXPECT_EQ(rb_fill_percent(&rb), 100u);
}

TEST(RingBuf, CreateResetAndDestroy) {
    EXPECT_EQ(rb_create(0), nullptr);
    ringbuf_t *rb = rb_create(16);
    ASSERT_NE(rb, nullptr);
    EXPECT_EQ(rb_space(rb), 16u);
    const uint8_t data[] = {1, 2, 3};
    ASSERT_EQ(rb_write(rb, data, sizeof data), RB_OK);
    EXPECT_EQ(rb_size(rb), 3u);
    rb_reset(rb);
    EXPECT_EQ(rb_size(rb), 0u);
    EXPECT_EQ(rb_space(rb), 16u);
    rb_destroy(rb);
    rb_destroy(nullptr);
}

TEST(Status, StrerrorDescribesEveryCode) {
    EXPECT_STREQ(rb_strerror(RB_OK), "ok");
    EXPECT_STREQ(rb_strerror(RB_EFULL), "buffer full");
    EXPECT_STREQ(rb_strerror(RB_ECRC), "checksum mismatch");
    EXPECT_STREQ(rb_strerror(RB_ENOTFOUND), "not found");
    EXPECT_STREQ(rb_strerror(42), "unknown status");
}
