using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Text;

namespace Invoicing
{
    /// <summary>
    /// Writes an invoice as CSV (RFC 4180): one row per line item, then the subtotal, the
    /// discounts, the tax of each category and the total.
    /// </summary>
    public sealed class CsvInvoiceExporter
    {
        private readonly TaxCalculator taxes;

        public CsvInvoiceExporter(TaxCalculator taxes)
        {
            if (taxes == null)
            {
                throw new ArgumentNullException(nameof(taxes));
            }
            this.taxes = taxes;
        }

        public char Separator { get; set; } = ',';

        public string NewLine { get; set; } = "\r\n";

        /// <summary>
        /// Guard against spreadsheet formula injection: text fields starting with <c>=</c>,
        /// <c>+</c>, <c>-</c> or <c>@</c> get a leading apostrophe.
        /// </summary>
        public bool ProtectFormulas { get; set; } = true;

        /// <summary>
        /// The whole invoice as CSV text, every row ended by <see cref="NewLine"/>.
        /// </summary>
        /// <param name="invoice">The invoice to export.</param>
        /// <returns>The CSV text.</returns>
        public string Export(Invoice invoice)
        {
            var writer = new StringWriter(CultureInfo.InvariantCulture);
            Write(invoice, writer);
            return writer.ToString();
        }

        /// <summary>
        /// Writes the invoice as CSV to <paramref name="writer"/>.
        /// </summary>
        /// <param name="invoice">The invoice to export.</param>
        /// <param name="writer">Where the rows go.</param>
        /// <exception cref="ArgumentNullException"><paramref name="invoice"/> or <paramref name="writer"/> is null.</exception>
        public void Write(Invoice invoice, TextWriter writer)
        {
            if (invoice == null || writer == null)
            {
                throw new ArgumentNullException(invoice == null ? nameof(invoice) : nameof(writer));
            }
            string header = "description,quantity,unit_price,tax_category,net";
            WriteRow(writer, "description", "quantity", "unit_price", "tax_category", "net");
            foreach (LineItem item in invoice.Items)
            {
                WriteRow(writer, Text(item.Description), item.Quantity.ToString(CultureInfo.InvariantCulture),
                    Number(item.UnitPrice), Text(item.TaxCategory), Number(item.Net()));
            }
            WriteRow(writer, "subtotal", "", "", "", Number(invoice.Subtotal()));
            Amount remaining = invoice.Subtotal();
            foreach (Discount discount in invoice.Discounts)
            {
                Amount reduction = discount.ApplyTo(remaining);
                remaining = remaining.Subtract(reduction);
                WriteRow(writer, Text(discount.Describe()), "", "", "", Number(reduction.Negate()));
            }
            foreach (KeyValuePair<string, Amount> tax in taxes.Breakdown(invoice))
            {
                WriteRow(writer, "tax", "", "", Text(tax.Key), Number(tax.Value));
            }
            WriteRow(writer, "total", "", "", "", Number(invoice.Total(taxes)));
        }

        /// <summary>
        /// Quotes a field when it needs it: when it holds the separator, a double quote, a
        /// line break, or starts or ends with a space. Quotes inside are doubled.
        /// </summary>
        /// <param name="field">The raw field; null is written as an empty field.</param>
        /// <param name="separator">The separator of the file.</param>
        /// <returns>The field as it goes in the row.</returns>
        public static string Escape(string field, char separator)
        {
            if (string.IsNullOrEmpty(field))
            {
                return string.Empty;
            }
            bool quote = field.IndexOf(separator) >= 0
                || field.IndexOf('"') >= 0
                || field.IndexOf('\n') >= 0
                || field.IndexOf('\r') >= 0
                || field[0] == ' '
                || field[field.Length - 1] == ' ';
            if (!quote)
            {
                return field;
            }
            return "\"" + field.Replace("\"", "\"\"") + "\"";
        }

        private void WriteRow(TextWriter writer, params string[] fields)
        {
            var row = new StringBuilder();
            for (int i = 0; i < fields.Length; i++)
            {
                if (i > 0)
                {
                    row.Append(Separator);
                }
                row.Append(Escape(fields[i], Separator));
            }
            writer.Write(row.ToString());
            writer.Write(NewLine);
        }

        private string Text(string value)
        {
            if (ProtectFormulas && value.Length > 0 && "=+-@".IndexOf(value[0]) >= 0)
            {
                return "'" + value;
            }
            return value;
        }

        private static string Number(Amount amount)
        {
            int digits = Currencies.MinorDigits(amount.Currency);
            return amount.Round().Value.ToString("F" + digits, CultureInfo.InvariantCulture);
        }
    }
}
