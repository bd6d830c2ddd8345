using System;
using System.Globalization;
using System.Text;

namespace TextGrid
{
    /// <summary>
    /// ANSI terminal escape sequences: colouring text with SGR codes, and removing every escape
    /// sequence so that text can be measured.
    /// </summary>
    public static class Ansi
    {
        public const char Escape = '\u001B';

        public const string Reset = "\u001B[0m";

        /// <summary>
        /// Removes the escape sequences from text: CSI sequences (<c>ESC [</c> parameters and
        /// one final byte, such as colours and cursor moves), OSC sequences (<c>ESC ]</c> up to
        /// BEL or <c>ESC \</c>, such as hyperlinks and window titles) and two-character escapes.
        /// </summary>
        /// <param name="text">The text; null gives an empty string.</param>
        /// <returns>The text without escape sequences.</returns>
        public static string Strip(string text)
        {
            if (string.IsNullOrEmpty(text) || text.IndexOf(Escape) < 0)
            {
                return text ?? string.Empty;
            }
            char bell = '\a';
            var plain = new StringBuilder(text.Length);
            int i = 0;
            while (i < text.Length)
            {
                if (text[i] != Escape)
                {
                    plain.Append(text[i]);
                    i++;
                }
                else if (i + 1 < text.Length && text[i + 1] == '[')
                {
                    i = SkipCsi(text, i + 2);
                }
                else if (i + 1 < text.Length && text[i + 1] == ']')
                {
                    i = SkipOsc(text, i + 2);
                }
                else
                {
                    i += 2;
                }
            }
            return plain.ToString();
        }

        public static bool HasEscapes(string text)
        {
            return text != null && text.IndexOf(Escape) >= 0;
        }

        /// <summary>
        /// Wraps text in an SGR sequence and a reset, such as <c>ESC[31m</c>text<c>ESC[0m</c>
        /// for red.
        /// </summary>
        /// <param name="text">The text to colour.</param>
        /// <param name="sgrCode">The SGR code: 1 bold, 30-37 and 90-97 foreground, 40-47 background.</param>
        /// <returns>The coloured text.</returns>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="sgrCode"/> is not between 0 and 107.</exception>
        public static string Colorize(string text, int sgrCode)
        {
            if (sgrCode < 0 || sgrCode > 107)
            {
                throw new ArgumentOutOfRangeException(nameof(sgrCode), "SGR codes are from 0 to 107");
            }
            string code = sgrCode.ToString(CultureInfo.InvariantCulture);
            return Escape + "[" + code + "m" + text + Reset;
        }

        private static int SkipCsi(string text, int start)
        {
            int i = start;
            while (i < text.Length && (text[i] < '@' || text[i] > '~'))
            {
                i++;
            }
            return Math.Min(i + 1, text.Length);
        }

        private static int SkipOsc(string text, int start)
        {
            int i = start;
            while (i < text.Length)
            {
                if (text[i] == '\u0007')
                {
                    return i + 1;
                }
                if (text[i] == Escape && i + 1 < text.Length && text[i + 1] == '\\')
                {
                    return i + 2;
                }
                i++;
            }
            return text.Length;
        }
    }
}
