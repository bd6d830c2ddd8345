package org.example.money;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * An exact amount of money in a single currency.
 *
 * <p>The amount is a {@link BigDecimal} whose scale always equals the currency's number of
 * minor-unit digits, so {@code 0.10 + 0.20} is exactly {@code 0.30}. Instances are immutable.
 * Operations that combine two amounts require both to be in the same currency.
 */
public final class Money implements Comparable<Money> {

    private final BigDecimal amount;
    private final CurrencyUnit currency;

    private Money(BigDecimal amount, CurrencyUnit currency) {
        this.amount = amount;
        this.currency = currency;
    }

    /**
     * Creates an amount that must already fit the currency's minor unit.
     *
     * @param amount the amount, with at most as many decimal places as the currency allows
     * @param currency the currency of the amount
     * @return the amount, scaled to the currency's fraction digits
     * @throws IllegalArgumentException if {@code amount} or {@code currency} is null
     * @throws ArithmeticException if {@code amount} has more decimal places than the currency
     *     allows, for example {@code 1.005} dollars
     */
    public static Money of(BigDecimal amount, CurrencyUnit currency) {
        if (amount == null || currency == null) {
            throw new IllegalArgumentException("amount and currency are required");
        }
        int digits = currency.getFractionDigits();
        if (amount.stripTrailingZeros().scale() > digits) {
            throw new ArithmeticException("amount " + amount.toPlainString() + " has more than "
                    + digits + " decimal places for " + currency);
        }
        return new Money(amount.setScale(digits, RoundingMode.UNNECESSARY), currency);
    }

    /**
     * Creates an amount from a count of minor units, such as cents.
     *
     * @param minorUnits the amount in minor units; {@code 1250} is 12.50 dollars
     * @param currency the currency of the amount
     * @return the amount
     * @throws IllegalArgumentException if {@code currency} is null
     */
    public static Money ofMinor(long minorUnits, CurrencyUnit currency) {
        if (currency == null) {
            throw new IllegalArgumentException("currency is required");
        }
        return new Money(BigDecimal.valueOf(minorUnits, currency.getFractionDigits()), currency);
    }

    /**
     * Returns zero in the given currency.
     *
     * @param currency the currency
     * @return a zero amount
     * @throws IllegalArgumentException if {@code currency} is null
     */
    public static Money zero(CurrencyUnit currency) {
        return ofMinor(0L, currency);
    }

    /**
     * Adds up amounts that all share one currency.
     *
     * @param amounts the amounts to add; must not be empty
     * @return the total
     * @throws IllegalArgumentException if {@code amounts} is null or empty, or the amounts are
     *     not all in the same currency
     */
    public static Money sum(Collection<Money> amounts) {
        if (amounts == null || amounts.isEmpty()) {
            throw new IllegalArgumentException("cannot sum an empty collection");
        }
        Money first = amounts.iterator().next();
        Money total = first.zero(first.currency);
        for (Money amount : amounts) {
            total = total.plus(amount);
        }
        return total;
    }

    /**
     * Returns the amount as a decimal scaled to the currency's fraction digits.
     *
     * @return the amount, for example {@code 12.50}
     */
    public BigDecimal getAmount() {
        return amount;
    }

    /**
     * Returns the currency of this amount.
     *
     * @return the currency
     */
    public CurrencyUnit getCurrency() {
        return currency;
    }

    /**
     * Returns the amount as a whole number of minor units.
     *
     * @return the amount in minor units; 12.50 dollars is {@code 1250}
     * @throws ArithmeticException if the amount does not fit in a {@code long}
     */
    public long toMinorUnits() {
        return amount.movePointRight(currency.getFractionDigits()).longValueExact();
    }

    /**
     * Adds another amount in the same currency.
     *
     * @param other the amount to add
     * @return the sum
     * @throws IllegalArgumentException if {@code other} is in a different currency
     */
    public Money plus(Money other) {
        checkSameCurrency(other);
        return new Money(amount.add(other.amount), currency);
    }

    /**
     * Subtracts another amount in the same currency.
     *
     * @param other the amount to subtract
     * @return the difference, which may be negative
     * @throws IllegalArgumentException if {@code other} is in a different currency
     */
    public Money minus(Money other) {
        checkSameCurrency(other);
        return new Money(amount.subtract(other.amount), currency);
    }

    /**
     * Multiplies the amount by a factor and rounds the result to the minor unit.
     *
     * @param factor the multiplier, for example a quantity or an exchange rate
     * @param mode how to round the product
     * @return the rounded product
     * @throws IllegalArgumentException if {@code factor} or {@code mode} is null
     * @throws ArithmeticException if {@code mode} is {@link RoundingMode#UNNECESSARY} and the
     *     product needs rounding
     */
    public Money times(BigDecimal factor, RoundingMode mode) {
        if (factor == null) {
            throw new IllegalArgumentException("factor is required");
        }
        if (mode == null) {
            throw new IllegalArgumentException("rounding mode is required");
        }
        BigDecimal product = amount.multiply(factor);
        return new Money(product.setScale(currency.getFractionDigits(), mode), currency);
    }

    /**
     * Divides the amount by a whole number and rounds the quotient to the minor unit.
     *
     * @param divisor the number to divide by
     * @param mode how to round the quotient
     * @return the rounded quotient
     * @throws ArithmeticException if {@code divisor} is zero, or if {@code mode} is
     *     {@link RoundingMode#UNNECESSARY} and the quotient needs rounding
     */
    public Money dividedBy(long divisor, RoundingMode mode) {
        if (divisor == 0) {
            throw new ArithmeticException("division of " + this + " by zero");
        }
        BigDecimal quotient = amount.divide(BigDecimal.valueOf(divisor),
                currency.getFractionDigits(), mode);
        return new Money(quotient, currency);
    }

    public Money negate() {
        return new Money(amount.negate(), currency);
    }

    /**
     * Splits the amount into parts proportional to the given ratios without losing a cent.
     *
     * <p>Each part first gets its proportional share rounded down to the minor unit; the minor
     * units left over are then handed out one at a time to the parts with a non-zero ratio,
     * starting with the first. The parts always add up to exactly this amount, so allocating
     * 0.05 in the ratio 3:7 gives 0.02 and 0.03.
     *
     * @param ratios the relative size of each part; zero is allowed, negative values are not
     * @return one amount per ratio, in the same order
     * @throws IllegalArgumentException if no ratios are given, a ratio is negative or all ratios
     *     are zero
     * @throws ArithmeticException if the amount in minor units does not fit in a {@code long}
     */
    public List<Money> allocate(int... ratios) {
        if (ratios == null || ratios.length == 0) {
            throw new IllegalArgumentException("at least one ratio is required");
        }
        long ratioSum = 0;
        for (int ratio : ratios) {
            if (ratio < 0) {
                throw new IllegalArgumentException("ratios must not be negative: " + ratio);
            }
            ratioSum += ratio;
        }
        if (ratioSum == 0) {
            throw new IllegalArgumentException("at least one ratio must be positive");
        }
        long total = toMinorUnits();
        long sign = total < 0 ? -1 : 1;
        long magnitude = Math.abs(total);
        long remaining = magnitude;
        long[] shares = new long[ratios.length];
        for (int i = 0; i < ratios.length; i++) {
            shares[i] = (long) magnitude * ratios[i] / ratioSum;
            remaining -= shares[i];
        }
        for (int i = 0; remaining > 0; i = (i + 1) % ratios.length) {
            if (ratios[i] > 0) {
                shares[i]++;
                remaining--;
            }
        }
        List<Money> parts = new ArrayList<>(ratios.length);
        for (long share : shares) {
            parts.add(ofMinor(sign * share, currency));
        }
        return Collections.unmodifiableList(parts);
    }

    public List<Money> split(int parts) {
        if (parts < 1) {
            throw new IllegalArgumentException("parts must be at least 1, got " + parts);
        }
        int[] ratios = new int[parts];
        Arrays.fill(ratios, 1);
        return allocate(ratios);
    }

    /**
     * Compares two amounts in the same currency by value.
     *
     * @param other the amount to compare with
     * @return a negative number, zero or a positive number as this amount is less than, equal to
     *     or greater than {@code other}
     * @throws IllegalArgumentException if {@code other} is in a different currency
     */
    @Override
    public int compareTo(Money other) {
        checkSameCurrency(other);
        return amount.compareTo(other.amount);
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Money)) {
            return false;
        }
        Money other = (Money) obj;
        return currency == other.currency && amount.equals(other.amount);
    }

    @Override
    public int hashCode() {
        return Objects.hash(amount, currency);
    }

    /**
     * Returns the currency code and the plain amount, for example {@code "USD 12.50"}.
     *
     * @return a debugging representation; use {@link MoneyFormat} for display
     */
    @Override
    public String toString() {
        return currency.getCode() + " " + amount.toPlainString();
    }

    private void checkSameCurrency(Money other) {
        if (other.currency != currency) {
            throw new IllegalArgumentException(
                    "currency mismatch: " + currency + " and " + other.currency);
        }
    }
}
