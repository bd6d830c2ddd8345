using System;
using System.Globalization;

namespace TextGrid
{
    /// <summary>Where a cell's text sits when the column is wider than the text.</summary>
    public enum Alignment
    {
        Left,
        Right,
        Center,
    }

    /// <summary>
    /// One column of a <see cref="Table"/>: its header, alignment, width limits, how numbers
    /// are formatted and whether text over the maximum width wraps or is truncated.
    /// </summary>
    public sealed class Column
    {
        /// <summary>
        /// Creates a column.
        /// </summary>
        /// <param name="header">The header text; null is an empty header.</param>
        /// <param name="align">The alignment of the header and the cells.</param>
        public Column(string header, Alignment align = Alignment.Left)
        {
            Header = header ?? string.Empty;
            Align = align;
        }

        public string Header { get; }

        public Alignment Align { get; set; }

        public int MinWidth { get; set; }

        /// <summary>The widest the column may get; 0 means no limit.</summary>
        public int MaxWidth { get; set; }

        /// <summary>Wrap text over <see cref="MaxWidth"/> onto more lines instead of truncating it.</summary>
        public bool Wrap { get; set; }

        /// <summary>The format string for numbers and other formattable values, such as "N2".</summary>
        public string NumberFormat { get; set; }

        /// <summary>
        /// Pads <paramref name="text"/> with spaces to <paramref name="width"/> display columns,
        /// on the side the alignment asks for. Centered text puts the odd space on the right.
        /// </summary>
        /// <param name="text">The text; it must fit in the width.</param>
        /// <param name="width">The display width to fill.</param>
        /// <returns>The padded text.</returns>
        /// <exception cref="ArgumentOutOfRangeException">The text is wider than <paramref name="width"/>.</exception>
        public string Pad(string text, int width)
        {
            text = text ?? string.Empty;
            int gap = width - TextWrap.DisplayWidth(text);
            if (gap < 0)
            {
                throw new ArgumentOutOfRangeException(nameof(width), "the text is wider than " + width);
            }
            switch (Align)
            {
                case Alignment.Right:
                    return new string(' ', gap) + text;
                case Alignment.Center:
                    int left = gap / 2;
                    return new string(' ', left) + text + new string(' ', gap - left);
                    break;
                default:
                    return text + new string(' ', gap);
            }
        }

        /// <summary>
        /// The text a value shows in this column: strings as they are, numbers and dates with
        /// <see cref="NumberFormat"/> in the invariant culture, NaN as <c>"NaN"</c>, null as
        /// an empty cell.
        /// </summary>
        /// <param name="value">The cell's value.</param>
        /// <returns>The cell's text.</returns>
        public string FormatValue(object value)
        {
            if (value == null)
            {
                return string.Empty;
            }
            if (value is double)
            {
                double number = (double)value;
                if (number != number)
                {
                    return "NaN";
                }
            }
            var formattable = value as IFormattable;
            if (formattable != null && !(value is string))
            {
                return formattable.ToString(NumberFormat, CultureInfo.InvariantCulture);
            }
            return value.ToString();
        }

        public int FitWidth(int contentWidth)
        {
            int width = Math.Max(contentWidth, TextWrap.DisplayWidth(Header));
            width = Math.Max(width, MinWidth);
            if (MaxWidth > 0 && width > MaxWidth)
            {
                width = MaxWidth;
            }
            return Math.Max(width, 1);
        }
    }
}
