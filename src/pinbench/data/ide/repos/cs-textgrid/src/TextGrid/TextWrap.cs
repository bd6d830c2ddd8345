using System;
using System.Collections.Generic;
using System.Text;

namespace TextGrid
{
    /// <summary>
    /// Measuring, wrapping and truncating text by its display width in a terminal: East Asian
    /// wide characters take two columns, combining marks and ANSI escapes none.
    /// </summary>
    public static class TextWrap
    {
        /// <summary>
        /// Wraps text into lines at most <paramref name="width"/> columns wide. Line breaks in
        /// the text are kept, words are separated by single spaces, and a word wider than the
        /// width is broken across lines.
        /// </summary>
        /// <param name="text">The text; null is treated as empty.</param>
        /// <param name="width">The widest a line may be, at least 1.</param>
        /// <returns>The lines, at least one (an empty text gives one empty line).</returns>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="width"/> is below 1.</exception>
        public static List<string> Wrap(string text, int width)
        {
            if (width < 1)
            {
                throw new ArgumentOutOfRangeException(nameof(width), "the width must be at least 1");
            }
            var lines = new List<string>();
            string normalized = (text ?? string.Empty).Replace("\r\n", "\n");
            foreach (string paragraph in normalized.Split('\n'))
            {
                WrapParagraph(paragraph, width, lines);
            }
            return lines;
        }

        private static void WrapParagraph(string paragraph, int width, List<string> lines)
        {
            var line = new StringBuilder();
            int lineWidth = 0;
            int lastSpace;
            foreach (string word in paragraph.Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries))
            {
                int wordWidth = DisplayWidth(word);
                if (lineWidth > 0 && lineWidth + 1 + wordWidth <= width)
                {
                    line.Append(' ').Append(word);
                    lineWidth += 1 + wordWidth;
                    continue;
                }
                if (lineWidth > 0)
                {
                    lines.Add(line.ToString());
                    line.Clear();
                    lineWidth = 0;
                }
                string rest = word;
                while (DisplayWidth(rest) > width)
                {
                    string head = TakeColumns(rest, width);
                    if (head.Length == 0)
                    {
                        head = rest.Substring(0, char.IsHighSurrogate(rest[0]) && rest.Length > 1 ? 2 : 1);
                    }
                    lines.Add(head);
                    rest = rest.Substring(head.Length);
                }
                line.Append(rest);
                lineWidth = DisplayWidth(rest);
            }
            lines.Add(line.ToString());
        }

        /// <summary>
        /// Shortens text to at most <paramref name="width"/> columns, ending it with
        /// <paramref name="ellipsis"/> when something was cut.
        /// </summary>
        /// <param name="text">The text to shorten.</param>
        /// <param name="width">The widest the result may be.</param>
        /// <param name="ellipsis">What marks the cut; it is cut too when wider than the width.</param>
        /// <returns>The text itself when it fits, else its start and the ellipsis.</returns>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="width"/> is negative.</exception>
        public static string Truncate(string text, int width, string ellipsis = "...")
        {
            if (width < 0)
            {
                throw new ArgumentOutOfRangeException(nameof(width), "the width is not negative");
            }
            text = text ?? string.Empty;
            if (DisplayWidth(text) <= width)
            {
                return text;
            }
            ellipsis = ellipsis ?? string.Empty;
            int ellipsisWidth = DisplayWidth(ellipsis);
            if (ellipsisWidth >= width)
            {
                return TakeColumns(ellipsis, width);
            }
            return TakeColumns(text, width - ellipsisWidth) + ellipsis;
        }

        public static int DisplayWidth(string text)
        {
            if (string.IsNullOrEmpty(text))
            {
                return 0;
            }
            string plain = Ansi.Strip(text);
            int width = 0;
            for (int i = 0; i < plain.Length; i++)
            {
                if (char.IsHighSurrogate(plain[i]) && i + 1 < plain.Length && char.IsLowSurrogate(plain[i + 1]))
                {
                    width += 2;
                    i++;
                    continue;
                }
                width += CharWidth(plain[i]);
            }
            return width;
        }

        /// <summary>
        /// The columns one character takes: 0 for control characters and combining marks, 2 for
        /// wide and fullwidth characters (<c>Generated/WideChars.g.cs</c>), else 1.
        /// </summary>
        /// <param name="c">The character.</param>
        /// <returns>0, 1 or 2.</returns>
        public static int CharWidth(char c)
        {
            if (c < 0x20 || (c >= 0x7F && c < 0xA0) || (c >= 0x0300 && c <= 0x036F) || c == '\u200B')
            {
                return 0;
            }
            int[] ranges = WideChars.Ranges;
            int low = 0;
            int high = ranges.Length / 2 - 1;
            while (low <= high)
            {
                int middle = (low + high) / 2;
                if (c < ranges[2 * middle])
                {
                    high = middle - 1;
                }
                else if (c > ranges[2 * middle + 1])
                {
                    low = middle + 1;
                }
                else
                {
                    return 2;
                }
            }
            return 1;
        }

        private static string TakeColumns(string text, int columns)
        {
            int taken = 0;
            int end = 0;
            while (end < text.Length)
            {
                bool pair = char.IsHighSurrogate(text[end]) && end + 1 < text.Length;
                int width = pair ? 2 : CharWidth(text[end]);
                if (taken + width > columns)
                {
                    break;
                }
                taken += width;
                end += pair ? 2 : 1;
            }
            return text.Substring(0, end);
        }
    }
}
