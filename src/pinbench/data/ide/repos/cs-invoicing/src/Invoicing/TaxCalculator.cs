using System;
using System.Collections.Generic;

namespace Invoicing
{
    /// <summary>
    /// Tax rates by category (<c>"standard"</c>, <c>"reduced"</c>, <c>"exempt"</c>, ...) and the
    /// tax of an invoice, computed per category after its discounts.
    /// </summary>
    public sealed class TaxCalculator
    {
        private readonly Dictionary<string, decimal> rates =
            new Dictionary<string, decimal>(StringComparer.OrdinalIgnoreCase);

        /// <summary>
        /// A calculator with the three usual categories: <c>"standard"</c>, <c>"reduced"</c>
        /// and <c>"exempt"</c> (zero).
        /// </summary>
        /// <param name="standardPercent">The standard rate, such as 19.</param>
        /// <param name="reducedPercent">The reduced rate, such as 7.</param>
        /// <returns>The new calculator.</returns>
        public static TaxCalculator Standard(decimal standardPercent, decimal reducedPercent)
        {
            return new TaxCalculator()
                .SetRate("standard", standardPercent)
                .SetRate("reduced", reducedPercent)
                .SetRate("exempt", 0m);
        }

        /// <summary>
        /// Sets the rate of a category, replacing any earlier one.
        /// </summary>
        /// <param name="category">The category name; case does not matter.</param>
        /// <param name="percent">The rate in percent, from 0 to 100.</param>
        /// <returns>This calculator, to chain calls.</returns>
        /// <exception cref="ArgumentException"><paramref name="category"/> is blank.</exception>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="percent"/> is out of range.</exception>
        public TaxCalculator SetRate(string category, decimal percent)
        {
            if (string.IsNullOrWhiteSpace(category))
            {
                throw new ArgumentException("a tax category needs a name", nameof(category));
            }
            if (percent < 0m || percent > 100m)
            {
                throw new ArgumentOutOfRangeException(nameof(percent), "a tax rate is between 0 and 100");
            }
            rates[category.Trim()] = percent;
            return this;
        }

        public decimal RateFor(string category)
        {
            decimal percent;
            if (category == null || !rates.TryGetValue(category.Trim(), out percent))
            {
                throw new KeyNotFoundException("no tax rate for category '" + category + "'");
            }
            return percent;
        }

        /// <summary>
        /// The tax of each category on the invoice. The invoice's discounts are first spread
        /// over the categories in proportion to their net amounts, so a discount lowers the tax
        /// of every category it covers.
        /// </summary>
        /// <param name="invoice">The invoice to tax.</param>
        /// <returns>The rounded tax per category, sorted by category name.</returns>
        /// <exception cref="ArgumentNullException"><paramref name="invoice"/> is null.</exception>
        public SortedDictionary<string, Amount> Breakdown(Invoice invoice)
        {
            if (invoice == null)
            {
                throw new ArgumentNullException(nameof(invoice));
            }
            var nets = new SortedDictionary<string, Amount>(StringComparer.Ordinal);
            foreach (LineItem item in invoice.Items)
            {
                Amount sum;
                nets[item.TaxCategory] = nets.TryGetValue(item.TaxCategory, out sum)
                    ? sum.Add(item.Net())
                    : item.Net();
            }
            Dictionary<string, Amount> shares = SpreadDiscount(nets, invoice.DiscountTotal());
            var taxes = new SortedDictionary<string, Amount>(StringComparer.Ordinal);
            foreach (KeyValuePair<string, Amount> entry in nets)
            {
                Amount taxable = entry.Value.Subtract(shares[entry.Key]);
                taxes[entry.Key] = taxable.Percent(RateFor(entry.Key)).Round();
            }
            return taxes;
        }

        public Amount TotalTax(Invoice invoice)
        {
            Amount total = Amount.Zero(invoice.Currency);
            foreach (Amount tax in Breakdown(invoice).Values)
            {
                total = total.Add(tax);
            }
            return total;
        }

        private static Dictionary<string, Amount> SpreadDiscount(
            SortedDictionary<string, Amount> nets, Amount discount)
        {
            var shares = new Dictionary<string, Amount>(StringComparer.Ordinal);
            Amount subtotal = Amount.Sum(nets.Values, discount.Currency);
            Amount left = discount;
            int index = 0;
            foreach (KeyValuePair<string, Amount> entry in nets)
            {
                index++;
                if (index == nets.Count || subtotal.IsZero)
                {
                    shares[entry.Key] = left;
                    left = Amount.Zero(discount.Currency);
                    continue;
                }
                Amount share = discount.Multiply(entry.Value.Value / subtotal.Value).Round();
                shares[entry.Key] = share;
                left = left.Subtract(share);
            }
            return shares;
        }
    }
}
