using System;
using TextGrid;
using NUnit.Framework;

namespace TextGrid.Tests
{
    [TestFixture]
    public class TableTests
    {
        private Table prices;

        [SetUp]
        public void CreateTable()
        {
            prices = new Table("Item", "Qty", "Price");
            prices.Columns[1].Align = Alignment.Right;
            prices.Columns[2].Align = Alignment.Right;
            prices.Columns[2].NumberFormat = "F2";
            prices.AddRow("Widget", 3, 19.99).AddRow("Gadget, large", 12, 5.5);
        }

        [Test]
        public void RenderDrawsAsciiBordersAndAlignsCells()
        {
            string expected =
                "+---------------+-----+-------+\n"
                + "| Item          | Qty | Price |\n"
                + "+===============+=====+=======+\n"
                + "| Widget        |   3 | 19.99 |\n"
                + "| Gadget, large |  12 |  5.50 |\n"
                + "+---------------+-----+-------+\n";

            Assert.AreEqual(expected, prices.Render());
            Assert.AreEqual(expected, prices.ToString());
        }

        [Test]
        public void WidthsCoverHeadersAndCells()
        {
            Assert.AreEqual(new[] { 13, 3, 5 }, prices.ComputeWidths());
            Assert.AreEqual(2, prices.RowCount);
        }

        [Test]
        public void MissingCellsAreEmptyAndExtraCellsAreRejected()
        {
            prices.AddRow("Spare");

            Assert.AreEqual(3, prices.RowCount);
            StringAssert.Contains("| Spare         |     |       |\n", prices.Render());
            Assert.Throws<ArgumentException>(() => prices.AddRow("a", 1, 2.0, "extra"));
        }

        [Test]
        public void ATableNeedsAColumn()
        {
            Assert.Throws<ArgumentException>(() => new Table());
        }

        [Test]
        public void WrappedColumnsGiveRowsSeveralLines()
        {
            var table = new Table("Name", "Notes");
            table.Columns[1].MaxWidth = 10;
            table.Columns[1].Wrap = true;
            table.AddRow("a", "the quick brown fox");

            Assert.AreEqual(
                "+------+------------+\n"
                + "| Name | Notes      |\n"
                + "+======+============+\n"
                + "| a    | the quick  |\n"
                + "|      | brown fox  |\n"
                + "+------+------------+\n",
                table.Render());
        }

        [Test]
        public void TextOverTheMaximumWidthIsTruncatedUnlessWrapped()
        {
            var table = new Table("Notes") { ShowHeader = false };
            table.Columns[0].MaxWidth = 8;
            table.AddRow("truncated text");

            Assert.AreEqual("+----------+\n| trunc... |\n+----------+\n", table.Render());
        }

        [Test]
        public void BorderlessTablesSeparateColumnsWithTwoSpaces()
        {
            prices.Border = BorderStyle.None;

            Assert.AreEqual(
                "Item           Qty  Price\n"
                + "Widget           3  19.99\n"
                + "Gadget, large   12   5.50\n",
                prices.Render());
        }

        [Test]
        public void FromCsvUsesTheFirstRecordAsHeader()
        {
            Table table = Table.FromCsv("name;city\n\"Doe; Jane\";Paris\n", ';');

            Assert.AreEqual("name", table.Columns[0].Header);
            Assert.AreEqual(1, table.RowCount);
            StringAssert.Contains("| Doe; Jane | Paris |", table.Render());
            Assert.Throws<ArgumentException>(() => Table.FromCsv(""));
        }

        [TestCase(Alignment.Left, "ab   ")]
        [TestCase(Alignment.Right, "   ab")]
        [TestCase(Alignment.Center, " ab  ")]
        public void PadFillsTheWidthOnTheAlignedSide(Alignment align, string expected)
        {
            var column = new Column("h", align);

            Assert.AreEqual(expected, column.Pad("ab", 5));
            Assert.Throws<ArgumentOutOfRangeException>(() => column.Pad("abcdef", 5));
        }

        [Test]
        public void FormatValueUsesTheNumberFormatAndInvariantCulture()
        {
            var column = new Column("Value") { NumberFormat = "N1" };

            Assert.AreEqual("1,234.5", column.FormatValue(1234.46));
            Assert.AreEqual("NaN", column.FormatValue(double.NaN));
            Assert.AreEqual("", column.FormatValue(null));
            Assert.AreEqual("text", column.FormatValue("text"));
        }

        [Test]
        public void FitWidthKeepsWithinTheColumnLimits()
        {
            var column = new Column("Header") { MinWidth = 8, MaxWidth = 12 };

            Assert.AreEqual(8, column.FitWidth(3));
            Assert.AreEqual(10, column.FitWidth(10));
            Assert.AreEqual(12, column.FitWidth(40));
        }
    }
}
