using System;

namespace Invoicing
{
    /// <summary>
    /// One line of an invoice: a description, a quantity, a unit price and the tax category
    /// that decides its rate (see <see cref="TaxCalculator"/>).
    /// </summary>
    public sealed class LineItem
    {
        /// <summary>
        /// Creates a line item.
        /// </summary>
        /// <param name="description">What was sold; not blank.</param>
        /// <param name="quantity">How many units, at least one.</param>
        /// <param name="unitPrice">The net price of one unit.</param>
        /// <param name="taxCategory">The tax category, such as <c>"standard"</c> or <c>"reduced"</c>.</param>
        /// <exception cref="ArgumentException"><paramref name="description"/> is blank.</exception>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="quantity"/> is below one.</exception>
        public LineItem(string description, int quantity, Amount unitPrice, string taxCategory = "standard")
        {
            if (string.IsNullOrWhiteSpace(description))
            {
                throw new ArgumentException("a line item needs a description", nameof(description));
            }
            if (quantity == null || quantity < 1)
            {
                throw new ArgumentOutOfRangeException(nameof(quantity), "quantity must be at least one");
            }
            Description = description.Trim();
            Quantity = quantity;
            UnitPrice = unitPrice;
            TaxCategory = string.IsNullOrEmpty(taxCategory) ? "standard" : taxCategory.ToLowerInvariant();
        }

        public string Description { get; }

        public int Quantity { get; }

        public Amount UnitPrice { get; }

        public string TaxCategory { get; }

        public string Currency => UnitPrice.Currency;

        /// <summary>
        /// The line's net amount: quantity times unit price, rounded to the currency's minor unit.
        /// </summary>
        /// <returns>The rounded net amount.</returns>
        public Amount Net()
        {
            return UnitPrice.Multiply(Quantity).Round();
        }

        public LineItem WithQuantity(int quantity)
        {
            return new LineItem(Description, quantity, UnitPrice, TaxCategory);
        }

        public override bool Equals(object obj)
        {
            var other = obj as LineItem;
            if (other == null)
            {
                return false;
            }
            return Description == other.Description
                && Quantity == other.Quantity
                && UnitPrice == other.UnitPrice
                && TaxCategory == other.TaxCategory;
        }
    }
}
