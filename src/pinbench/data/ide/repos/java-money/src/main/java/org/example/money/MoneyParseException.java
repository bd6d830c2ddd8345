package org.example.money;

/**
 * Thrown when text cannot be read as an amount of money.
 */
public class MoneyParseException extends Exception {

    /** Zero-based index in the input where parsing failed. */
    private final int errorOffset;

    /**
     * Creates an exception for a parse failure at a given position.
     *
     * @param message what was wrong with the input
     * @param errorOffset zero-based index in the input where the problem was found
     * @param cause the underlying failure, such as a {@link NumberFormatException}; may be null
     */
    public MoneyParseException(String message, int errorOffset, Throwable cause) {
        super(message, cause);
        this.errorOffset = errorOffset;
    }

    /**
     * Returns the position in the input where parsing failed.
     *
     * @return the zero-based index of the offending character
     */
    public int getErrorOffset() {
        return errorOffset;
    }
}
