using System;
using Invoicing;
using NUnit.Framework;

namespace Invoicing.Tests
{
    [TestFixture]
    public class AmountTests
    {
        [Test]
        public void CurrencyCodesAreNormalizedAndChecked()
        {
            var amount = new Amount(12.5m, " usd ");

            Assert.AreEqual("USD", amount.Currency);
            Assert.AreEqual(12.5m, amount.Value);
            Assert.Throws<ArgumentException>(() => new Amount(1m, "ABC"));
            Assert.IsFalse(Currencies.IsKnown("ABC"));
            Assert.IsFalse(Currencies.IsKnown(null));
        }

        [TestCase("jpy", 0)]
        [TestCase("KWD", 3)]
        public void MinorDigitsComeFromTheCurrencyTable(string code, int digits)
        {
            Assert.AreEqual(digits, Currencies.MinorDigits(code));
        }

        [Test]
        public void SymbolsComeFromTheCurrencyTable()
        {
            Assert.AreEqual("$", Currencies.Symbol("USD"));
            Assert.AreEqual("\u20AC", Currencies.Symbol("eur"));
        }

        [Test]
        public void AddingAndSubtractingKeepFullPrecision()
        {
            var a = new Amount(10.005m, "USD");
            var b = new Amount(0.001m, "USD");

            Assert.AreEqual(10.006m, a.Add(b).Value);
            Assert.AreEqual(10.004m, a.Subtract(b).Value);
            Assert.AreEqual(-10.005m, a.Negate().Value);
        }

        [Test]
        public void MixingCurrenciesThrows()
        {
            var dollars = new Amount(1m, "USD");
            var euros = new Amount(1m, "EUR");

            Assert.Throws<ArgumentException>(() => dollars.Add(euros));
            Assert.Throws<ArgumentException>(() => dollars.CompareTo(euros));
        }

        [TestCase(0.125, "USD", 0.13)]
        [TestCase(-0.125, "USD", -0.13)]
        [TestCase(1.0005, "KWD", 1.001)]
        public void RoundingIsHalfAwayFromZeroToTheMinorUnit(double value, string code, double expected)
        {
            var rounded = new Amount((decimal)value, code).Round();

            Assert.AreEqual((decimal)expected, rounded.Value);
        }

        [Test]
        public void AllocateGivesLeftoverCentsToTheFirstParts()
        {
            Amount[] parts = new Amount(10m, "USD").Allocate(3);

            Assert.AreEqual(3, parts.Length);
            Assert.AreEqual(3.34m, parts[0].Value);
            Assert.AreEqual(3.33m, parts[1].Value);
            Assert.AreEqual(3.33m, parts[2].Value);
            Assert.AreEqual(new Amount(10m, "USD"), Amount.Sum(parts, "USD"));
        }

        [Test]
        public void AllocateNegativeAmountsAndRejectsZeroParts()
        {
            Amount[] parts = new Amount(-1m, "USD").Allocate(3);

            Assert.AreEqual(-0.34m, parts[0].Value);
            Assert.AreEqual(-0.33m, parts[2].Value);
            Assert.Throws<ArgumentOutOfRangeException>(() => new Amount(1m, "USD").Allocate(0));
        }

        [Test]
        public void ParseReadsWhatToStringWrites()
        {
            var amount = new Amount(-1234.5m, "EUR");

            Assert.AreEqual("EUR -1234.50", amount.ToString());
            Assert.AreEqual(amount, Amount.Parse(amount.ToString()));
            Assert.AreEqual("JPY 1500", Amount.Parse("jpy 1500").ToString());
        }

        [TestCase("12.50 USD")]
        [TestCase("XYZ 1.00")]
        public void ParseRejectsMalformedText(string text)
        {
            Assert.Throws<FormatException>(() => Amount.Parse(text));
        }

        [Test]
        public void EqualityIgnoresTrailingZeros()
        {
            var a = new Amount(1.5m, "USD");
            var b = new Amount(1.50m, "usd");

            Assert.IsTrue(a == b);
            Assert.IsFalse(a != b);
            Assert.AreEqual(a.GetHashCode(), b.GetHashCode());
            Assert.That(Amount.Zero("USD").IsZero, Is.True);
        }
    }
}
