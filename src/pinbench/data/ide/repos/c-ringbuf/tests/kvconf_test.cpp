#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "ringbuf/kvconf.h"
#include "ringbuf/status.h"

TEST(KvConf, ParsesSettingsCommentsAndBlankLines) {
    kvconf_t conf;
    kv_init(&conf);
    const char *text =
        "# serial link\n"
        "port = /dev/ttyUSB0\n"
        "\n"
        "  baud=115200  \n"
        "; framing\n"
        "buffer.size = 4096";
    ASSERT_EQ(kv_parse(&conf, text), RB_OK);
    EXPECT_EQ(conf.count, 3u);
    EXPECT_EQ(conf.error_line, 0);
    EXPECT_STREQ(kv_get(&conf, "port"), "/dev/ttyUSB0");
    EXPECT_STREQ(kv_get(&conf, "baud"), "115200");
    EXPECT_STREQ(kv_get(&conf, "buffer.size"), "4096");
    EXPECT_EQ(kv_get(&conf, "parity"), nullptr);
}

TEST(KvConf, LaterLinesReplaceEarlierValues) {
    kvconf_t conf;
    kv_init(&conf);
    ASSERT_EQ(kv_parse(&conf, "mode = fast\r\nmode = safe\r\n"), RB_OK);
    EXPECT_EQ(conf.count, 1u);
    EXPECT_STREQ(kv_get(&conf, "mode"), "safe");
}

TEST(KvConf, SyntaxErrorsReportTheirLine) {
    kvconf_t conf;
    kv_init(&conf);
    EXPECT_EQ(kv_parse(&conf, "a = 1\nno equals sign\nb = 2\n"), RB_ESYNTAX);
    EXPECT_EQ(conf.error_line, 2);
    EXPECT_STREQ(kv_get(&conf, "a"), "1");
    EXPECT_EQ(kv_get(&conf, "b"), nullptr);
    EXPECT_EQ(kv_parse(&conf, "bad key = 1\n"), RB_ESYNTAX);
    EXPECT_EQ(conf.error_line, 1);
    EXPECT_EQ(kv_parse(&conf, " = empty key\n"), RB_ESYNTAX);
    EXPECT_EQ(kv_parse(nullptr, "a = 1"), RB_EINVAL);
}

TEST(KvConf, LongValuesAndAFullTableAreRefused) {
    kvconf_t conf;
    kv_init(&conf);
    const std::string line = "long = " + std::string(KV_VALUE_MAX, 'x') + "\n";
    EXPECT_EQ(kv_parse(&conf, line.c_str()), RB_ETOOBIG);
    for (int i = 0; i < KV_MAX_ENTRIES; i++) {
        char key[16];
        std::snprintf(key, sizeof key, "key%d", i);
        ASSERT_EQ(kv_set(&conf, key, "v"), RB_OK);
    }
    EXPECT_EQ(kv_set(&conf, "one_more", "v"), RB_EFULL);
    EXPECT_EQ(kv_set(&conf, "key3", "replaced"), RB_OK);
    EXPECT_STREQ(kv_get(&conf, "key3"), "replaced");
}

TEST(KvConf, SetRejectsBadKeys) {
    kvconf_t conf;
    kv_init(&conf);
    EXPECT_EQ(kv_set(&conf, "", "v"), RB_EINVAL);
    EXPECT_EQ(kv_set(&conf, "a b", "v"), RB_EINVAL);
    EXPECT_EQ(kv_set(&conf, std::string(KV_KEY_MAX, 'k').c_str(), "v"), RB_EINVAL);
    EXPECT_EQ(kv_set(&conf, "ok_key", nullptr), RB_EINVAL);
    EXPECT_EQ(kv_set(&conf, "ok_key", "v"), RB_OK);
}

TEST(KvConf, GetLongReadsDecimalAndHex) {
    kvconf_t conf;
    kv_init(&conf);
    ASSERT_EQ(kv_parse(&conf, "baud = 9600\nmask = 0xFF\nneg = -3\nname = eth0\nbig = 1e3\n"),
              RB_OK);
    long value = 0;
    EXPECT_EQ(kv_get_long(&conf, "baud", &value), RB_OK);
    EXPECT_EQ(value, 9600);
    EXPECT_EQ(kv_get_long(&conf, "mask", &value), RB_OK);
    EXPECT_EQ(value, 255);
    EXPECT_EQ(kv_get_long(&conf, "neg", &value), RB_OK);
    EXPECT_EQ(value, -3);
    EXPECT_EQ(kv_get_long(&conf, "name", &value), RB_EINVAL);
    EXPECT_EQ(kv_get_long(&conf, "big", &value), RB_EINVAL);
    EXPECT_EQ(kv_get_long(&conf, "missing", &value), RB_ENOTFOUND);
    EXPECT_EQ(value, -3);
}

TEST(KvConf, GetBoolAcceptsTheUsualWords) {
    kvconf_t conf;
    kv_init(&conf);
    ASSERT_EQ(kv_parse(&conf, "a = true\nb = On\nc = NO\nd = 0\ne = maybe\n"), RB_OK);
    int flag = -1;
    EXPECT_EQ(kv_get_bool(&conf, "a", &flag), RB_OK);
    EXPECT_EQ(flag, 1);
    EXPECT_EQ(kv_get_bool(&conf, "b", &flag), RB_OK);
    EXPECT_EQ(flag, 1);
    EXPECT_EQ(kv_get_bool(&conf, "c", &flag), RB_OK);
    EXPECT_EQ(flag, 0);
    EXPECT_EQ(kv_get_bool(&conf, "d", &flag), RB_OK);
    EXPECT_EQ(flag, 0);
    EXPECT_EQ(kv_get_bool(&conf, "e", &flag), RB_EINVAL);
    EXPECT_EQ(kv_get_bool(&conf, "f", &flag), RB_ENOTFOUND);
}
