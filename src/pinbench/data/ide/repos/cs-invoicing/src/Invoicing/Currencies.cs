using System;

namespace Invoicing
{
    /// <summary>
    /// Lookups in the ISO 4217 table of <c>Generated/CurrencyTable.g.cs</c>: whether a code is
    /// known, its number of minor digits and its display symbol.
    /// </summary>
    public static class Currencies
    {
        /// <summary>
        /// Canonical form of a currency code: trimmed and upper case, checked against the table.
        /// </summary>
        /// <param name="code">A code such as <c>"usd"</c> or <c>" EUR "</c>.</param>
        /// <returns>The code as the table spells it, such as <c>"USD"</c>.</returns>
        /// <exception cref="ArgumentNullException"><paramref name="code"/> is null.</exception>
        /// <exception cref="ArgumentException">The code is not in the table.</exception>
        public static string Normalize(string code)
        {
            if (code == null)
            {
                throw new ArgumentNullException(nameof(code));
            }
            string canonical = code.Trim().ToUpperInvariant();
            if (IndexOf(canonical) < 0)
            {
                throw new ArgumentException("unknown currency code '" + code + "'", nameof(code));
            }
            return canonical;
        }

        public static bool IsKnown(string code)
        {
            if (code == null)
            {
                return false;
            }
            return IndexOf(code.Trim().ToUpperInvariant()) >= 0;
        }

        /// <summary>
        /// Number of digits after the decimal point in the currency's minor unit.
        /// </summary>
        /// <param name="code">A currency code, in any case.</param>
        /// <returns>2 for USD, 0 for JPY, 3 for KWD.</returns>
        public static int MinorDigits(string code)
        {
            return CurrencyTable.MinorDigits[IndexOf(Normalize(code))];
        }

        public static string Symbol(string code)
        {
            return CurrencyTable.Symbols[IndexOf(Normalize(code))];
        }

        private static int IndexOf(string canonical)
        {
            return Array.BinarySearch(CurrencyTable.Codes, canonical, StringComparer.Ordinal);
        }
    }
}
