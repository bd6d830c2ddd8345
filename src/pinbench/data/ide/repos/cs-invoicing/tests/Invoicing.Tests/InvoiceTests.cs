using System;
using System.Collections.Generic;
using Invoicing;
using NUnit.Framework;

namespace Invoicing.Tests
{
    [TestFixture]
    public class InvoiceTests
    {
        private TaxCalculator taxes;
        private Invoice invoice;

        [SetUp]
        public void CreateInvoice()
        {
            taxes = TaxCalculator.Standard(19m, 7m);
            invoice = new Invoice("INV-2024-0001", "usd", new DateTime(2024, 3, 1, 15, 30, 0), 14);
            invoice.AddItem(new LineItem("Widget", 3, new Amount(19.99m, "USD")));
            invoice.AddItem(new LineItem("Book", 2, new Amount(12.50m, "USD"), "Reduced"));
        }

        [Test]
        public void LineItemNetIsQuantityTimesUnitPriceRounded()
        {
            var item = new LineItem("Screws", 7, new Amount(0.125m, "USD"));

            Assert.AreEqual(0.88m, item.Net().Value);
            Assert.AreEqual("standard", item.TaxCategory);
        }

        [Test]
        public void LineItemsNeedADescriptionAndAPositiveQuantity()
        {
            var price = new Amount(1m, "USD");

            Assert.Throws<ArgumentException>(() => new LineItem("  ", 1, price));
            Assert.Throws<ArgumentOutOfRangeException>(() => new LineItem("Nail", 0, price));
        }

        [Test]
        public void AddingTheSameItemAgainAddsToItsQuantity()
        {
            invoice.AddItem(new LineItem("Widget", 2, new Amount(19.99m, "USD")));

            Assert.AreEqual(2, invoice.Items.Count);
            Assert.AreEqual(5, invoice.Items[0].Quantity);
            Assert.AreEqual(new LineItem("Widget", 5, new Amount(19.99m, "USD")), invoice.Items[0]);
        }

        [Test]
        public void ItemsInAnotherCurrencyAreRejected()
        {
            var item = new LineItem("Tea", 1, new Amount(3m, "EUR"));

            Assert.Throws<ArgumentException>(() => invoice.AddItem(item));
        }

        [Test]
        public void SubtotalSumsTheLineNets()
        {
            Assert.AreEqual(new Amount(84.97m, "USD"), invoice.Subtotal());
        }

        [Test]
        public void DiscountsApplyInOrderToWhatIsLeft()
        {
            invoice.AddDiscount(new FixedDiscount("Voucher", new Amount(4.97m, "USD")));
            invoice.AddDiscount(new PercentageDiscount("Loyalty", 10m));

            Assert.AreEqual(12.97m, invoice.DiscountTotal().Value);
            Assert.AreEqual(72.00m, invoice.NetTotal().Value);
        }

        [Test]
        public void AFixedDiscountNeverExceedsTheSubtotal()
        {
            invoice.AddDiscount(new FixedDiscount("Goodwill", new Amount(500m, "USD")));

            Assert.AreEqual(84.97m, invoice.DiscountTotal().Value);
            Assert.IsTrue(invoice.NetTotal().IsZero);
            Assert.Throws<ArgumentOutOfRangeException>(() => new PercentageDiscount("Bad", 100.5m));
        }

        [Test]
        public void TaxIsComputedPerCategoryAfterSpreadingTheDiscount()
        {
            invoice.AddDiscount(new PercentageDiscount("Early payment", 10m));

            SortedDictionary<string, Amount> breakdown = taxes.Breakdown(invoice);

            Assert.AreEqual(new[] { "reduced", "standard" }, new List<string>(breakdown.Keys).ToArray());
            Assert.AreEqual(1.58m, breakdown["reduced"].Value);
            Assert.AreEqual(10.25m, breakdown["standard"].Value);
            Assert.AreEqual(11.83m, taxes.TotalTax(invoice).Value);
        }

        [Test]
        public void TotalIsNetPlusTax()
        {
            invoice.AddDiscount(new PercentageDiscount("Early payment", 10m));

            Assert.AreEqual(new Amount(88.30m, "USD"), invoice.Total(taxes));
        }

        [Test]
        public void RatesAreLookedUpIgnoringCase()
        {
            taxes.SetRate("Luxury", 25m);

            Assert.AreEqual(25m, taxes.RateFor("LUXURY"));
            Assert.AreEqual(0m, taxes.RateFor("exempt"));
            Assert.Throws<KeyNotFoundException>(() => taxes.RateFor("unknown"));
            Assert.Throws<ArgumentOutOfRangeException>(() => taxes.SetRate("odd", 101m));
        }

        [Test]
        public void DueDateFollowsThePaymentTerms()
        {
            Assert.AreEqual(new DateTime(2024, 3, 15), invoice.Due);
            Assert.AreEqual(14, invoice.DaysUntilDue(new DateTime(2024, 3, 1, 23, 0, 0)));
            Assert.AreEqual(-1, invoice.DaysUntilDue(new DateTime(2024, 3, 16)));
        }
    }
}
