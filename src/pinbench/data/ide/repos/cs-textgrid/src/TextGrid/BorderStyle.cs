namespace TextGrid
{
    /// <summary>The characters a <see cref="Table"/> draws its borders and rules with.</summary>
    public sealed class BorderStyle
    {
        /// <summary><c>+----+</c> corners, <c>-</c> rules and <c>|</c> sides.</summary>
        public static readonly BorderStyle Ascii = new BorderStyle('+', '-', '|', '=');

        /// <summary>No frame and no rules: columns separated by two spaces.</summary>
        public static readonly BorderStyle None = new BorderStyle(' ', ' ', ' ', ' ') { Outer = false };

        public BorderStyle(char corner, char horizontal, char vertical, char headerRule)
        {
            Corner = corner;
            Horizontal = horizontal;
            Vertical = vertical;
            HeaderRule = headerRule;
            Outer = true;
        }

        public char Corner { get; }

        public char Horizontal { get; }

        public char Vertical { get; }

        /// <summary>The character of the rule between the header and the first row.</summary>
        public char HeaderRule { get; }

        /// <summary>Whether the table has a frame and rules, or only column separators.</summary>
        public bool Outer { get; private set; }
    }
}
