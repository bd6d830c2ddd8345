package org.example.money;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.Test;

public class MoneyTest {

    private static Money usd(String amount) {
        return Money.of(new BigDecimal(amount), CurrencyUnit.USD);
    }

    @Test
    public void ofScalesToTheCurrencyDigits() {
        assertEquals(new BigDecimal("12.50"), usd("12.5").getAmount());
        assertSame(CurrencyUnit.USD, usd("12.5").getCurrency());
        Money yen = Money.of(new BigDecimal("7.000"), CurrencyUnit.JPY);
        assertEquals(new BigDecimal("7"), yen.getAmount());
    }

    @Test(expected = ArithmeticException.class)
    public void ofRejectsFractionsOfACent() {
        usd("1.005");
    }

    @Test(expected = ArithmeticException.class)
    public void ofRejectsFractionsOfAYen() {
        Money.of(new BigDecimal("1.5"), CurrencyUnit.JPY);
    }

    @Test
    public void ofRejectsNullArguments() {
        assertThrows(IllegalArgumentException.class, () -> Money.of(null, CurrencyUnit.USD));
        assertThrows(IllegalArgumentException.class, () -> Money.of(BigDecimal.ONE, null));
    }

    @Test
    public void minorUnitsRoundTrip() {
        Money money = Money.ofMinor(1250, CurrencyUnit.USD);
        assertEquals(usd("12.50"), money);
        assertEquals(1250L, money.toMinorUnits());
        assertEquals(3500L, Money.ofMinor(3500, CurrencyUnit.of("KWD")).toMinorUnits());
    }

    @Test
    public void zeroHasTheCurrencyScale() {
        assertEquals("EUR 0.00", Money.zero(CurrencyUnit.EUR).toString());
    }

    @Test
    public void plusAndMinusAreExact() {
        assertEquals(usd("0.30"), usd("0.10").plus(usd("0.20")));
        assertEquals(usd("-0.10"), usd("0.10").minus(usd("0.20")));
    }

    @Test
    public void combiningCurrenciesFails() {
        Money euros = Money.of(BigDecimal.TEN, CurrencyUnit.EUR);
        assertThrows(IllegalArgumentException.class, () -> usd("1.00").plus(euros));
        assertThrows(IllegalArgumentException.class, () -> usd("1.00").minus(euros));
        assertThrows(IllegalArgumentException.class, () -> usd("1.00").compareTo(euros));
    }

    @Test
    public void timesRoundsWithTheGivenMode() {
        assertEquals(usd("0.02"), usd("0.05").times(new BigDecimal("0.5"), RoundingMode.HALF_EVEN));
        assertEquals(usd("0.03"), usd("0.05").times(new BigDecimal("0.5"), RoundingMode.HALF_UP));
        assertEquals(usd("30.00"),
                usd("10.00").times(BigDecimal.valueOf(3), RoundingMode.UNNECESSARY));
    }

    @Test
    public void timesWithUnnecessaryRoundingFailsWhenRoundingIsNeeded() {
        assertThrows(ArithmeticException.class,
                () -> usd("0.05").times(new BigDecimal("0.5"), RoundingMode.UNNECESSARY));
    }

    @Test
    public void allocateKeepsEveryCent() {
        List<Money> parts = usd("0.05").allocate(3, 7);
        assertEquals(Arrays.asList(usd("0.02"), usd("0.03")), parts);
    }

    @Test
    public void allocateSkipsZeroRatios() {
        List<Money> parts = usd("1.01").allocate(0, 1, 1);
        assertEquals(Arrays.asList(usd("0.00"), usd("0.51"), usd("0.50")), parts);
    }

    @Test
    public void allocateNegativeAmount() {
        List<Money> parts = usd("-1.00").allocate(1, 1, 1);
        assertEquals(Arrays.asList(usd("-0.34"), usd("-0.33"), usd("-0.33")), parts);
    }

    @Test
    public void allocateRejectsBadRatios() {
        assertThrows(IllegalArgumentException.class, () -> usd("1.00").allocate());
        assertThrows(IllegalArgumentException.class, () -> usd("1.00").allocate(0, 0));
        assertThrows(IllegalArgumentException.class, () -> usd("1.00").allocate(2, -1));
    }

    @Test
    public void splitPartsAddUpToTheWhole() {
        List<Money> parts = usd("100.00").split(3);
        assertEquals(Arrays.asList(usd("33.34"), usd("33.33"), usd("33.33")), parts);
        assertEquals(usd("100.00"), Money.sum(parts));
    }

    @Test(expected = IllegalArgumentException.class)
    public void splitRejectsZeroParts() {
        usd("1.00").split(0);
    }

    @Test
    public void sumAddsAmounts() {
        assertEquals(usd("6.60"), Money.sum(Arrays.asList(usd("1.10"), usd("2.20"), usd("3.30"))));
    }

    @Test(expected = IllegalArgumentException.class)
    public void sumRejectsAnEmptyCollection() {
        Money.sum(Collections.<Money>emptyList());
    }

    @Test
    public void equalityIgnoresTrailingZerosOfTheInput() {
        assertEquals(usd("1"), usd("1.00"));
        assertEquals(usd("1").hashCode(), usd("1.00").hashCode());
        assertNotEquals(usd("1.00"), Money.of(BigDecimal.ONE, CurrencyUnit.EUR));
        assertTrue(usd("1.00").compareTo(usd("2.00")) < 0);
    }

    @Test
    public void negateFlipsTheSign() {
        assertEquals(usd("-4.20"), usd("4.20").negate());
        assertEquals("USD -4.20", usd("4.20").negate().toString());
    }
}
