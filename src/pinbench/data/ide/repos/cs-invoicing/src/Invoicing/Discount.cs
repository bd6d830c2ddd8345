using System;

namespace Invoicing
{
    /// <summary>
    /// A reduction of an invoice's subtotal. Discounts apply in the order they were added,
    /// each to what the previous ones left.
    /// </summary>
    public abstract class Discount
    {
        protected Discount(string label)
        {
            Label = label;
        }

        public string Label { get; }

        /// <summary>
        /// How much this discount takes off <paramref name="remaining"/>, never more than it.
        /// </summary>
        /// <param name="remaining">The subtotal left after the earlier discounts.</param>
        /// <returns>The reduction, rounded to the currency's minor unit, zero or positive.</returns>
        public Amount ApplyTo(Amount remaining)
        {
            if (remaining.IsNegative || remaining.IsZero)
            {
                return Amount.Zero(remaining.Currency);
            }
            Amount reduction = Reduction(remaining).Round();
            if (reduction.CompareTo(remaining) > 0)
            {
                return remaining;
            }
            return reduction;
        }

        public string Describe()
        {
            return Label;
        }

        protected abstract Amount Reduction(Amount remaining);
    }

    /// <summary>A percentage off what remains, such as 10 percent for early payment.</summary>
    public sealed class PercentageDiscount : Discount
    {
        private readonly decimal percent;

        /// <summary>
        /// Creates a discount of <paramref name="percent"/> percent.
        /// </summary>
        /// <param name="label">The text shown on the invoice.</param>
        /// <param name="percent">The percentage, above 0 and at most 100.</param>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="percent"/> is out of range.</exception>
        public PercentageDiscount(string label, decimal percent)
            : base(label)
        {
            if (percent <= 0m || percent > 100m)
            {
                throw new ArgumentOutOfRangeException(nameof(percent), "a percentage is above 0 and at most 100");
            }
            this.percent = percent;
        }

        protected override Amount Reduction(Amount remaining)
        {
            return remaining.Percent(percent);
        }
    }

    /// <summary>A fixed amount off, such as a voucher; capped at what remains.</summary>
    public sealed class FixedDiscount : Discount
    {
        private readonly Amount amount;

        public FixedDiscount(string label, Amount amount)
            : base(label)
        {
            if (amount.IsNegative || amount.IsZero)
            {
                throw new ArgumentOutOfRangeException(nameof(amount), "a fixed discount is positive");
            }
            this.amount = amount;
        }

        public Amount Amount => amount;

        public string Describe()
        {
            string text = amount.ToString();
            return Label + " (" + text + ")";
        }

        protected override Amount Reduction(Amount remaining)
        {
            return amount;
        }
    }
}
