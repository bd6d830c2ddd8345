using System;
using System.Collections.Generic;
using System.IO;
using System.Text;

namespace TextGrid
{
    /// <summary>Malformed CSV, with the line where the problem was found.</summary>
    public sealed class CsvFormatException : FormatException
    {
        public CsvFormatException(string message, int line)
            : base(message + " (line " + line + ")")
        {
            Line = line;
        }

        public new int Line { get; }
    }

    /// <summary>
    /// Reads CSV records (RFC 4180) one at a time: fields in double quotes may hold the
    /// separator, line breaks and doubled quotes; lines may end with LF or CRLF.
    /// </summary>
    public sealed class CsvReader
    {
        private readonly TextReader reader;
        private readonly char separator;
        private int line = 1;
        private int fieldCount;

        /// <summary>
        /// Creates a reader over <paramref name="reader"/>.
        /// </summary>
        /// <param name="reader">Where the CSV text comes from.</param>
        /// <param name="separator">The field separator, such as ',' or ';'.</param>
        /// <exception cref="ArgumentNullException"><paramref name="reader"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="separator"/> is a quote or a line break.</exception>
        public CsvReader(TextReader reader, char separator = ',')
        {
            if (reader == null)
            {
                throw new ArgumentNullException(nameof(reader));
            }
            if (separator == '"' || separator == '\r' || separator == '\n')
            {
                throw new ArgumentException("the separator cannot be a quote or a line break", nameof(separator));
            }
            this.reader = reader;
            this.separator = separator;
        }

        /// <summary>The line the next record starts on, counting from 1.</summary>
        public int LineNumber => line;

        /// <summary>
        /// Reads the next record.
        /// </summary>
        /// <returns>The record's fields, or null at the end of the input.</returns>
        /// <exception cref="CsvFormatException">A quoted field is not closed, or text follows its closing quote.</exception>
        public string[] ReadRecord()
        {
            if (reader.Peek() < 0)
            {
                return null;
            }
            var fields = new List<string>();
            var field = new StringBuilder();
            int startLine = line;
            while (true)
            {
                int next = reader.Read();
                if (next == '"' && field.Length == 0)
                {
                    ReadQuoted(field, startLine);
                    next = reader.Read();
                    if (next >= 0 && next != separator && next != '\r' && next != '\n')
                    {
                        throw new CsvFormatException("text after a closing quote", line);
                    }
                }
                if (next == '\r')
                {
                    next = '\n';
                    if (reader.Peek() == '\n')
                    {
                        reader.Read();
                    }
                }
                if (next < 0 || next == '\n')
                {
                    fields.Add(field.ToString());
                    if (next >= 0)
                    {
                        line++;
                    }
                    return fields.ToArray();
                }
                if (next == separator)
                {
                    fields.Add(field.ToString());
                    field.Clear();
                    continue;
                }
                field.Append((char)next);
            }
        }

        public List<string[]> ReadAll()
        {
            var records = new List<string[]>();
            string[] record;
            while ((record = ReadRecord()) != null)
            {
                records.Add(record);
            }
            return records;
        }

        public static List<string[]> Parse(string text, char separator = ',')
        {
            using (var input = new StringReader(text ?? string.Empty))
            {
                return new CsvReader(input, separator).ReadAll();
            }
        }

        private void ReadQuoted(StringBuilder field, int startLine)
        {
            while (true)
            {
                int next = reader.Read();
                if (next < 0)
                {
                    throw new CsvFormatException("quoted field is not closed", startLine);
                }
                if (next == '"')
                {
                    if (reader.Peek() != '"')
                    {
                        return;
                    }
                    reader.Read();
                }
                else if (next == '\n')
                {
                    line++;
                }
                field.Append((char)next);
            }
        }
    }
}
