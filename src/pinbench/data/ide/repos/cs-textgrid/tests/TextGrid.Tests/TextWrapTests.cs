using System;
using System.Collections.Generic;
using TextGrid;
using NUnit.Framework;

namespace TextGrid.Tests
{
    [TestFixture]
    public class TextWrapTests
    {
        [Test]
        public void WrapFillsLinesGreedily()
        {
            List<string> lines = TextWrap.Wrap("the quick brown fox jumps over the lazy dog", 10);

            Assert.AreEqual(new[] { "the quick", "brown fox", "jumps over", "the lazy", "dog" }, lines.ToArray());
        }

        [Test]
        public void WrapBreaksWordsLongerThanTheWidth()
        {
            List<string> lines = TextWrap.Wrap("supercalifragilistic is long", 8);

            Assert.AreEqual(new[] { "supercal", "ifragili", "stic is", "long" }, lines.ToArray());
        }

        [Test]
        public void WrapKeepsLineBreaksAndCollapsesSpaces()
        {
            List<string> lines = TextWrap.Wrap("one  two\r\n\nthree", 20);

            Assert.AreEqual(new[] { "one two", "", "three" }, lines.ToArray());
            Assert.AreEqual(new[] { "" }, TextWrap.Wrap(null, 5).ToArray());
        }

        [Test]
        public void WrapCountsWideCharactersAsTwoColumns()
        {
            List<string> lines = TextWrap.Wrap("\u65E5\u672C\u8A9E\u306E\u6587", 4);

            Assert.AreEqual(new[] { "\u65E5\u672C", "\u8A9E\u306E", "\u6587" }, lines.ToArray());
            Assert.Throws<ArgumentOutOfRangeException>(() => TextWrap.Wrap("x", 0));
        }

        [TestCase("Hello, world", 8, "Hello...")]
        [TestCase("short", 8, "short")]
        [TestCase("Hello", 2, "..")]
        public void TruncateEndsCutTextWithAnEllipsis(string text, int width, string expected)
        {
            Assert.AreEqual(expected, TextWrap.Truncate(text, width));
        }

        [Test]
        public void TruncateTakesACustomEllipsisAndRejectsNegativeWidths()
        {
            Assert.AreEqual("Hell\u2026", TextWrap.Truncate("Hello, world", 5, "\u2026"));
            Assert.Throws<ArgumentOutOfRangeException>(() => TextWrap.Truncate("x", -1));
        }

        [TestCase("abc", 3)]
        [TestCase("\u65E5\u672C\u8A9Eabc", 9)]
        [TestCase("e\u0301", 1)]
        [TestCase("\u001B[1mbold\u001B[0m", 4)]
        public void DisplayWidthCountsTerminalColumns(string text, int expected)
        {
            Assert.AreEqual(expected, TextWrap.DisplayWidth(text));
        }

        [Test]
        public void CharWidthUsesTheWideCharacterTable()
        {
            Assert.AreEqual(1, TextWrap.CharWidth('a'));
            Assert.AreEqual(2, TextWrap.CharWidth('\uAC00'));
            Assert.AreEqual(2, TextWrap.CharWidth('\uFF21'));
            Assert.AreEqual(0, TextWrap.CharWidth('\t'));
        }
    }
}
