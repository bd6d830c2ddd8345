package org.example.money;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An ISO 4217 currency: its alphabetic code, number of minor-unit digits and display symbol.
 *
 * <p>Instances are canonical: there is exactly one {@code CurrencyUnit} per code, so two units
 * are equal exactly when they are the same object.
 */
public final class CurrencyUnit implements Comparable<CurrencyUnit> {

    private static final Map<String, CurrencyUnit> BY_CODE = new LinkedHashMap<>();

    static {
        for (String[] row : CurrencyData.CURRENCIES) {
            CurrencyUnit unit = new CurrencyUnit(row[0], Integer.parseInt(row[2]), row[3]);
            BY_CODE.put(unit.code, unit);
        }
    }

    /** United States dollar. */
    public static final CurrencyUnit USD = of("USD");
    /** Euro. */
    public static final CurrencyUnit EUR = of("EUR");
    /** Japanese yen, which has no minor unit. */
    public static final CurrencyUnit JPY = of("JPY");

    private final String code;
    private final int fractionDigits;
    private final String symbol;

    private CurrencyUnit(String code, int fractionDigits, String symbol) {
        this.code = code;
        this.fractionDigits = fractionDigits;
        this.symbol = symbol;
    }

    /**
     * Looks up a currency by its ISO 4217 alphabetic code.
     *
     * @param code a three-letter code such as {@code "USD"}; case does not matter
     * @return the canonical unit for that code
     * @throws IllegalArgumentException if {@code code} is null or not a known currency
     */
    public static CurrencyUnit of(String code) {
        if (code == null) {
            throw new IllegalArgumentException("currency code is null");
        }
        CurrencyUnit unit = BY_CODE.get(code.trim().toUpperCase(Locale.ROOT));
        if (unit == null) {
            throw new IllegalArgumentException("unknown currency: " + code);
        }
        return unit;
    }

    /**
     * Lists every known currency, ordered by code.
     *
     * @return an unmodifiable list of all units
     */
    public static List<CurrencyUnit> available() {
        List<CurrencyUnit> units = new ArrayList<>(BY_CODE.values());
        Collections.sort(units);
        return Collections.unmodifiableList(units);
    }

    /**
     * Returns the ISO 4217 alphabetic code.
     *
     * @return the code, for example {@code "EUR"}
     */
    public String getCode() {
        return code;
    }

    /**
     * Returns how many decimal places amounts in this currency carry.
     *
     * @return 2 for most currencies, 0 for the yen, 3 for the Kuwaiti dinar
     */
    public int getFractionDigits() {
        return fractionDigits;
    }

    public String getSymbol() {
        return symbol;
    }

    /**
     * Orders currencies alphabetically by code.
     *
     * @param other the currency to compare with
     * @return a negative number, zero or a positive number as this code sorts before, equal to
     *     or after the other code
     */
    @Override
    public int compareTo(CurrencyUnit other) {
        return code.compareTo(other.code);
    }

    @Override
    public String toString() {
        return code;
    }
}
