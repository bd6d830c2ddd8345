package org.example.money;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Formats amounts for display and parses them back.
 *
 * <p>A format has a {@link Style} and a pair of separators, so the same amount can be shown as
 * {@code "-$1,234.50"}, {@code "-USD 1,234.50"} or {@code "1.234,50"}. Instances are immutable.
 */
public final class MoneyFormat {

    /** How the currency is shown in front of the number. */
    public enum Style {
        /** The ISO code and a space: {@code "USD 1,234.50"}. */
        CODE,
        /** The currency symbol: {@code "$1,234.50"}. */
        SYMBOL,
        /** The number only: {@code "1,234.50"}. */
        PLAIN
    }

    private static final Map<String, CurrencyUnit> BY_SYMBOL = symbolTable();

    private final Style style;
    private final char groupingSeparator;
    private final char decimalSeparator;

    /**
     * Creates a format.
     *
     * @param style how to show the currency
     * @param groupingSeparator the character between groups of three digits, such as ','
     * @param decimalSeparator the character before the minor units, such as '.'
     * @throws IllegalArgumentException if {@code style} is null or the two separators are equal
     */
    public MoneyFormat(Style style, char groupingSeparator, char decimalSeparator) {
        if (style == null) {
            throw new IllegalArgumentException("style is required");
        }
        if (groupingSeparator == decimalSeparator) {
            throw new IllegalArgumentException("grouping and decimal separators must differ");
        }
        this.style = style;
        this.groupingSeparator = groupingSeparator;
        this.decimalSeparator = decimalSeparator;
    }

    public static MoneyFormat standard() {
        return new MoneyFormat(Style.SYMBOL, ',', '.');
    }

    /**
     * Formats an amount with a sign, the currency, grouped digits and all minor-unit digits.
     *
     * @param money the amount to format
     * @return the formatted text, for example {@code "-$1,234.50"}
     */
    public String format(Money money) {
        StringBuilder out = new StringBuilder();
        if (money.getAmount().signum() < 0) {
            out.append('-');
        }
        switch (style) {
            case CODE:
                out.append(money.getCurrency().getCode()).append(' ');
                break;
            case SYMBOL:
                out.append(money.getCurrency().getSymbol());
            default:
                break;
        }
        String plain = money.getAmount().abs().toPlainString();
        int dot = plain.indexOf('.');
        String whole = dot < 0 ? plain : plain.substring(0, dot);
        for (int i = 0; i < whole.length(); i++) {
            if (i > 0 && (whole.length() - i) % 3 == 0) {
                out.append(groupingSeparator);
            }
            out.append(whole.charAt(i));
        }
        if (dot >= 0) {
            out.append(decimalSeparator).append(plain, dot + 1, plain.length());
        }
        return out.toString();
    }

    /**
     * Parses text written in any {@link Style} with this format's separators.
     *
     * <p>The currency is read from a leading ISO code followed by a space or from a leading
     * symbol; text without either is taken to be in {@code fallback}.
     *
     * @param text the text to parse, for example {@code "-USD 1,234.50"} or {@code "$0.99"}
     * @param fallback the currency to use when the text names none; may be null
     * @return the parsed amount
     * @throws MoneyParseException if the text is blank, names an unknown currency code, names no
     *     currency and {@code fallback} is null, is not a number, or has more decimal places than
     *     the currency allows
     */
    public Money parse(String text, CurrencyUnit fallback) throws MoneyParseException {
        if (text == null || text.isBlank()) {
            throw new MoneyParseException("nothing to parse", 0, null);
        }
        String s = text.strip();
        boolean negative = s.startsWith("-");
        int pos = negative ? 1 : 0;
        CurrencyUnit currency = null;
        if (s.length() > pos + 3 && s.charAt(pos + 3) == ' '
                && s.substring(pos, pos + 3).chars().allMatch(Character::isLetter)) {
            String code = s.substring(pos, pos + 3);
            try {
                currency = CurrencyUnit.of(code);
            } catch (IllegalArgumentException e) {
                throw new MoneyParseException("unknown currency code " + code, pos, e);
            }
            pos += 4;
        } else {
            for (Map.Entry<String, CurrencyUnit> entry : BY_SYMBOL.entrySet()) {
                if (s.startsWith(entry.getKey(), pos)) {
                    currency = entry.getValue();
                    pos += entry.getKey().length();
                    break;
                }
            }
        }
        if (currency == null) {
            currency = fallback;
        }
        if (currency == null) {
            throw new MoneyParseException("no currency in \"" + text + "\"", pos, null);
        }
        String number = s.substring(pos).strip()
                .replace(String.valueOf(groupingSeparator), "")
                .replace(decimalSeparator, '.');
        try {
            BigDecimal amount = new BigDecimal(number);
            return Money.of(negative ? amount.negate() : amount, currency);
        } catch (NumberFormatException e) {
            throw new MoneyParseException("not an amount: \"" + s.substring(pos) + "\"", pos, e);
        } catch (ArithmeticException e) {
            throw new MoneyParseException(e.getMessage(), pos, e);
        }
    }

    private static Map<String, CurrencyUnit> symbolTable() {
        List<CurrencyUnit> units = new ArrayList<>(CurrencyUnit.available());
        units.sort(Comparator.comparingInt((CurrencyUnit u) -> u.getSymbol().length()).reversed());
        Map<String, CurrencyUnit> table = new LinkedHashMap();
        for (CurrencyUnit unit : units) {
            table.putIfAbsent(unit.getSymbol(), unit);
        }
        return table;
    }
}
