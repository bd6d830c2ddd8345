using System;
using System.IO;
using Invoicing;
using NUnit.Framework;

namespace Invoicing.Tests
{
    [TestFixture]
    public class CsvInvoiceExporterTests
    {
        [TestCase("plain", "plain")]
        [TestCase("say \"hi\"", "\"say \"\"hi\"\"\"")]
        [TestCase("two\nlines", "\"two\nlines\"")]
        public void EscapeQuotesOnlyWhenNeeded(string field, string expected)
        {
            Assert.AreEqual(expected, CsvInvoiceExporter.Escape(field, ','));
        }

        [Test]
        public void EscapeUsesTheGivenSeparator()
        {
            Assert.AreEqual("a,b", CsvInvoiceExporter.Escape("a,b", ';'));
            Assert.AreEqual("\"a;b\"", CsvInvoiceExporter.Escape("a;b", ';'));
            Assert.AreEqual("", CsvInvoiceExporter.Escape(null, ';'));
        }

        [Test]
        public void ExportWritesItemsDiscountsTaxesAndTotal()
        {
            var invoice = new Invoice("INV-2024-0002", "EUR", new DateTime(2024, 5, 2));
            invoice.AddItem(new LineItem("Chair, oak", 2, new Amount(100m, "EUR")));
            invoice.AddDiscount(new FixedDiscount("Voucher", new Amount(20m, "EUR")));
            var exporter = new CsvInvoiceExporter(TaxCalculator.Standard(19m, 7m)) { NewLine = "\n" };

            string csv = exporter.Export(invoice);

            Assert.AreEqual(
                "description,quantity,unit_price,tax_category,net\n"
                + "\"Chair, oak\",2,100.00,standard,200.00\n"
                + "subtotal,,,,200.00\n"
                + "Voucher,,,,-20.00\n"
                + "tax,,,standard,34.20\n"
                + "total,,,,214.20\n",
                csv);
        }

        [Test]
        public void FormulaLikeTextIsProtected()
        {
            var invoice = new Invoice("INV-2024-0003", "JPY", new DateTime(2024, 5, 2));
            invoice.AddItem(new LineItem("=SUM(A1:A9)", 1, new Amount(500m, "JPY"), "exempt"));
            var exporter = new CsvInvoiceExporter(TaxCalculator.Standard(10m, 8m)) { Separator = ';' };
            var writer = new StringWriter();

            exporter.Write(invoice, writer);

            StringAssert.Contains("'=SUM(A1:A9);1;500;exempt;500\r\n", writer.ToString());
            exporter.ProtectFormulas = false;
            StringAssert.Contains("\r\n=SUM(A1:A9);1;", exporter.Export(invoice));
        }

        [Test]
        public void ExporterNeedsTaxRatesAndAnInvoice()
        {
            Assert.Throws<ArgumentNullException>(() => new CsvInvoiceExporter(null));
            var exporter = new CsvInvoiceExporter(new TaxCalculator());
            Assert.Throws<ArgumentNullException>(() => exporter.Write(null, new StringWriter()));
        }
    }
}
