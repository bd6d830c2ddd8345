using System;
using TextGrid;
using NUnit.Framework;

namespace TextGrid.Tests
{
    [TestFixture]
    public class AnsiTests
    {
        [TestCase("\u001B[31mred\u001B[0m", "red")]
        [TestCase("\u001B[1;38;5;208mbold orange\u001B[0m!", "bold orange!")]
        [TestCase("\u001B]8;;https://example.com\u0007link\u001B]8;;\u0007", "link")]
        [TestCase("\u001B]0;title\u001B\\text", "text")]
        [TestCase("plain", "plain")]
        public void StripRemovesEscapeSequences(string text, string expected)
        {
            Assert.AreEqual(expected, Ansi.Strip(text));
        }

        [Test]
        public void StripHandlesNullAndCutSequences()
        {
            Assert.AreEqual("", Ansi.Strip(null));
            Assert.AreEqual("ab", Ansi.Strip("ab\u001B[3"));
            Assert.AreEqual("ab", Ansi.Strip("a\u001B(b"));
        }

        [Test]
        public void ColorizeWrapsTextInAnSgrSequence()
        {
            string red = Ansi.Colorize("red", 31);

            Assert.AreEqual("\u001B[31mred\u001B[0m", red);
            Assert.IsTrue(Ansi.HasEscapes(red));
            Assert.IsFalse(Ansi.HasEscapes("red"));
            Assert.Throws<ArgumentOutOfRangeException>(() => Ansi.Colorize("x", 108));
        }
    }
}
