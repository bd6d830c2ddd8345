using System;
using System.Collections.Generic;
using System.Text;

namespace TextGrid
{
    /// <summary>
    /// A table of text rendered for a terminal: a header row, rows of cells, and borders drawn
    /// with a <see cref="BorderStyle"/>. Cells may hold several lines.
    /// </summary>
    public sealed class Table
    {
        private readonly List<Column> columns = new List<Column>();
        private readonly List<string[]> rows = new List<string[]>();

        /// <summary>
        /// Creates a table with one left-aligned column per header.
        /// </summary>
        /// <param name="headers">The column headers, at least one.</param>
        /// <exception cref="ArgumentException">No header is given.</exception>
        public Table(params string[] headers)
        {
            if (headers == null || headers.Length == 0)
            {
                throw new ArgumentException("a table needs at least one column", nameof(headers));
            }
            foreach (string header in headers)
            {
                columns.Add(new Column(header));
            }
        }

        public IReadOnlyList<Column> Columns => columns;

        public int RowCount => rows.Count;

        public BorderStyle Border { get; set; } = BorderStyle.Ascii;

        public bool ShowHeader { get; set; } = true;

        /// <summary>
        /// Adds a row. Each value is turned into text by its column's
        /// <see cref="Column.FormatValue"/>; missing trailing cells are empty.
        /// </summary>
        /// <param name="cells">The row's values, one per column at most.</param>
        /// <returns>This table, to chain calls.</returns>
        /// <exception cref="ArgumentException">There are more cells than columns.</exception>
        public Table AddRow(params object[] cells)
        {
            cells = cells ?? new object[] { null };
            if (cells.Length > columns.Count)
            {
                throw new ArgumentException(
                    "the row has " + cells.Length + " cells for " + columns.Count + " columns", nameof(cells));
            }
            var row = new string[columns.Count];
            for (int i = 0; i < row.Length; i++)
            {
                row[i] = i < cells.Length ? columns[i].FormatValue(cells[i]) : string.Empty;
            }
            rows.Add(row);
            return this;
        }

        public int[] ComputeWidths()
        {
            var widths = new int[columns.Count];
            for (int i = 0; i < columns.Count; i++)
            {
                int widest = 0;
                foreach (string[] row in rows)
                {
                    foreach (string line in row[i].Split('\n'))
                    {
                        widest = Math.Max(widest, TextWrap.DisplayWidth(line));
                    }
                }
                widths[i] = columns[i].FitWidth(widest);
            }
            return widths;
        }

        /// <summary>
        /// Renders the table: a rule, the header, a header rule, the rows and a closing rule,
        /// every line ended by <c>\n</c>. Cells wider than their column wrap or are truncated.
        /// </summary>
        /// <returns>The rendered table.</returns>
        public string Render()
        {
            int[] widths = ComputeWidths();
            var output = new StringBuilder();
            AppendRule(output, widths, Border.Horizontal);
            if (ShowHeader)
            {
                var headers = new string[columns.Count];
                for (int i = 0; i < headers.Length; i++)
                {
                    headers[i] = columns[i].Header;
                }
                AppendRow(output, headers, widths);
                AppendRule(output, widths, Border.HeaderRule);
            }
            foreach (string[] row in rows)
            {
                AppendRow(output, row, widths);
            }
            if (rows.Count > 0 || !ShowHeader)
            {
                AppendRule(output, widths, Border.Horizontal);
            }
            return output.ToString();
        }

        public static Table FromCsv(string csv, char separator = ',')
        {
            List<string[]> records = CsvReader.Parse(csv, separator);
            if (records.Count == 0)
            {
                throw new ArgumentException("the CSV text has no header record", nameof(csv));
            }
            var table = new Table(records[0]);
            for (int i = 1; i < records.Count; i++)
            {
                table.AddRow(records[i]);
            }
            return table;
        }

        public override string ToString()
        {
            return Render();
        }

        private void AppendRule(StringBuilder output, int[] widths, char fill)
        {
            if (!Border.Outer)
            {
                return;
            }
            output.Append(Border.Corner);
            foreach (int width in widths)
            {
                output.Append(fill, width + 2).Append(Border.Corner);
            }
            output.Append('\n');
        }

        private void AppendRow(StringBuilder output, string[] cells, int[] widths)
        {
            var lines = new List<string>[cells.Length];
            int height = 1;
            for (int i = 0; i < cells.Length; i++)
            {
                lines[i] = CellLines(columns[i], cells[i], widths[i]);
                height = Math.Max(height, lines[i].Count);
            }
            for (int row = 0; row < height; row++)
            {
                var line = new StringBuilder();
                for (int i = 0; i < cells.Length; i++)
                {
                    string text = row < lines[i].Count ? lines[i][row] : string.Empty;
                    line.Append(Border.Outer ? Border.Vertical + " " : (i > 0 ? "  " : string.Empty));
                    line.Append(columns[i].Pad(text, widths[i]));
                    line.Append(Border.Outer ? " " : string.Empty);
                }
                if (Border.Outer)
                {
                    line.Append(Border.Vertical);
                }
                output.Append(Border.Outer ? line.ToString() : line.ToString().TrimEnd()).Append('\n');
            }
        }

        private static List<string> CellLines(Column column, string text, int width)
        {
            var lines = new List<string>();
            foreach (string line in text.Split('\n'))
            {
                if (column.Wrap)
                {
                    lines.AddRange(TextWrap.Wrap(line, width));
                }
                else
                {
                    lines.Add(TextWrap.Truncate(line, width));
                }
            }
            return lines;
        }
    }
}
