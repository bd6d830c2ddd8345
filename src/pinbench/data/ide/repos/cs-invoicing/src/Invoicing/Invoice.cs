using System;
using System.Collections.Generic;

namespace Invoicing
{
    /// <summary>
    /// An invoice in one currency: line items, discounts applied to their subtotal, and the
    /// dates that decide when it is overdue.
    /// </summary>
    public sealed class Invoice
    {
        private readonly List<LineItem> items = new List<LineItem>();
        private readonly List<Discount> discounts = new List<Discount>();

        /// <summary>
        /// Creates an empty invoice.
        /// </summary>
        /// <param name="number">The invoice number, such as <c>"INV-2024-0001"</c>.</param>
        /// <param name="currency">The currency of every amount on the invoice.</param>
        /// <param name="issued">The issue date.</param>
        /// <param name="paymentTermDays">Days from the issue date to the due date, zero or more.</param>
        /// <exception cref="ArgumentException"><paramref name="number"/> is blank.</exception>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="paymentTermDays"/> is negative.</exception>
        public Invoice(string number, string currency, DateTime issued, int paymentTermDays = 30)
        {
            if (string.IsNullOrWhiteSpace(number))
            {
                throw new ArgumentException("an invoice needs a number", nameof(number));
            }
            if (paymentTermDays < 0)
            {
                throw new ArgumentOutOfRangeException(nameof(paymentTermDays), "payment terms are not negative");
            }
            Number = number;
            Currency = Currencies.Normalize(currency);
            Issued = issued.Date;
            Due = Issued.AddDays(paymentTermDays);
        }

        public string Number { get; }

        public string Currency { get; }

        public DateTime Issued { get; }

        public DateTime Due { get; }

        public IReadOnlyList<LineItem> Items => items;

        public IReadOnlyList<Discount> Discounts => discounts;

        /// <summary>
        /// Adds a line item; an item equal to one already on the invoice adds its quantity to
        /// that line instead of adding a second line.
        /// </summary>
        /// <param name="item">The item, priced in the invoice's currency.</param>
        /// <exception cref="ArgumentNullException"><paramref name="item"/> is null.</exception>
        /// <exception cref="ArgumentException">The item's currency is not the invoice's.</exception>
        public void AddItem(LineItem item)
        {
            if (item == null)
            {
                throw new ArgumentNullException(nameof(item));
            }
            if (item.Currency != Currency)
            {
                throw new ArgumentException(
                    "item priced in " + item.Currency + " on an invoice in " + Currency, nameof(item));
            }
            for (int i = 0; i < items.Count; i++)
            {
                LineItem existing = items[i];
                if (existing.Description == item.Description && existing.UnitPrice == item.UnitPrice
                    && existing.TaxCategory == item.TaxCategory)
                {
                    items[i] = existing.WithQuantity(existing.Quantity + item.Quantity);
                    return;
                }
            }
            items.Add(item);
        }

        public void AddDiscount(Discount discount)
        {
            if (discount == null)
            {
                throw new ArgumentNullException(nameof(discount));
            }
            var fixedDiscount = discount as FixedDiscount;
            if (fixedDiscount != null && fixedDiscount.Amount.Currency != Currency)
            {
                throw new ArgumentException("a fixed discount must be in " + Currency, nameof(discount));
            }
            discounts.Add(discount);
        }

        /// <summary>
        /// The sum of the line items' net amounts, before discounts and tax.
        /// </summary>
        /// <returns>The subtotal; zero for an invoice without items.</returns>
        public Amount Subtotal()
        {
            Amount total = Amount.Zero(Currency);
            foreach (LineItem item in items)
            {
                total = total.Add(item.Net());
            }
            return total;
        }

        public Amount DiscountTotal()
        {
            Amount remaining = Subtotal();
            Amount total = Amount.Zero(Currency);
            foreach (Discount discount in discounts)
            {
                Amount reduction = discount.ApplyTo(remaining);
                remaining = remaining.Subtract(reduction);
                total = total.Add(reduction);
            }
            return total;
        }

        public Amount NetTotal()
        {
            return Subtotal().Subtract(DiscountTotal());
        }

        /// <summary>
        /// What the customer pays: the net total after discounts plus the tax of every category.
        /// </summary>
        /// <param name="taxes">The rates to apply.</param>
        /// <returns>The gross total.</returns>
        /// <exception cref="ArgumentNullException"><paramref name="taxes"/> is null.</exception>
        public Amount Total(TaxCalculator taxes)
        {
            if (taxes == null)
            {
                throw new ArgumentNullException(nameof(taxes));
            }
            return NetTotal().Add(taxes.TotalTax(this));
        }

        /// <summary>
        /// Whole days from <paramref name="today"/> to the due date; negative once overdue.
        /// </summary>
        /// <param name="today">The current date; its time of day is ignored.</param>
        /// <returns>The number of days left.</returns>
        public int DaysUntilDue(DateTime today)
        {
            TimeSpan left = Due - today.Date;
            return (int)Math.Floor(left.TotalDays);
        }
    }
}
