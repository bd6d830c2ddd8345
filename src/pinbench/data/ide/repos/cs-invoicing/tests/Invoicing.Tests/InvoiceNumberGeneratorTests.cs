using System;
using Invoicing;
using NUnit.Framework;

namespace Invoicing.Tests
{
    [TestFixture]
    public class InvoiceNumberGeneratorTests
    {
        [Test]
        public void NumbersAreConsecutiveWithinAYear()
        {
            var generator = new InvoiceNumberGenerator();

            Assert.AreEqual("INV-2024-0001", generator.Next(new DateTime(2024, 1, 5)));
            Assert.AreEqual("INV-2024-0002", generator.Next(new DateTime(2024, 6, 30)));
        }

        [Test]
        public void ANewYearRestartsTheSequence()
        {
            var generator = new InvoiceNumberGenerator("cr", 3);
            generator.Next(new DateTime(2023, 12, 31));
            generator.Next(new DateTime(2023, 12, 31));

            Assert.AreEqual("CR-2024-001", generator.Next(new DateTime(2024, 1, 1)));
            Assert.Throws<InvalidOperationException>(() => generator.Next(new DateTime(2023, 12, 31)));
        }

        [TestCase("INV", 7, 2, 4, "INV-0007-0002")]
        [TestCase("INV", 2024, 12345, 4, "INV-2024-12345")]
        public void FormatPadsYearAndSequence(string prefix, int year, int sequence, int digits, string expected)
        {
            Assert.AreEqual(expected, InvoiceNumberGenerator.Format(prefix, year, sequence, digits));
        }

        [Test]
        public void TryParseReadsYearAndSequence()
        {
            int year;
            int sequence;

            Assert.IsTrue(InvoiceNumberGenerator.TryParse("inv-2024-0041", "INV", out year, out sequence));
            Assert.AreEqual(2024, year);
            Assert.AreEqual(41, sequence);
            Assert.IsFalse(InvoiceNumberGenerator.TryParse("INV-24-0041", "INV", out year, out sequence));
            Assert.IsFalse(InvoiceNumberGenerator.TryParse("INV-2024-99999999999", "INV", out year, out sequence));
            Assert.IsFalse(InvoiceNumberGenerator.TryParse("CR-2024-0001", "INV", out year, out sequence));
        }

        [Test]
        public void ResumeAfterContinuesTheSequence()
        {
            var generator = new InvoiceNumberGenerator();
            generator.ResumeAfter("INV-2024-0041");

            Assert.AreEqual("INV-2024-0042", generator.Next(new DateTime(2024, 2, 1)));
            Assert.Throws<FormatException>(() => generator.ResumeAfter("INV-2024-"));
        }

        [Test]
        public void PrefixAndDigitsAreChecked()
        {
            Assert.Throws<ArgumentException>(() => new InvoiceNumberGenerator("IN-V"));
            Assert.Throws<ArgumentOutOfRangeException>(() => new InvoiceNumberGenerator("INV", 0));
        }
    }
}
