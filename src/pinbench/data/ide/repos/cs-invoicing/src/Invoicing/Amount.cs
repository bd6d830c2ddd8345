using System;
using System.Collections.Generic;
using System.Globalization;

namespace Invoicing
{
    /// <summary>
    /// An exact amount of money in one currency. Arithmetic keeps full decimal precision;
    /// <see cref="Round"/> brings the value to the currency's minor unit.
    /// </summary>
    public struct Amount : IEquatable<Amount>, IComparable<Amount>
    {
        private readonly decimal value;
        private readonly string currency;

        /// <summary>
        /// Creates an amount of <paramref name="value"/> in <paramref name="currency"/>.
        /// </summary>
        /// <param name="value">The amount, in major units (12.50 for twelve dollars fifty).</param>
        /// <param name="currency">An ISO 4217 code known to <see cref="Currencies"/>.</param>
        public Amount(decimal value, string currency)
        {
            this.value = value;
            this.currency = Currencies.Normalize(currency);
        }

        public decimal Value => value;

        public string Currency => currency;

        public bool IsZero => value == 0m;

        public bool IsNegative => value < 0m;

        public static Amount Zero(string currency)
        {
            return new Amount(0m, currency);
        }

        /// <summary>
        /// The sum of this amount and <paramref name="other"/>.
        /// </summary>
        /// <param name="other">An amount in the same currency.</param>
        /// <returns>The exact sum, not rounded.</returns>
        public Amount Add(Amount other)
        {
            CheckSameCurrency(other);
            return new Amount(value + other.value, currency);
        }

        public Amount Subtract(Amount other)
        {
            CheckSameCurrency(other);
            return new Amount(value - other.value, currency);
        }

        public Amount Multiply(decimal factor)
        {
            return new Amount(value * factor, currency);
        }

        /// <summary>
        /// The given percentage of this amount, such as 19 percent of a net price.
        /// </summary>
        /// <param name="percent">The percentage: 19 for nineteen percent.</param>
        /// <returns>The exact share, not rounded.</returns>
        public Amount Percent(decimal percent)
        {
            return new Amount(value * percent / 100m, currency);
        }

        public Amount Negate()
        {
            return new Amount(-value, currency);
        }

        /// <summary>
        /// Rounds to the currency's minor unit, half away from zero (0.125 USD is 0.13 USD).
        /// </summary>
        /// <returns>The rounded amount.</returns>
        public Amount Round()
        {
            int digits = Currencies.MinorDigits(currency);
            return new Amount(Math.Round(value, digits, MidpointRounding.AwayFromZero), currency);
        }

        /// <summary>
        /// Splits the rounded amount into equal parts that add up to it exactly; the minor units
        /// left over go one each to the first parts (10.00 in three is 3.34, 3.33, 3.33).
        /// </summary>
        /// <param name="parts">How many parts, at least one.</param>
        /// <returns>The parts, largest first.</returns>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="parts"/> is below one.</exception>
        public Amount[] Allocate(int parts)
        {
            if (parts < 1)
            {
                throw new ArgumentOutOfRangeException(nameof(parts), "at least one part is needed");
            }
            decimal unit = MinorUnit();
            decimal minor = Round().value / unit;
            decimal share = decimal.Truncate(minor / parts);
            decimal remainder = minor - share * parts;
            var result = new Amount[parts];
            for (int i = 0; i < parts; i++)
            {
                decimal extra = Math.Sign(remainder) * (i < Math.Abs(remainder) ? 1m : 0m);
                result[i] = new Amount((share + extra) * unit, currency);
            }
            return result;
        }

        public static Amount Sum(IEnumerable<Amount> amounts, string currency)
        {
            Amount total = Zero(currency);
            foreach (Amount amount in amounts)
            {
                total = total.Add(amount);
            }
            return total;
        }

        /// <summary>
        /// Reads text such as <c>"USD 12.50"</c> or <c>"EUR -3"</c>: a currency code, one space
        /// and an invariant-culture number.
        /// </summary>
        /// <param name="text">The text to read.</param>
        /// <returns>The amount, exactly as written.</returns>
        /// <exception cref="ArgumentNullException"><paramref name="text"/> is null.</exception>
        /// <exception cref="FormatException">The text is not a code and a number.</exception>
        public static Amount Parse(string text)
        {
            if (text == null)
            {
                throw new ArgumentNullException(nameof(text));
            }
            string[] parts = text.Trim().Split(' ');
            decimal parsed;
            if (parts.Length != 2
                || !decimal.TryParse(parts[1], NumberStyles.Number, CultureInfo.InvariantCulture, out parsed))
            {
                throw new FormatException("expected a currency code and an amount: '" + text + "'");
            }
            if (!Currencies.IsKnown(parts[0]))
            {
                throw new FormatException("unknown currency in '" + text + "'");
            }
            return new Amount(parsed, parts[0]);
        }

        public int CompareTo(Amount other)
        {
            CheckSameCurrency(other);
            return value.CompareTo(other.value);
        }

        public bool Equals(Amount other)
        {
            return value == other.value && Currency == other.Currency;
        }

        public override bool Equals(object obj)
        {
            return obj is Amount && Equals((Amount)obj);
        }

        public override int GetHashCode()
        {
            return value.GetHashCode() * 31 + (currency ?? string.Empty).GetHashCode();
        }

        /// <summary>
        /// The code and the value with the currency's minor digits, such as <c>"USD 1234.50"</c>.
        /// </summary>
        /// <returns>The invariant-culture text that <see cref="Parse"/> reads back.</returns>
        public override string ToString()
        {
            int digits = currency == null ? 2 : Currencies.MinorDigits(currency);
            string number = Math.Round(value, digits, MidpointRounding.AwayFromZero)
                .ToString("F" + digits, CultureInfo.InvariantCulture);
            return (currency ?? "XXX") + " " + number;
        }

        public static bool operator ==(Amount left, Amount right)
        {
            return left.Equals(right);
        }

        public static bool operator !=(Amount left, Amount right)
        {
            return !left.Equals(right);
        }

        private decimal MinorUnit()
        {
            int digits = Currencies.MinorDigits(currency);
            decimal unit = 1m;
            for (int i = 0; i < digits; i++)
            {
                unit /= 10m;
            }
            return unit;
        }

        private void CheckSameCurrency(Amount other)
        {
            if (Currency != other.Currency)
            {
                throw new ArgumentException(
                    "cannot combine " + Currency + " with " + other.Currency, nameof(other));
            }
        }
    }
}
