using System;
using System.Globalization;
using System.Linq;

namespace Invoicing
{
    /// <summary>
    /// Issues consecutive invoice numbers such as <c>INV-2024-0001</c>: a prefix, the year of
    /// the issue date and a sequence that starts again at 1 every year.
    /// </summary>
    public sealed class InvoiceNumberGenerator
    {
        private readonly string prefix;
        private readonly int digits;
        private int year;
        private int sequence;
        private bool started;

        /// <summary>
        /// Creates a generator that has issued nothing yet.
        /// </summary>
        /// <param name="prefix">Letters before the year, such as <c>"INV"</c>.</param>
        /// <param name="digits">Minimum digits of the sequence, zero-padded, from 1 to 9.</param>
        /// <exception cref="ArgumentException"><paramref name="prefix"/> is empty or not letters.</exception>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="digits"/> is out of range.</exception>
        public InvoiceNumberGenerator(string prefix = "INV", int digits = 4)
        {
            if (string.IsNullOrEmpty(prefix) || !prefix.All(char.IsLetter))
            {
                throw new ArgumentException("the prefix must be letters only", nameof(prefix));
            }
            if (digits < 1 || digits > 9)
            {
                throw new ArgumentOutOfRangeException(nameof(digits), "from 1 to 9 digits");
            }
            this.prefix = prefix.ToUpperInvariant();
            this.digits = digits;
        }

        /// <summary>
        /// The next number for an invoice issued on <paramref name="date"/>. A date in a later
        /// year than the last number restarts the sequence at 1.
        /// </summary>
        /// <param name="date">The issue date.</param>
        /// <returns>The number, such as <c>"INV-2024-0007"</c>.</returns>
        /// <exception cref="InvalidOperationException">The date is in a year before the last number's.</exception>
        public string Next(DateTime date)
        {
            if (date.Year < year)
            {
                throw new InvalidOperationException(
                    "cannot issue a number for " + date.Year + " after one for " + year);
            }
            if (date.Year > year)
            {
                year = date.Year;
                sequence = 0;
            }
            sequence++;
            started = true;
            return Format(prefix, year, sequence, digits);
        }

        public static string Format(string prefix, int year, int sequence, int digits)
        {
            string padded = sequence.ToString(CultureInfo.InvariantCulture).PadLeft(digits, '0');
            return prefix + "-" + year.ToString("D4", CultureInfo.InvariantCulture) + "-" + padded;
        }

        /// <summary>
        /// Continues after an already issued number: the next number of the same year has the
        /// sequence after it.
        /// </summary>
        /// <param name="lastIssued">The last number issued, such as <c>"INV-2024-0041"</c>.</param>
        /// <exception cref="FormatException">The number is not this generator's format.</exception>
        public void ResumeAfter(string lastIssued)
        {
            int parsedYear;
            int parsedSequence;
            if (!TryParse(lastIssued, prefix, out parsedYear, out parsedSequence))
            {
                throw new FormatException("not a " + prefix + " invoice number: '" + lastIssued + "'");
            }
            year = parsedYear;
            sequence = parsedSequence;
        }

        public static bool TryParse(string number, string prefix, out int year, out int sequence)
        {
            year = 0;
            sequence = 0;
            if (number == null)
            {
                return false;
            }
            string[] parts = number.Split('-');
            if (parts.Length != 3 || !string.Equals(parts[0], prefix, StringComparison.OrdinalIgnoreCase)
                || parts[1].Length != 4 || !IsDigits(parts[1]) || !IsDigits(parts[2]))
            {
                return false;
            }
            year = int.Parse(parts[1], CultureInfo.InvariantCulture);
            try
            {
                sequence = int.Parse(parts[2], CultureInfo.InvariantCulture);
            }
            catch (OverflowException tooLarge)
            {
                return false;
            }
            return sequence > 0;
        }

        private static bool IsDigits(string text)
        {
            if (text.Length == 0)
            {
                return false;
            }
            foreach (char c in text)
            {
                if (c < '0' || c > '9')
                {
                    return false;
                }
            }
            return true;
        }
    }
}
