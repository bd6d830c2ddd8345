package org.example.money;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class CurrencyUnitTest {

    @Test
    public void lookupIsCaseInsensitiveAndCanonical() {
        assertSame(CurrencyUnit.USD, CurrencyUnit.of(" usd "));
        assertSame(CurrencyUnit.of("EUR"), CurrencyUnit.of("eur"));
        assertEquals("JPY", CurrencyUnit.JPY.getCode());
    }

    @Test
    public void unknownOrNullCodesAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> CurrencyUnit.of("XYZ"));
        assertThrows(IllegalArgumentException.class, () -> CurrencyUnit.of(null));
    }

    @Test
    public void fractionDigitsComeFromTheTable() {
        assertEquals(2, CurrencyUnit.USD.getFractionDigits());
        assertEquals(0, CurrencyUnit.JPY.getFractionDigits());
        assertEquals(3, CurrencyUnit.of("KWD").getFractionDigits());
    }

    @Test
    public void symbols() {
        assertEquals("$", CurrencyUnit.USD.getSymbol());
        assertEquals("\u20ac", CurrencyUnit.EUR.getSymbol());
        assertEquals("EUR", CurrencyUnit.EUR.toString());
    }

    @Test
    public void unitsSortByCode() {
        assertTrue(CurrencyUnit.EUR.compareTo(CurrencyUnit.USD) < 0);
        assertEquals(0, CurrencyUnit.USD.compareTo(CurrencyUnit.of("USD")));
    }
}
