using System;
using System.Collections.Generic;
using System.IO;
using TextGrid;
using NUnit.Framework;

namespace TextGrid.Tests
{
    [TestFixture]
    public class CsvReaderTests
    {
        [Test]
        public void ParseSplitsRecordsAndFields()
        {
            List<string[]> records = CsvReader.Parse("a,b,c\r\n1,,3\n");

            Assert.AreEqual(2, records.Count);
            Assert.AreEqual(new[] { "a", "b", "c" }, records[0]);
            Assert.AreEqual(new[] { "1", "", "3" }, records[1]);
        }

        [Test]
        public void QuotedFieldsHoldSeparatorsQuotesAndLineBreaks()
        {
            List<string[]> records = CsvReader.Parse("\"Doe, Jane\",\"say \"\"hi\"\"\",\"two\nlines\"");

            Assert.AreEqual(new[] { "Doe, Jane", "say \"hi\"", "two\nlines" }, records[0]);
        }

        [Test]
        public void ReadRecordTracksLineNumbers()
        {
            var reader = new CsvReader(new StringReader("x;\"multi\nline\"\ny;z\n"), ';');

            Assert.AreEqual(1, reader.LineNumber);
            Assert.AreEqual(new[] { "x", "multi\nline" }, reader.ReadRecord());
            Assert.AreEqual(3, reader.LineNumber);
            Assert.AreEqual(new[] { "y", "z" }, reader.ReadRecord());
            Assert.IsNull(reader.ReadRecord());
        }

        [Test]
        public void AnUnclosedQuoteReportsWhereTheRecordStarts()
        {
            var error = Assert.Throws<CsvFormatException>(() => CsvReader.Parse("a,b\nc,\"open\nmore"));

            Assert.AreEqual(2, error.Line);
            StringAssert.Contains("(line 2)", error.Message);
        }

        [Test]
        public void TextAfterAClosingQuoteIsAnError()
        {
            Assert.Throws<CsvFormatException>(() => CsvReader.Parse("\"quoted\"tail,x"));
        }

        [Test]
        public void ReadAllOnEmptyInputGivesNoRecords()
        {
            var reader = new CsvReader(new StringReader(""));

            Assert.AreEqual(0, reader.ReadAll().Count);
            Assert.Throws<ArgumentException>(() => new CsvReader(new StringReader(""), '"'));
            Assert.Throws<ArgumentNullException>(() => new CsvReader(null));
        }
    }
}
